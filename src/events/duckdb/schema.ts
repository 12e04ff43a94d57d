/**
 * The DuckDB event file's tables, and the one change of layout an existing file gets at open.
 *
 * `events` has no primary key. An ART index on `id` cost about 7 µs of CPU per appended click and
 * half the file's bytes (BENCHMARKS.md), and it kept partly deleted row groups whole, so closed
 * days could not be rewritten in workspace order. Instead:
 * - appends stay idempotent by what they know: a batch file is appended once (its name is kept in
 *   `appended_files`, in the append's transaction), and rows appended by value skip ids already
 *   stored within the rows' own time span (an event's copies share its timestamp), engine.ts;
 * - look-ups by id use DuckDB's zone maps: click ids and `evt_` ids begin with their time, and rows
 *   arrive in time order, so a row group's min/max of `id` rules most groups out.
 *
 * @example
 * for (const statement of tableStatements()) await connection.run(statement);
 * await dropEventsKey(connection); // a file made by an earlier version: rebuilt once, in one transaction
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { EVENT_COLUMNS, INTEGER_COLUMNS, NULLABLE_EVENT_COLUMNS } from '../column/engine.js';
import { quoteIdent } from '../column/dialect.js';

/** The `events` columns with their types, in table order. */
function eventColumns(): string {
  return EVENT_COLUMNS.map((c) => {
    const type = INTEGER_COLUMNS.has(c) ? 'BIGINT' : 'VARCHAR';
    return `${quoteIdent(c)} ${type}${NULLABLE_EVENT_COLUMNS.has(c) ? '' : ' NOT NULL'}`;
  }).join(', ');
}

/** Creates what is missing. */
export function tableStatements(): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS events (${eventColumns()})`,
    `CREATE TABLE IF NOT EXISTS event_summaries (workspace_id VARCHAR NOT NULL, bucket BIGINT NOT NULL, link_id VARCHAR NOT NULL,
      clicks BIGINT NOT NULL, leads BIGINT NOT NULL, sales BIGINT NOT NULL, sale_amount BIGINT NOT NULL,
      PRIMARY KEY (workspace_id, bucket, link_id))`,
    // Periods (a UTC day or several: `day` is their start) rewritten in (workspace_id, timestamp) order by `compact`, with their row count then.
    `CREATE TABLE IF NOT EXISTS event_compactions (day BIGINT PRIMARY KEY, "rows" BIGINT NOT NULL, compacted_at BIGINT NOT NULL)`,
    // Batch files appended (by name, which the click journal never reuses), so a file appended again adds nothing.
    `CREATE TABLE IF NOT EXISTS appended_files (name VARCHAR PRIMARY KEY, appended_at BIGINT NOT NULL)`,
  ];
}

/**
 * Rebuilds `events` without its primary key when an earlier version made it with one: copied in
 * time order into a new table that then takes its name, in one transaction (a crash leaves the
 * old table as it was). Returns the rows copied, or null when there was no key.
 */
export async function dropEventsKey(connection: DuckDBConnection): Promise<number | null> {
  const keyed = await connection.runAndReadAll(
    `SELECT count(*) AS n FROM duckdb_constraints() WHERE table_name = 'events' AND constraint_type = 'PRIMARY KEY'`,
  );
  if (Number(keyed.getRowObjectsJS()[0]!.n) === 0) return null;
  await connection.run('BEGIN TRANSACTION');
  try {
    await connection.run(`CREATE TABLE events_unkeyed (${eventColumns()})`);
    const copied = await connection.run(`INSERT INTO events_unkeyed SELECT * FROM events ORDER BY "timestamp", workspace_id`);
    await connection.run('DROP TABLE events');
    await connection.run('ALTER TABLE events_unkeyed RENAME TO events');
    await connection.run('COMMIT');
    await connection.run('CHECKPOINT');
    return copied.rowsChanged;
  } catch (err) {
    await connection.run('ROLLBACK').catch(() => undefined);
    throw err;
  }
}
