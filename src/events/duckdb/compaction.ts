/**
 * Which periods of the DuckDB event file the app compacts (duckdb-engine.ts `compact`), apart from the
 * engine so that the log thread's upkeep can name them without loading DuckDB's native module on
 * another store.
 */

/** The periods the app compacts: a week holds several row groups on a busy installation. */
export const COMPACTION_PERIOD_DAYS = 7;
/** The app compacts periods that ended at least this long ago: their late clicks have arrived. */
export const COMPACTION_HOLD_MS = 3_600_000;
