/**
 * Indexes for the links search (`GET /links?search=`, the dashboard's links page; issue 17).
 * The search is a case-insensitive substring match on `short_link` or `url`, which no b-tree
 * index serves: without these, it scans every link of the workspace (~90 ms at 100k links).
 *
 * - SQLite: `links_search`, an FTS5 table with the `trigram` tokenizer (case-insensitive), an
 *   external-content index over `links` keyed by its rowid (no second copy of the URLs), kept in
 *   sync by triggers. The store asks it for candidates with a phrase query and re-applies the
 *   plain LIKE, so results never differ from the scan. Should rowids of `links` ever change
 *   (a VACUUM may renumber tables without an INTEGER PRIMARY KEY), rebuild it with
 *   `insert into links_search(links_search) values ('rebuild')`.
 * - PostgreSQL: `pg_trgm` GIN indexes on both columns, which `ilike '%term%'` uses as is. The
 *   extension needs the CREATE privilege on the database; without it the migration only warns
 *   and the search keeps its scan.
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  if (dialect.name === 'sqlite') await sqliteUp(db);
  else await postgresUp(db);
}

async function sqliteUp(db: Kysely<any>): Promise<void> {
  await sql`create virtual table links_search using fts5(short_link, url, content='links', content_rowid='rowid', tokenize='trigram')`.execute(db);
  await sql`create trigger links_search_insert after insert on links begin
    insert into links_search(rowid, short_link, url) values (new.rowid, new.short_link, new.url);
  end`.execute(db);
  await sql`create trigger links_search_delete after delete on links begin
    insert into links_search(links_search, rowid, short_link, url) values ('delete', old.rowid, old.short_link, old.url);
  end`.execute(db);
  await sql`create trigger links_search_update after update of short_link, url on links begin
    insert into links_search(links_search, rowid, short_link, url) values ('delete', old.rowid, old.short_link, old.url);
    insert into links_search(rowid, short_link, url) values (new.rowid, new.short_link, new.url);
  end`.execute(db);
  await sql`insert into links_search(links_search) values ('rebuild')`.execute(db);
}

async function postgresUp(db: Kysely<any>): Promise<void> {
  // Kysely runs PostgreSQL migrations in a transaction: a savepoint keeps a refused
  // CREATE EXTENSION from aborting it. Extensions are per database, not per schema: create it in
  // `public` (not in a test schema that may be dropped later) and qualify its operator class.
  await sql`savepoint pg_trgm_create`.execute(db);
  try {
    await sql`create extension if not exists pg_trgm with schema public`.execute(db);
    await sql`release savepoint pg_trgm_create`.execute(db);
  } catch (error) {
    await sql`rollback to savepoint pg_trgm_create`.execute(db);
    console.warn(`waymark: pg_trgm unavailable (${(error as Error).message}); links search scans without an index`);
    return;
  }
  const found = await sql<{ schema: string }>`select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`.execute(db);
  const ops = sql`${sql.id(found.rows[0]!.schema)}.gin_trgm_ops`;
  await sql`create index links_short_link_trgm on links using gin (short_link ${ops})`.execute(db);
  await sql`create index links_url_trgm on links using gin (url ${ops})`.execute(db);
}
