/**
 * A bound on the event log's read queries running at once (analytics, event pages and exports,
 * click look-ups). The DuckDB binding runs every query, the click appends' included, on libuv's
 * thread pool, which the whole process shares (4 threads by default, served first come first
 * served): four long reads would take all of it, and the append the redirect's lag bound waits on
 * would queue behind them. Reads past the bound wait here, in order; appends never do, so they
 * always find a pool thread free.
 *
 * @example
 * const reads = createReadSlots(2);
 * const rows = await reads.run(() => store.aggregate(spec, range, boundaries));
 */
export interface ReadSlots {
  /** Runs `fn` once fewer than the bound are running; its result or failure as it is. */
  run<T>(fn: () => Promise<T>): Promise<T>;
  /** Reads running now. */
  readonly running: number;
  /** Reads waiting for a slot. */
  readonly waiting: number;
}

/** `max` reads at once; 0 (or less) leaves reads unbounded. */
export function createReadSlots(max: number): ReadSlots {
  let running = 0;
  const queue: (() => void)[] = [];
  const release = () => {
    running--;
    const next = queue.shift();
    if (next) {
      running++;
      next();
    }
  };
  return {
    async run<T>(fn: () => Promise<T>): Promise<T> {
      if (max > 0) {
        if (running >= max) await new Promise<void>((r) => queue.push(r));
        else running++;
      } else running++;
      try {
        return await fn();
      } finally {
        if (max > 0) release();
        else running--;
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
