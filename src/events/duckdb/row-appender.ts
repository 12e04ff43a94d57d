/**
 * Rows into DuckDB's `events` table through its Appender, inside the writer's open transaction:
 * each row's columns in table order, its workspace key (computed by DuckDB the first time a
 * workspace is seen, then kept) and the click batch it came in.
 *
 * Click batches go in as data chunks instead (click-chunks.ts).
 *
 * @example
 * const append = createEventAppender(writer);
 * await append.rows(rows, null);   // within BEGIN … COMMIT on `writer`
 * await append.clicks(columns, 7); // a click batch, numbered 7
 */
import type { DuckDBAppender, DuckDBConnection } from '@duckdb/node-api';
import type { StoredEvent } from '../event-store.js';
import { EVENT_COLUMNS, INTEGER_COLUMNS } from '../column/column-engine.js';
import { read, withAppender } from './connections.js';
import { workspaceKey } from './schema.js';
import { appendClickChunks } from './click-chunks.js';
import type { ClickColumns } from '../batch/click-columns.js';

/** Per event column, in table order: whether it is an integer. */
const INTEGER = EVENT_COLUMNS.map((c) => INTEGER_COLUMNS.has(c));

/**
 * Appends `rows` to an appender on `events`, value by value in table order: the columns of
 * `EventRow`, the workspace key (`keys`, computed by DuckDB: schema.ts) and the click batch the
 * row came in (null for rows appended by value). Typed appends, without the intermediate values a
 * data chunk is built from (bench/log-append/README.md).
 */
function appendRows(appender: DuckDBAppender, rows: readonly StoredEvent[], keys: ReadonlyMap<string, bigint>, batch: bigint | null): void {
  for (const row of rows) {
    const r = row as unknown as Record<string, unknown>;
    for (let c = 0; c < EVENT_COLUMNS.length; c++) {
      const v = r[EVENT_COLUMNS[c]!];
      if (v == null) {
        if (EVENT_COLUMNS[c] === 'amount') appender.appendBigInt(0n);
        else appender.appendNull();
      } else if (INTEGER[c]) appender.appendBigInt(BigInt(Math.trunc(Number(v))));
      else appender.appendVarchar(v as string);
    }
    appender.appendBigInt(keys.get(row.workspace_id)!);
    if (batch === null) appender.appendNull();
    else appender.appendBigInt(batch);
    appender.endRow();
  }
}

/** The two ways into `events` inside the writer's open transaction, sharing the workspace keys. */
export interface EventAppender {
  /** Rows by value, tagged with `batch` (null: appended by value). */
  rows(rows: readonly StoredEvent[], batch: number | null): Promise<void>;
  /** A columnar click batch, as data chunks (click-chunks.ts). */
  clicks(clicks: ClickColumns, batch: number): Promise<void>;
}

/** Appends inside the caller's transaction on `writer`. */
export function createEventAppender(writer: DuckDBConnection): EventAppender {
  // Workspace keys by workspace id, computed by DuckDB (schema.ts) the first time one is seen.
  const keys = new Map<string, bigint>();
  async function keysOf(workspaceIds: Iterable<string>): Promise<void> {
    const missing = [...new Set(workspaceIds)].filter((w) => !keys.has(w));
    if (!missing.length) return;
    const found = await read(writer, { text: `SELECT w, ${workspaceKey('w')} AS k FROM unnest($1::VARCHAR[]) t(w)`, params: [{ type: 'texts', value: missing }] });
    for (const r of found) keys.set(String(r.w), BigInt(r.k as bigint));
  }

  return {
    async rows(rows, batch) {
      await keysOf(rows.map((r) => r.workspace_id));
      await withAppender(writer, 'events', (appender) => appendRows(appender, rows, keys, batch === null ? null : BigInt(batch)));
    },
    async clicks(clicks, batch) {
      if (!clicks.length) return;
      await keysOf(clicks.dictionaries.links.map((l) => l.workspace_id));
      await withAppender(writer, 'events', (appender) => appendClickChunks(appender, clicks, keys, batch));
    },
  };
}
