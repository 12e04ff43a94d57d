/**
 * `utm_templates`: a workspace's saved sets of UTM values (the dashboard's *UTM templates*
 * settings and the link builder's picker, src/utm-templates/). Names are unique per workspace
 * without regard to case (`name_key`, lower-cased); an empty value is stored as null.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('utm_templates')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('utm_source', 'text')
    .addColumn('utm_medium', 'text')
    .addColumn('utm_campaign', 'text')
    .addColumn('utm_term', 'text')
    .addColumn('utm_content', 'text')
    .addColumn('created_by', 'text')
    .addColumn('created_at', dialect.bigIntType, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('utm_templates_name').on('utm_templates').columns(['workspace_id', 'name_key']).unique().execute();
}
