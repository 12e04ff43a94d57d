/**
 * `events_customer` (workspace_id, customer_id, kind, timestamp) becomes partial: only rows with
 * a customer, i.e. leads and sales. Click events never carry a customer, yet each click paid for
 * an entry in this index (the hot write of the redirect, issue 4). Every reader filters on
 * `customer_id = ?`, which implies `customer_id is not null`, so SQLite and PostgreSQL both
 * still choose the index for them (src/redirect/events-index.test.ts checks it on both).
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.dropIndex('events_customer').execute();
  await db.schema
    .createIndex('events_customer')
    .on('events')
    .columns(['workspace_id', 'customer_id', 'kind', 'timestamp'])
    .where(sql.ref('customer_id'), 'is not', null)
    .execute();
}
