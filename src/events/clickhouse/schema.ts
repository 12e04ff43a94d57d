/**
 * The ClickHouse engine's tables (docs/events-stores.md, "ClickHouse"):
 *
 * - `events`: the columns of `EventRow`, `timestamp` as Int64 ms. A ReplacingMergeTree ordered by
 *   (workspace_id, timestamp, id), so one workspace's time range is one contiguous read, and two
 *   copies of one event (same workspace, time and id) are one row once merged and to every read
 *   with FINAL; monthly partitions (UTC) keep merges and retention's deletes to a month's parts.
 *   A bloom filter on `id` lets the point look-up of lead attribution skip almost every granule.
 *   The last inserts' deduplication tokens are kept (`non_replicated_deduplication_window`), so a
 *   click batch inserted again under its id adds nothing.
 * - `event_summaries`: hourly per-link totals of expired events. `batch` identifies the expiry
 *   batch a row came from, so a batch summarised twice (a crash between its insert and its
 *   delete) replaces its rows instead of adding them again.
 *
 * @example
 * for (const statement of schemaStatements()) await executor.command(statement);
 */
import { EVENT_COLUMNS, INTEGER_COLUMNS, NULLABLE_EVENT_COLUMNS } from '../column/column-engine.js';
import { quoteIdent } from '../column/dialect.js';

/** Text columns with few distinct values: dictionary-encoded (smaller, faster to group). */
const LOW_CARDINALITY: ReadonlySet<string> = new Set([
  'kind', 'domain', 'country', 'continent', 'region', 'device', 'browser', 'os', 'trigger', 'referer', 'currency', 'payment_processor', 'sale_type',
]);

/** The ClickHouse type of an event column. */
export function columnType(column: string): string {
  let type = INTEGER_COLUMNS.has(column) ? 'Int64' : 'String';
  if (NULLABLE_EVENT_COLUMNS.has(column)) type = `Nullable(${type})`;
  if (LOW_CARDINALITY.has(column)) type = `LowCardinality(${type})`;
  return type;
}

/**
 * Inserts whose deduplication token (a click batch's id) ClickHouse remembers per table: a retry
 * comes within seconds, while thousands of batches may go in meanwhile on a busy deployment.
 */
const DEDUPLICATION_WINDOW = 10_000;

export function schemaStatements(): string[] {
  const columns = EVENT_COLUMNS.map((c) => `${quoteIdent(c)} ${columnType(c)}`);
  return [
    `CREATE TABLE IF NOT EXISTS events (
      ${columns.join(',\n      ')},
      INDEX events_id "id" TYPE bloom_filter(0.001) GRANULARITY 1
    ) ENGINE = ReplacingMergeTree
    PARTITION BY toYYYYMM(toDateTime(intDiv("timestamp", 1000), 'UTC'))
    ORDER BY ("workspace_id", "timestamp", "id")
    SETTINGS non_replicated_deduplication_window = ${DEDUPLICATION_WINDOW}`,
    // Tables made before click batches were deduplicated by id.
    `ALTER TABLE events MODIFY SETTING non_replicated_deduplication_window = ${DEDUPLICATION_WINDOW}`,
    `CREATE TABLE IF NOT EXISTS event_summaries (
      "workspace_id" String, "bucket" Int64, "link_id" String, "batch" String,
      "clicks" Int64, "leads" Int64, "sales" Int64, "sale_amount" Int64
    ) ENGINE = ReplacingMergeTree
    ORDER BY ("workspace_id", "bucket", "link_id", "batch")`,
  ];
}
