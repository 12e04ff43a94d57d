/**
 * A bound on the event log's read queries running at once (analytics, event pages and exports,
 * click look-ups). The DuckDB binding runs every query, the click appends' included, on libuv's
 * thread pool, which the whole process shares (4 threads by default, served first come first
 * served): four long reads would take all of it, and the append the redirect's lag bound waits on
 * would queue behind them. Reads past the bound wait here, in order; appends never do, so they
 * always find a pool thread free. Appends come first too: while one runs (`first`), no waiting
 * read starts, so an append shares the pool and this thread with the reads already running only.
 * Reads do not starve: as an append ends the waiting ones start, before the writer's next batch
 * (it sends one at a time) can arrive.
 *
 * @example
 * const reads = createReadSlots(2);
 * const rows = await reads.run(() => store.aggregate(spec, range, boundaries));
 * await reads.first(() => store.appendClicks(batchId, rows));
 */
export interface ReadSlots {
  /** Runs `fn` once fewer than the bound are running; its result or failure as it is. */
  run<T>(fn: () => Promise<T>): Promise<T>;
  /** Runs `fn` at once; until it settles, waiting reads stay waiting (an append). */
  first<T>(fn: () => Promise<T>): Promise<T>;
  /** Reads running now. */
  readonly running: number;
  /** Reads waiting for a slot. */
  readonly waiting: number;
}

/** `max` reads at once; 0 (or less) leaves reads unbounded and unordered (as if there were no slots). */
export function createReadSlots(max: number): ReadSlots {
  let running = 0;
  let ahead = 0;
  const queue: (() => void)[] = [];
  const startWaiting = () => {
    while (queue.length && !ahead && (max <= 0 || running < max)) {
      running++;
      queue.shift()!();
    }
  };
  return {
    async run<T>(fn: () => Promise<T>): Promise<T> {
      if (max > 0 && (ahead || running >= max)) await new Promise<void>((r) => queue.push(r));
      else running++;
      try {
        return await fn();
      } finally {
        running--;
        startWaiting();
      }
    },
    async first<T>(fn: () => Promise<T>): Promise<T> {
      ahead++;
      try {
        return await fn();
      } finally {
        ahead--;
        startWaiting();
      }
    },
    get running() {
      return running;
    },
    get waiting() {
      return queue.length;
    },
  };
}
