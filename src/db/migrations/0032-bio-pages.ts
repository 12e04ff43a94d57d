/**
 * `bio_pages`: a workspace's link-in-bio profiles (src/bio/), each served at `/@<handle>` on one
 * of its domains (`domain`, a host as links store it) and, when the owner chooses, at that
 * domain's root (`root_domain`: the same host or null; unique, so one root page a domain).
 * Handles are unique per domain without regard to case (`handle_key`). `views` counts page views,
 * added in batches off the request path.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const big = dialect.bigIntType;
  await db.schema
    .createTable('bio_pages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('handle', 'text', (c) => c.notNull())
    .addColumn('handle_key', 'text', (c) => c.notNull())
    .addColumn('root_domain', 'text')
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('bio', 'text')
    .addColumn('avatar', 'text')
    .addColumn('theme', 'text', (c) => c.notNull())
    .addColumn('socials', 'text', (c) => c.notNull())
    .addColumn('views', big, (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', big, (c) => c.notNull())
    .addColumn('updated_at', big, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('bio_pages_handle').on('bio_pages').columns(['domain', 'handle_key']).unique().execute();
  await db.schema.createIndex('bio_pages_root').on('bio_pages').column('root_domain').unique().execute();
  await db.schema.createIndex('bio_pages_workspace').on('bio_pages').columns(['workspace_id', 'handle_key']).execute();
}
