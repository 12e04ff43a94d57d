/**
 * The column store's share of the metadata database: the SQL `events` table (migration 0001)
 * holds every lead and sale, written in the caller's transaction (conversions.ts), so a lead
 * commits with its customer, the unique index `events_invoice` refuses a second sale of an
 * invoice id, and the conversion look-ups read them in that transaction. No click is written here
 * (an earlier version's import left some: ../upgrades/metadata-clicks.ts). No rollups either: the
 * column store answers every aggregate. These are the reads and deletes of that table that the
 * feed and the store share.
 *
 * @example
 * const rows = await rowsByIds(db, ['evt_1']);
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { EventRow } from '../event-store.js';

/** Ids per statement, far below both engines' bound-value limits. */
export const ID_CHUNK = 1000;

// Served by events_customer (workspace_id, customer_id, kind, timestamp).
export const customerEvents = (handle: Kysely<Database>, workspaceId: string, customerId: string, kind: 'lead' | 'sale') =>
  handle.selectFrom('events').where('workspace_id', '=', workspaceId).where('customer_id', '=', customerId).where('kind', '=', kind);

/** The rows with these ids (any kind), as the metadata database holds them. */
export async function rowsByIds(db: Kysely<Database>, ids: readonly string[]): Promise<EventRow[]> {
  const out: EventRow[] = [];
  for (let i = 0; i < ids.length; i += ID_CHUNK) {
    const rows = await db.selectFrom('events').selectAll().where('id', 'in', ids.slice(i, i + ID_CHUNK)).execute();
    for (const r of rows) out.push({ ...r, timestamp: Number(r.timestamp), amount: Number(r.amount), original_amount: r.original_amount == null ? null : Number(r.original_amount) });
  }
  return out;
}

/** Deletes these clicks from the metadata database (they are in the column store now). */
export async function dropCopiedClicks(db: Kysely<Database>, ids: readonly string[]): Promise<void> {
  for (let i = 0; i < ids.length; i += ID_CHUNK) {
    await db.deleteFrom('events').where('kind', '=', 'click').where('id', 'in', ids.slice(i, i + ID_CHUNK)).execute();
  }
}

/** Leads and sales per workspace. */
export async function conversionCounts(db: Kysely<Database>): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('events')
    .select(['workspace_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('kind', '<>', 'click')
    .groupBy('workspace_id')
    .execute();
  return new Map(rows.map((r) => [r.workspace_id, Number(r.n)]));
}

/**
 * Tracking waits this long at most for its lead or sale to reach the column store: a compaction
 * of a large week holds DuckDB's writer for longer (tens of seconds at tens of millions of events),
 * and the copy lands when it ends.
 */
export const COPY_WAIT_MS = 2000;
