/**
 * `events_customer` (workspace_id, customer_id, kind, timestamp) also carries `click_id`,
 * `link_id` and `amount`, still partial (leads and sales only). Attribution's read
 * (events/sql/buyer-conversions.ts) finds every lead and sale of the buyers through it; with
 * these columns in the index it reads no table row (SQLite: a covering index instead of one
 * primary-key search per row of the clustered table; 250k events, 20k rows read: 152 → 62 ms,
 * bench/attribution/README.md). The conversion look-ups that used it keep their prefix. Clicks
 * carry no customer, so the redirect's write pays nothing for it.
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.dropIndex('events_customer').execute();
  await db.schema
    .createIndex('events_customer')
    .on('events')
    .columns(['workspace_id', 'customer_id', 'kind', 'timestamp', 'click_id', 'link_id', 'amount'])
    .where(sql.ref('customer_id'), 'is not', null)
    .execute();
}
