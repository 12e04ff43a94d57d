/**
 * The click journal (events/column/click-journal.ts): with the column event store, the click
 * writer commits each batch here, in one SQLite/PostgreSQL transaction with the workspaces'
 * usage and the batch's outbox rows; the batch's clicks are in a CSV file (`file`, in the batch
 * folder beside the event file), written before the row, which the column store is fed from. A
 * row is one batch: its file, the per-link counts the link counters still have to add (`bumps`,
 * JSON), and two flags: `counted` (the link counters include it) and `stored` (the column store
 * holds it). A row with both is deleted, and its file with it.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('click_journal')
    .addColumn('seq', dialect.bigIntType, (c) => c.primaryKey())
    .addColumn('created_at', dialect.bigIntType, (c) => c.notNull())
    .addColumn('clicks', 'integer', (c) => c.notNull())
    .addColumn('file', 'text', (c) => c.notNull())
    .addColumn('bumps', 'text', (c) => c.notNull())
    .addColumn('counted', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('stored', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('event_backup_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('requested_at', dialect.bigIntType, (c) => c.notNull())
    .addColumn('done_at', dialect.bigIntType)
    .addColumn('events', dialect.bigIntType)
    .addColumn('error', 'text')
    .execute();
}
