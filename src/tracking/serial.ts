/**
 * Runs the track operations of one customer one after another inside this process, and carries
 * the writes of `async` leads past the response.
 *
 * Why: an `async` lead answers before its event is written. A sale (or a second lead) for the same
 * customer that arrives a moment later must still see that lead, so it waits for the customer's
 * queue to drain. Across processes the database constraints and row locks keep the result right;
 * this queue only makes a single process behave as if writes were immediate.
 */

/** What a queued task produces: the value for the caller, and optional work that runs after it. */
export interface TaskResult<T> {
  value: T;
  /** Runs after `value` is handed back, before the next task of the same key starts. */
  after?: () => Promise<void>;
}

export interface KeyedSerialQueue {
  /**
   * Runs `task` once every earlier task of `key` (and its `after` work) has finished. Resolves
   * with the task's value as soon as it is known; `after` keeps the key busy until it is done.
   */
  run<T>(key: string, task: () => Promise<TaskResult<T>>): Promise<T>;
  /** Resolves when no task or `after` work is pending, for shutdown and tests. */
  drain(): Promise<void>;
  /** Number of keys with pending work. */
  readonly pending: number;
}

export function createKeyedSerialQueue(onAfterError: (key: string, error: unknown) => void): KeyedSerialQueue {
  const tails = new Map<string, Promise<void>>();
  return {
    run<T>(key: string, task: () => Promise<TaskResult<T>>): Promise<T> {
      const previous = tails.get(key) ?? Promise.resolve();
      let resolve!: (v: T) => void;
      let reject!: (e: unknown) => void;
      const result = new Promise<T>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      const tail = previous.then(async () => {
        let out: TaskResult<T>;
        try {
          out = await task();
        } catch (err) {
          reject(err);
          return;
        }
        resolve(out.value);
        if (out.after) {
          try {
            await out.after();
          } catch (err) {
            onAfterError(key, err);
          }
        }
      });
      tails.set(key, tail);
      void tail.then(() => {
        if (tails.get(key) === tail) tails.delete(key);
      });
      return result;
    },
    async drain() {
      while (tails.size) await Promise.all([...tails.values()]);
    },
    get pending() {
      return tails.size;
    },
  };
}
