/**
 * Refunds of sales (src/integrations/refunds.ts): how much of each sale has been refunded, in the
 * sale's own currency unit and in US cents, so a provider's cumulative refund total turns into
 * the part not yet recorded, and no sale is refunded beyond its amount. And an index on the
 * customers' payment processor id: every invoice of a provider finds its customer by it.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const big = dialect.bigIntType;
  await db.schema
    .createTable('sale_refunds')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('sale_event_id', 'text', (c) => c.notNull())
    .addColumn('refunded_original', big, (c) => c.notNull())
    .addColumn('refunded_usd_cents', big, (c) => c.notNull())
    .addColumn('updated_at', big, (c) => c.notNull())
    .addPrimaryKeyConstraint('sale_refunds_pk', ['workspace_id', 'sale_event_id'])
    .execute();
  await db.schema.createIndex('customers_processor').on('customers').columns(['workspace_id', 'processor_customer_id']).execute();
}
