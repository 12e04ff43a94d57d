/**
 * Webhooks (src/webhooks/): the receivers a workspace registers, the links attached to them
 * (the links API's `webhookIds`), and one row per (webhook, event) to deliver.
 *
 * - `webhooks`: `triggers`, `link_ids` and `folder_ids` are JSON arrays (a handful of values,
 *   always read whole with the webhook). `disabled_at` is set after 20 consecutive failures.
 * - `link_webhooks`: a link's `webhookIds`, in the order given (`position`).
 * - `webhook_deliveries`: written by the fan-out subscriber, idempotent on (webhook_id, event_id)
 *   (the outbox delivers at least once). `body` is the exact JSON sent, so every retry signs the same
 *   bytes. `next_attempt_at` is when it is due, or a claim's lease while a process sends it (a
 *   process killed mid-send leaves it to be sent again once the lease expires); null once settled.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('triggers', 'text', (c) => c.notNull())
    .addColumn('link_scope', 'text')
    .addColumn('link_ids', 'text', (c) => c.notNull())
    .addColumn('folder_ids', 'text', (c) => c.notNull())
    .addColumn('disabled_at', dialect.bigIntType)
    .addColumn('consecutive_failures', 'integer', (c) => c.notNull())
    .addColumn('created_at', dialect.bigIntType, (c) => c.notNull())
    .addColumn('updated_at', dialect.bigIntType, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhooks_workspace').on('webhooks').columns(['workspace_id', 'created_at']).execute();

  await db.schema
    .createTable('link_webhooks')
    .addColumn('link_id', 'text', (c) => c.notNull())
    .addColumn('webhook_id', 'text', (c) => c.notNull())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('link_webhooks_pk', ['link_id', 'webhook_id'])
    .execute();
  await db.schema.createIndex('link_webhooks_webhook').on('link_webhooks').column('webhook_id').execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('webhook_id', 'text', (c) => c.notNull())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', dialect.bigIntType)
    .addColumn('delivered_at', dialect.bigIntType)
    .addColumn('status_code', 'integer')
    .addColumn('latency_ms', 'integer')
    .addColumn('error', 'text')
    .addColumn('created_at', dialect.bigIntType, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_deliveries_event').on('webhook_deliveries').columns(['webhook_id', 'event_id']).unique().execute();
  await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').column('next_attempt_at').execute();
}
