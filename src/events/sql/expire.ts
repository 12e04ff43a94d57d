/**
 * Retention on SQL: raw events and rollup rows older than a horizon, deleted a bounded batch at a
 * time (../retention.ts schedules the batches). Rows are found through their primary keys, one
 * workspace (and rollup tuple) after another, each batch a range of the key: `events` is keyed
 * (workspace_id, timestamp, id), `analytics_hourly` (workspace_id, bucket), `analytics_daily`
 * (workspace_id, dim, bucket, key_hash). No index on the time alone exists, and a scan of the
 * whole table per batch would cost far more than the deletes. `expireEvents` touches neither the
 * rollups nor the link counters, so old periods stay answerable from the rollups.
 *
 * @example
 * await expireEvents(db, Date.now() - 90 * 86_400_000, 5000); // → rows deleted, ≤ 5000
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../../db/tables.js';
import { DAY_MS, HOUR_MS } from './rollup-spec.js';
import { ROLLUP_DIMS } from './rollup-spec.js';
import { expireCredits } from './credits.js';

/** One key range to trim: the rows of `table` matching `prefix` whose `time` is below `cut`, in key order `order`. */
interface Range {
  table: 'events' | 'analytics_hourly' | 'analytics_daily';
  prefix: Record<string, string>;
  /** The key columns after the prefix, the time first. */
  order: readonly string[];
  cut: number;
}

const cols = (names: readonly string[]): RawBuilder<unknown> => sql.join(names.map((c) => sql.ref(c)));

/** Deletes the first `left` rows of the range (all of them when fewer); returns how many. */
async function trim(trx: Kysely<Database>, range: Range, left: number): Promise<number> {
  const where = sql.join([...Object.entries(range.prefix).map(([c, v]) => sql`${sql.ref(c)} = ${v}`), sql`${sql.ref(range.order[0]!)} < ${range.cut}`], sql` and `);
  const table = sql.table(range.table);
  // The last row of the batch in key order: everything up to it goes, exactly `left` rows.
  const last = await sql<Record<string, unknown>>`select ${cols(range.order)} from ${table} where ${where} order by ${cols(range.order)} limit 1 offset ${left - 1}`.execute(trx);
  const row = last.rows[0];
  const upTo = row ? sql` and (${cols(range.order)}) <= (${sql.join(range.order.map((c) => sql`${c === range.order[0] ? Number(row[c]) : row[c]}`))})` : sql``;
  const res = await sql`delete from ${table} where ${where}${upTo}`.execute(trx);
  return Number(res.numAffectedRows ?? 0n);
}

async function trimAll(db: Kysely<Database>, ranges: (workspaceId: string) => Range[], limit: number): Promise<number> {
  if (limit <= 0) return 0;
  return db.transaction().execute(async (trx) => {
    const workspaces = await trx.selectFrom('workspaces').select('id').orderBy('id').execute();
    let removed = 0;
    for (const { id } of workspaces) {
      for (const range of ranges(id)) {
        if (removed >= limit) return removed;
        removed += await trim(trx, range, limit - removed);
      }
    }
    return removed;
  });
}

/** Deletes up to `limit` events stamped before `before`, oldest first per workspace, in one transaction. */
export async function expireEvents(db: Kysely<Database>, before: number, limit: number): Promise<number> {
  const n = await trimAll(db, (workspace_id) => [{ table: 'events', prefix: { workspace_id }, order: ['timestamp', 'id'], cut: before }], limit);
  // The credits of the sales before the horizon go with them (docs/decisions/0015).
  await expireCredits(db, before);
  return n;
}

/** Deletes up to `limit` rollup rows of buckets that end at or before `before` (hourly, then daily), in one transaction. */
export function expireRollups(db: Kysely<Database>, before: number, limit: number): Promise<number> {
  return trimAll(
    db,
    (workspace_id) => [
      { table: 'analytics_hourly', prefix: { workspace_id }, order: ['bucket'], cut: before - HOUR_MS + 1 },
      ...Object.keys(ROLLUP_DIMS).map((dim): Range => ({ table: 'analytics_daily', prefix: { workspace_id, dim }, order: ['bucket', 'key_hash'], cut: before - DAY_MS + 1 })),
    ],
    limit,
  );
}
