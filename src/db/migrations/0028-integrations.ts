/**
 * Payment provider integrations (src/integrations/): one row per workspace and provider with the
 * provider's signing secret, stored encrypted (integrations/secret-box.ts), and the log of every
 * delivery received, keyed by the provider's event id so a replayed delivery is answered from it
 * and recorded once; a delivery that could not be recorded yet (unknown customer or click)
 * keeps its body, so it can be recorded later and nothing is lost.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const big = dialect.bigIntType;
  await db.schema
    .createTable('integrations')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('created_at', big, (c) => c.notNull())
    .addColumn('updated_at', big, (c) => c.notNull())
    .addPrimaryKeyConstraint('integrations_pk', ['workspace_id', 'provider'])
    .execute();
  await db.schema
    .createTable('integration_events')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('payload', 'text')
    .addColumn('received_at', big, (c) => c.notNull())
    .addPrimaryKeyConstraint('integration_events_pk', ['workspace_id', 'provider', 'event_id'])
    .execute();
  await db.schema.createIndex('integration_events_recent').on('integration_events').columns(['workspace_id', 'received_at']).execute();
}
