/**
 * `column_store_upgrade`: one row recording how far the move of an existing installation's events
 * into the column store has come (src/events/upgrades/to-column-store.ts), so that a process that dies
 * half-way resumes where it stopped. `phase` is `copy` (every event up to the cursor is in the
 * column store), `drop` (copies checked; clicks up to the cursor are deleted from `events`) or
 * `done`. The cursor is a position in the order of `events`' primary key
 * (workspace_id, timestamp, id), so each batch is one range of that key.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('column_store_upgrade')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('phase', 'text', (c) => c.notNull())
    .addColumn('after_workspace_id', 'text')
    .addColumn('after_timestamp', dialect.bigIntType)
    .addColumn('after_id', 'text')
    .addColumn('copied', dialect.bigIntType, (c) => c.notNull())
    .addColumn('dropped', dialect.bigIntType, (c) => c.notNull())
    .addColumn('started_at', dialect.bigIntType, (c) => c.notNull())
    .addColumn('finished_at', dialect.bigIntType)
    .execute();
}
