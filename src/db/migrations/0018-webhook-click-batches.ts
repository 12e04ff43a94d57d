/**
 * `link.clicked` work recorded per click batch (src/webhooks/click-batches.ts), expanded into
 * deliveries by the dispatcher at its own pace (src/webhooks/click-expand.ts):
 *
 * - `webhook_click_batches`: one row per committed click batch that any webhook covers, written in
 *   the batch's own transaction whatever the number of webhooks: the covered clicks (event id,
 *   workspace, link, the click as the events API shows it) and which webhooks cover each (`payload`,
 *   JSON), the webhook ids (`hooks`, JSON), and `opened` (the dispatcher made its cursors).
 * - `webhook_click_cursors`: per (batch, webhook), the index of the next click to expand; deleted
 *   when the webhook has had every click of the batch, and the batch with its last cursor.
 * - `webhook_deliveries_webhook_due`: a webhook's due deliveries, for claims per webhook.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('webhook_click_batches')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('created_at', dialect.bigIntType, (c) => c.notNull())
    .addColumn('hooks', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('opened', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('webhook_click_batches_unopened').on('webhook_click_batches').columns(['opened', 'id']).execute();

  await db.schema
    .createTable('webhook_click_cursors')
    .addColumn('batch_id', 'text', (c) => c.notNull())
    .addColumn('webhook_id', 'text', (c) => c.notNull())
    .addColumn('next_click', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('webhook_click_cursors_pk', ['batch_id', 'webhook_id'])
    .execute();
  await db.schema.createIndex('webhook_click_cursors_webhook').on('webhook_click_cursors').columns(['webhook_id', 'batch_id']).execute();

  await db.schema.createIndex('webhook_deliveries_webhook_due').on('webhook_deliveries').columns(['webhook_id', 'next_attempt_at']).execute();
}
