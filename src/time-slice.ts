/**
 * Time slices for bulk work on the thread that serves redirects (imports): the work calls
 * `pause()` between small units (a row), and once it has run for `budgetMs` since it last
 * resumed, `pause()` gives the event loop a turn (`setImmediate`: timers and sockets run first),
 * so a redirect waits at most about one slice behind it. A loop of awaits that never waits for
 * I/O never yields by itself: its promises resolve as microtasks, which run before the loop moves on.
 *
 * Every job of one slicer shares its turns: one job runs per turn, round-robin, so ten concurrent
 * imports hold the loop no longer per turn than one does (they progress ten times slower).
 *
 * @example
 * for (const row of rows) {
 *   await slices.pause();
 *   judge(row);
 * }
 */
export interface TimeSlicer {
  /** Resolves at once while the slice lasts; else after the event loop has had a turn. */
  pause(): Promise<void>;
  readonly budgetMs: number;
}

/** The slice of bulk work between two turns of the event loop, ms. */
export const SLICE_BUDGET_MS = 4;

export function createTimeSlicer(budgetMs = SLICE_BUDGET_MS): TimeSlicer {
  /** When the job now running resumed (0: none resumed yet, so the first pause yields). */
  let resumedAt = 0;
  const waiting: (() => void)[] = [];
  let scheduled = false;

  const turn = () => {
    scheduled = false;
    const next = waiting.shift();
    if (!next) return;
    resumedAt = performance.now();
    next();
    // The others wait for the next turns, one each.
    if (waiting.length) schedule();
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(turn);
  };

  return {
    budgetMs,
    pause(): Promise<void> {
      if (performance.now() - resumedAt < budgetMs) return Promise.resolve();
      return new Promise<void>((resolve) => {
        waiting.push(resolve);
        schedule();
      });
    },
  };
}

/** The process's slicer for bulk work on the main thread: all such work shares its turns. */
export const slices = createTimeSlicer();
