/**
 * How far the rollups count click events: the click writer folds clicks into them a second at a
 * time on SQLite (redirect/click-fold.ts) and moves a watermark, `foldedBefore`; the planner reads
 * raw events from there on. A value that lags the database's is safe (more raw reading, same
 * answer): folds only ever add to buckets at or after the watermark they started from.
 *
 * @example
 * const horizon = createRollupHorizon();
 * horizon.update(1_763_000_000_000); // the writer reports a fold
 * horizon.foldedBefore();            // → 1_763_000_000_000; null: every click is counted
 */
export interface RollupHorizon {
  /** Every click event before this time is in the rollups, none after it; null: all are. */
  foldedBefore(): number | null;
}

export function createRollupHorizon(initial: number | null = null): RollupHorizon & { update(foldedBefore: number | null): void } {
  let value = initial;
  return {
    foldedBefore: () => value,
    update(foldedBefore) {
      value = foldedBefore;
    },
  };
}
