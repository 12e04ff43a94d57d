/**
 * `rate_limit_counters` (PostgreSQL only): the request counters that every Waymark process on the
 * database shares (db/rate-counters.ts), one row per limited key and window length. On SQLite one
 * process owns the file and counts in memory, so the table is not created there.
 *
 * - UNLOGGED: a counter is worth a minute at most. Its writes skip the write-ahead log (one
 *   upsert per API request), and after a PostgreSQL crash, or on a promoted standby, which has no
 *   copy of unlogged tables, the counters simply start over.
 * - No index besides the primary key, and fillfactor 70: the upsert changes only `hits` and
 *   `reset_at`, so PostgreSQL can update the row in place on its page (a HOT update) without
 *   touching an index. Expired rows are deleted by a periodic sweep that reads the whole table,
 *   which stays small (one row per key or address active in the last window).
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  if (dialect.name !== 'postgres') return;
  await db.schema
    .createTable('rate_limit_counters')
    .modifyFront(sql`unlogged`)
    .addColumn('bucket', 'text', (c) => c.notNull())
    .addColumn('window_ms', 'integer', (c) => c.notNull())
    .addColumn('hits', 'integer', (c) => c.notNull())
    .addColumn('reset_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('rate_limit_counters_pk', ['bucket', 'window_ms'])
    .modifyEnd(sql`with (fillfactor = 70)`)
    .execute();
}
