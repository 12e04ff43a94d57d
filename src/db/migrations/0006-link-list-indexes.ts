/**
 * Indexes for GET /links and GET /links/count over large workspaces (issue 3).
 *
 * - Each sort index ends with `id`: lists order by `<sort column>, id` so pages neither overlap
 *   nor skip rows, and with `id` in the index that order is read straight off it. Without it,
 *   SQLite sorts every tied row (e.g. all links with 0 clicks) before it can return a page.
 *   They replace 0001's `(workspace_id, <column>)` indexes, which they cover.
 * - `lastClicked` sorts on `coalesce(last_clicked, 0)`: never-clicked links come last in
 *   descending order and first in ascending order on both engines (PostgreSQL would otherwise put
 *   NULLs first when descending, SQLite last). Expression indexes exist on both engines.
 * - `domain` and `userId` filters get their own indexes, ordered by creation like the default list.
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  for (const col of ['created_at', 'clicks', 'sale_amount']) {
    await db.schema.createIndex(`links_ws_${col}_id`).on('links').columns(['workspace_id', col, 'id']).execute();
    await db.schema.dropIndex(`links_workspace_${col}`).execute();
  }
  await sql`create index links_ws_last_clicked_id on links (workspace_id, (coalesce(last_clicked, 0)), id)`.execute(db);
  await db.schema.dropIndex('links_workspace_last_clicked').execute();
  await db.schema.createIndex('links_ws_domain_created').on('links').columns(['workspace_id', 'domain', 'created_at', 'id']).execute();
  await db.schema.createIndex('links_ws_user_created').on('links').columns(['workspace_id', 'user_id', 'created_at', 'id']).execute();
}
