/**
 * Import jobs (src/imports/jobs.ts): each import over HTTP is a recorded job (its state, counts,
 * the last line written, where its spooled file is kept), and `import_job_links` names every link
 * it created, written in the same transaction as the link, so an undo removes exactly those and a
 * resume counts them as its own. Named apart from the other migrations of the round: the lead may
 * renumber it at merge.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const big = dialect.bigIntType;
  await db.schema
    .createTable('import_jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('options', 'text', (c) => c.notNull())
    .addColumn('spool_path', 'text')
    .addColumn('upload_complete', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('layout', 'text')
    .addColumn('rows', big, (c) => c.notNull().defaultTo(0))
    .addColumn('created', big, (c) => c.notNull().defaultTo(0))
    .addColumn('skipped', big, (c) => c.notNull().defaultTo(0))
    .addColumn('rejected', big, (c) => c.notNull().defaultTo(0))
    .addColumn('undone', big, (c) => c.notNull().defaultTo(0))
    .addColumn('last_line', big, (c) => c.notNull().defaultTo(0))
    .addColumn('error', 'text')
    .addColumn('created_by', 'text')
    .addColumn('created_at', big, (c) => c.notNull())
    .addColumn('heartbeat_at', big, (c) => c.notNull())
    .addColumn('finished_at', big)
    .execute();
  await db.schema.createIndex('import_jobs_workspace').on('import_jobs').columns(['workspace_id', 'created_at']).execute();
  await db.schema
    .createTable('import_job_links')
    .addColumn('import_id', 'text', (c) => c.notNull())
    .addColumn('link_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('import_job_links_pk', ['import_id', 'link_id'])
    .execute();
}
