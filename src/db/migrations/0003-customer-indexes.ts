/**
 * Indexes for GET /customers over large workspaces (issue 5): the `saleAmount` sort and the
 * `linkId` filter, each led by the workspace and ending with `id` like the list's tie-break, so a
 * page is read off the index instead of sorting every customer. The default `createdAt` order and
 * the `email`/`externalId` filters use 0001's indexes.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.createIndex('customers_ws_sale_amount_id').on('customers').columns(['workspace_id', 'sale_amount', 'id']).execute();
  await db.schema.createIndex('customers_ws_link_created').on('customers').columns(['workspace_id', 'link_id', 'created_at', 'id']).execute();
}
