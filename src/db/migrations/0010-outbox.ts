/**
 * The outbox of domain events (src/events/): a row per event users may want to hear about
 * (`link.created`, `lead.created` …), written in the transaction of the change it announces, and
 * a row per (subscriber, event) saying how its delivery stands.
 *
 * - `outbox`: `id` is the event id (`evt_…`, sent to subscribers, which de-duplicate on it);
 *   delivery runs in (`created_at`, `id`) order. `payload` is JSON text.
 * - `outbox_deliveries`: no cursor per subscriber: on PostgreSQL concurrent transactions commit
 *   in any order, so "everything up to the last delivered position" could skip a row committed
 *   later with an earlier position. A row here is created when a process claims the event for a
 *   subscriber: `not_before` is the claim's lease (another process leaves the event alone until
 *   then) or, after a failed attempt, the time of the next one; `delivered_at` is set once the
 *   subscriber took it. No row, or an expired `not_before` without `delivered_at`: due.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('outbox')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', dialect.bigIntType, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('outbox_order').on('outbox').columns(['created_at', 'id']).execute();

  await db.schema
    .createTable('outbox_deliveries')
    .addColumn('subscriber', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('not_before', dialect.bigIntType, (c) => c.notNull())
    .addColumn('delivered_at', dialect.bigIntType)
    .addColumn('last_error', 'text')
    .addPrimaryKeyConstraint('outbox_deliveries_pk', ['subscriber', 'event_id'])
    .execute();
  // Pruning finds the deliveries of an event.
  await db.schema.createIndex('outbox_deliveries_event').on('outbox_deliveries').column('event_id').execute();
}
