/**
 * Look-ups of stored ids in the DuckDB `events` table, which has no index (schema.ts): bounded by
 * the ids' own range or by the rows' workspaces and time span, so zone maps skip most row groups.
 *
 * @example
 * const stored = await storedAmong(rows, connection); // Set of the ids already stored
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { spanOf, type EventKey, type EventSpan } from '../column/column-engine.js';
import type { ColumnParam } from '../column/dialect.js';
import { read } from './connections.js';

/** Ids per look-up of stored ids. */
const ID_CHUNK = 2000;

/** The placeholders and parameters that restrict a query of `events` to a span. */
function spanWhere(span: EventSpan, first: number): { text: string; params: ColumnParam[] } {
  return {
    text: `"timestamp" >= $${first}::BIGINT AND "timestamp" <= $${first + 1}::BIGINT AND workspace_id IN (SELECT unnest($${first + 2}::VARCHAR[]))`,
    params: [{ type: 'int', value: span.from }, { type: 'int', value: span.to }, { type: 'texts', value: span.workspaces }],
  };
}

/** Which of the ids are stored (each once), looked for in chunks of ID_CHUNK. */
export async function existingIds(ids: readonly string[], connection: DuckDBConnection): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < ids.length; i += ID_CHUNK) {
    const part = ids.slice(i, i + ID_CHUNK);
    // Ids are time-ordered (click ids, evt_ ids) and rows arrive in time order: the bounds let
    // zone maps skip most row groups. Only for ASCII ids, where JavaScript's order is DuckDB's (UTF-8 bytes).
    let low = part[0]!;
    let high = part[0]!;
    let ascii = true;
    for (const id of part) {
      if (id < low) low = id;
      if (id > high) high = id;
      if (ascii && !/^[\x00-\x7f]*$/.test(id)) ascii = false;
    }
    const list: ColumnParam = { type: 'texts', value: part };
    const rows = await read(connection, ascii
      ? { text: 'SELECT DISTINCT id FROM events WHERE id >= $2::VARCHAR AND id <= $3::VARCHAR AND id IN (SELECT unnest($1::VARCHAR[]))', params: [list, { type: 'text', value: low }, { type: 'text', value: high }] }
      : { text: 'SELECT DISTINCT id FROM events WHERE id IN (SELECT unnest($1::VARCHAR[]))', params: [list] });
    for (const r of rows) out.push(String(r.id));
  }
  return out;
}

/** Which of these rows' ids are stored, looked for only among events of their workspaces and time span. */
export async function storedAmong(rows: readonly EventKey[], connection: DuckDBConnection): Promise<Set<string>> {
  const out = new Set<string>();
  for (let i = 0; i < rows.length; i += ID_CHUNK) {
    const part = rows.slice(i, i + ID_CHUNK);
    const span = spanWhere(spanOf(part), 2);
    const found = await read(connection, {
      text: `SELECT id FROM events WHERE ${span.text} AND id IN (SELECT unnest($1::VARCHAR[]))`,
      params: [{ type: 'texts', value: part.map((r) => r.id) }, ...span.params],
    });
    for (const r of found) out.add(String(r.id));
  }
  return out;
}
