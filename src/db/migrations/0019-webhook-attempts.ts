/**
 * Every attempt of a webhook delivery (src/webhooks/delivery-store.ts), not only the last one a
 * delivery row keeps: a receiver that failed and then succeeded keeps the trace of the failure.
 *
 * - `webhook_attempts`: per (delivery, attempt number), when it was sent, the receiver's status
 *   code, the latency, the first 1 KB of the answer and the error; written in the transaction that
 *   records the delivery's outcome, deleted after 30 days.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('webhook_attempts')
    .addColumn('delivery_id', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('webhook_id', 'text', (c) => c.notNull())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('sent_at', dialect.bigIntType, (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('latency_ms', 'integer')
    .addColumn('response', 'text')
    .addColumn('error', 'text')
    .addPrimaryKeyConstraint('webhook_attempts_pk', ['delivery_id', 'attempt'])
    .execute();
  await db.schema.createIndex('webhook_attempts_webhook').on('webhook_attempts').columns(['webhook_id', 'sent_at']).execute();
  await db.schema.createIndex('webhook_attempts_sent').on('webhook_attempts').columns(['sent_at']).execute();
}
