/**
 * The DuckDB event file's tables, and the one change of layout an existing file gets at open.
 *
 * `events` has the columns of `EventRow` and two more. `workspace_key`: a 63-bit integer of the
 * workspace id (from its MD5, computed by DuckDB: `workspaceKey`). DuckDB keeps a text column's
 * min/max per row group by its first 8 bytes only, and workspace ids share those (`ws_` and the
 * start of a ULID), so a filter on `workspace_id` skips nothing; the same filter on the integer
 * lets zone maps skip every row group without the workspace once rows are in workspace order
 * (the upgrade's copy, and `compact` for closed weeks). Queries filter on both (dialect.ts).
 * `batch`: the number of the click batch a row came in (`click_batches`, below), null for rows
 * appended by value (leads, sales, copies) and once its batch is forgotten; the fold reads the
 * rows of batches it has not counted yet by it (events/log/fold.ts).
 *
 * `events` has no primary key. An ART index on `id` cost about 7 µs of CPU per appended click and
 * half the file's bytes (BENCHMARKS.md), and it kept partly deleted row groups whole, so closed
 * days could not be rewritten in workspace order. Instead:
 * - appends stay idempotent by what they know: a click batch is appended once (its id is kept in
 *   `click_batches`, in the append's transaction), a copy of the upgrade once by its name
 *   (`copied_batches`), and rows appended by value skip ids already stored within the rows' own
 *   time span (an event's copies share its timestamp), duckdb-engine.ts;
 * - look-ups by id use DuckDB's zone maps: click ids and `evt_` ids begin with their time, and rows
 *   arrive in time order, so a row group's min/max of `id` rules most groups out.
 *
 * @example
 * for (const statement of tableStatements()) await connection.run(statement);
 * await rebuildEventsTable(connection); // a file made by an earlier version: rebuilt once, in one transaction
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { EVENT_COLUMNS, INTEGER_COLUMNS, NULLABLE_EVENT_COLUMNS } from '../column/column-engine.js';
import { quoteIdent } from '../column/dialect.js';
import { creditTableStatements } from './credits.js';

/** The workspace key of a text expression (a workspace id): from MD5, so not tied to DuckDB's internal hash function. */
export const workspaceKey = (expr: string): string => `(md5_number_upper(${expr}) >> 1)::BIGINT`;

/** An `EventRow` column's DuckDB type. */
export const columnType = (column: string): 'BIGINT' | 'VARCHAR' => (INTEGER_COLUMNS.has(column) ? 'BIGINT' : 'VARCHAR');

/** The columns of `EventRow` with their types, in table order. */
function eventColumns(): string {
  return EVENT_COLUMNS.map((c) => `${quoteIdent(c)} ${columnType(c)}${NULLABLE_EVENT_COLUMNS.has(c) ? '' : ' NOT NULL'}`).join(', ');
}

/** `events`' columns: those of `EventRow`, then the workspace key and the click batch. */
const TABLE_COLUMNS = () => `${eventColumns()}, workspace_key BIGINT NOT NULL, batch BIGINT`;

/** `CREATE TABLE` of a table with `events`' columns under `name` (a rebuilt copy). */
export const eventsTableAs = (name: string): string => `CREATE TABLE ${name} (${TABLE_COLUMNS()})`;

const CLICK_BATCH_COLUMNS = 'seq BIGINT NOT NULL, batch_id VARCHAR NOT NULL, appended_at BIGINT NOT NULL, clicks BIGINT NOT NULL';

/** Creates what is missing. */
export function tableStatements(): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS events (${TABLE_COLUMNS()})`,
    `CREATE TABLE IF NOT EXISTS event_summaries (workspace_id VARCHAR NOT NULL, bucket BIGINT NOT NULL, link_id VARCHAR NOT NULL,
      clicks BIGINT NOT NULL, leads BIGINT NOT NULL, sales BIGINT NOT NULL, sale_amount BIGINT NOT NULL,
      PRIMARY KEY (workspace_id, bucket, link_id))`,
    // Periods (a UTC day or several: `day` is their start) rewritten in (workspace_key, timestamp) order by `compact`, with their row count then.
    `CREATE TABLE IF NOT EXISTS event_compactions (day BIGINT PRIMARY KEY, "rows" BIGINT NOT NULL, compacted_at BIGINT NOT NULL)`,
    // Click batches stored, numbered in commit order (`seq`), by the id the click writer gave them:
    // a batch appended again adds nothing; the fold counts those after its watermark. A row goes
    // an hour after its batch was counted (a retry comes within seconds). No key: the one writer
    // numbers the batches, and a table with an index makes every commit that appends to it wait
    // for a running checkpoint (DuckDB ≥ 1.5 lets inserts into tables without indexes commit
    // meanwhile: duckdb-engine.ts checkpoints beside the appends).
    `CREATE TABLE IF NOT EXISTS click_batches (${CLICK_BATCH_COLUMNS})`,
    // The upgrade's copy batches appended, by name (upgrades/to-column-store.ts).
    `CREATE TABLE IF NOT EXISTS copied_batches (name VARCHAR PRIMARY KEY, copied_at BIGINT NOT NULL)`,
    // The file's own id, made once: the fold's watermark is kept under it in the metadata database.
    `CREATE TABLE IF NOT EXISTS event_log (id VARCHAR NOT NULL)`,
    ...creditTableStatements(),
  ];
}

/**
 * Brings an event file of the previous version to this layout without rewriting it: adds the
 * `batch` column (null for the rows it holds) and drops `appended_files`, the names of the click
 * journal's batch files it appended (the journal's upgrade skips stored ids instead:
 * ../upgrades/journal-replay.ts). Returns whether it changed anything.
 */
export async function upgradeEventsTable(connection: DuckDBConnection): Promise<boolean> {
  const [row] = (await connection.runAndReadAll(
    `SELECT (SELECT count(*) FROM duckdb_columns() WHERE table_name = 'events' AND column_name = 'batch') AS batch,
            (SELECT count(*) FROM duckdb_tables() WHERE table_name = 'appended_files') AS appended`,
  )).getRowObjectsJS();
  if (Number(row!.batch) > 0 && Number(row!.appended) === 0) return false;
  if (Number(row!.batch) === 0) await connection.run('ALTER TABLE events ADD COLUMN batch BIGINT');
  await connection.run('DROP TABLE IF EXISTS appended_files');
  return true;
}

/**
 * Rebuilds `events` when an earlier version made it otherwise: with a primary key on `id`, or
 * without `workspace_key`. The rows are copied in time order into a new table that then takes its
 * name, in one transaction (a crash leaves the old table as it was). Returns the rows copied, or
 * null when the table was as it should be.
 */
export async function rebuildEventsTable(connection: DuckDBConnection): Promise<number | null> {
  const [keyed] = (await connection.runAndReadAll(
    `SELECT (SELECT count(*) FROM duckdb_constraints() WHERE table_name = 'events' AND constraint_type = 'PRIMARY KEY') AS keys,
            (SELECT count(*) FROM duckdb_columns() WHERE table_name = 'events' AND column_name = 'workspace_key') AS workspace_key`,
  )).getRowObjectsJS();
  if (Number(keyed!.keys) === 0 && Number(keyed!.workspace_key) === 1) return null;
  const columns = EVENT_COLUMNS.map(quoteIdent).join(', ');
  await connection.run('BEGIN TRANSACTION');
  try {
    await connection.run(`CREATE TABLE events_rebuilt (${TABLE_COLUMNS()})`);
    const copied = await connection.run(`INSERT INTO events_rebuilt SELECT ${columns}, ${workspaceKey('workspace_id')}, NULL FROM events ORDER BY "timestamp", workspace_id`);
    await connection.run('DROP TABLE events');
    await connection.run('ALTER TABLE events_rebuilt RENAME TO events');
    await connection.run('COMMIT');
    await connection.run('CHECKPOINT');
    return copied.rowsChanged;
  } catch (err) {
    await connection.run('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/**
 * Rebuilds `click_batches` without the primary key an earlier version gave `seq`, in one
 * transaction (a crash leaves the old table as it was). Returns whether it did.
 */
export async function unkeyClickBatches(connection: DuckDBConnection): Promise<boolean> {
  const [row] = (await connection.runAndReadAll(
    `SELECT count(*) AS keys FROM duckdb_constraints() WHERE table_name = 'click_batches' AND constraint_type = 'PRIMARY KEY'`,
  )).getRowObjectsJS();
  if (Number(row!.keys) === 0) return false;
  await connection.run('BEGIN TRANSACTION');
  try {
    await connection.run(`CREATE TABLE click_batches_unkeyed (${CLICK_BATCH_COLUMNS})`);
    await connection.run('INSERT INTO click_batches_unkeyed SELECT seq, batch_id, appended_at, clicks FROM click_batches ORDER BY seq');
    await connection.run('DROP TABLE click_batches');
    await connection.run('ALTER TABLE click_batches_unkeyed RENAME TO click_batches');
    await connection.run('COMMIT');
    return true;
  } catch (err) {
    await connection.run('ROLLBACK').catch(() => undefined);
    throw err;
  }
}
