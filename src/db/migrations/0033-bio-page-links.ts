/**
 * `bio_page_links`: the ordered links of a bio page (`position` from 0). Each is a link of the
 * page's workspace (checked by the service when saved, and again when the page is read).
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('bio_page_links')
    .addColumn('page_id', 'text', (c) => c.notNull())
    .addColumn('link_id', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('bio_page_links_pk', ['page_id', 'link_id'])
    .execute();
  await db.schema.createIndex('bio_page_links_link').on('bio_page_links').column('link_id').execute();
}
