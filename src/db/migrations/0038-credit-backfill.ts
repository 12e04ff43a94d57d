/**
 * `credit_backfill`: how far the upgrade that writes credits for the sales stored before credits
 * existed (attribution/backfill.ts, docs/decisions/0015 item 5) has come: the last sale done in
 * (workspace_id, timestamp, id) order, and when it finished. One row, named `credits`; absent
 * until the first page commits. Analytics read credits only once it is done (the read-time path
 * answers until then).
 *
 * `credit_recompute`: sales whose credits an event that changed their journey made stale (an
 * erasure of one of their touches, an import of earlier leads or sales of their customer); their
 * rows are deleted when they are queued, and the backfill's job writes them again. Analytics read
 * the read-time path while any is queued.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('credit_backfill')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('after_workspace_id', 'text')
    .addColumn('after_timestamp', dialect.bigIntType)
    .addColumn('after_id', 'text')
    .addColumn('done_at', dialect.bigIntType)
    .execute();
  await db.schema
    .createTable('credit_recompute')
    .addColumn('sale_id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('queued_at', dialect.bigIntType, (c) => c.notNull())
    .execute();
}
