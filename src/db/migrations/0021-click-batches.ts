/**
 * What makes a click batch stored once and counted once (events/click-log.ts):
 * - `click_batches`: the ids of batches stored where the metadata database records them (the SQL
 *   store, with their events; ClickHouse, before its insert), so a batch sent again adds nothing.
 *   Kept an hour (a retry comes within seconds).
 * - `event_log_folds`: per event log that numbers its batches itself (a DuckDB file, by the id the
 *   file holds), the last batch the fold has counted: link counters, usage, outbox rows and
 *   webhook deliveries commit with it.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('click_batches')
    .addColumn('batch_id', 'text', (c) => c.primaryKey())
    .addColumn('appended_at', dialect.bigIntType, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('event_log_folds')
    .addColumn('log_id', 'text', (c) => c.primaryKey())
    .addColumn('folded_seq', dialect.bigIntType, (c) => c.notNull())
    .execute();
}
