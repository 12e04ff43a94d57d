/**
 * `credits`: attribution credits written with the sale (docs/decisions/0015). One row per (sale,
 * model, touch) for every model but `last_click` (which is the sale itself): the sale's workspace,
 * time, id, customer and link (`sale_link_id`, so a link scope applies to the sale as the
 * read-time path does), the touch's click id and link id, the dimensions analytics group by as
 * the touch carried them, and the model's `share` of the sale (0 for a refund) and `cents`.
 *
 * Kept in the metadata database beside the leads and sales for every event store (the column
 * stores keep their conversions there too), so one table and one statement serve all four.
 * Clustered on (workspace_id, model, timestamp, sale_id, click_id): analytics read one model of
 * one workspace over a time range. `credits_sale` finds a sale's rows (a rewrite replaces them,
 * an erasure or expiry deletes them); `credits_customer` a customer's (erasure); `credits_click`
 * the sales a touch's erasure changes.
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

const DIMENSIONS = [
  'domain', 'url', 'utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content', 'continent', 'country', 'region', 'city',
  'device', 'browser', 'os', 'trigger', 'referer', 'referer_url',
];

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  let table = db.schema
    .createTable('credits')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('timestamp', dialect.bigIntType, (c) => c.notNull())
    .addColumn('sale_id', 'text', (c) => c.notNull())
    .addColumn('click_id', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text')
    .addColumn('sale_link_id', 'text', (c) => c.notNull())
    .addColumn('link_id', 'text', (c) => c.notNull());
  for (const d of DIMENSIONS) table = table.addColumn(d, 'text');
  table = table
    .addColumn('share', 'double precision', (c) => c.notNull())
    .addColumn('cents', dialect.bigIntType, (c) => c.notNull())
    .addPrimaryKeyConstraint('credits_pk', ['workspace_id', 'model', 'timestamp', 'sale_id', 'click_id']);
  if (dialect.clusteredTableSuffix) table = table.modifyEnd(dialect.clusteredTableSuffix);
  await table.execute();
  await db.schema.createIndex('credits_sale').on('credits').column('sale_id').execute();
  await db.schema.createIndex('credits_click').on('credits').column('click_id').execute();
  await db.schema.createIndex('credits_customer').on('credits').columns(['workspace_id', 'customer_id']).where(sql.ref('customer_id'), 'is not', null).execute();
}
