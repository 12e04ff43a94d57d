/**
 * `event_erasures`: the hand-off of an erasure between the metadata database and a column store
 * (events/column/erasure.ts). An erasure deletes its rows of the metadata database and corrects
 * the link counters in one transaction, with one row here naming what the column store must
 * delete; the log thread deletes it there and then this row. A crash between the two halves
 * leaves the row, and the next start finishes the erasure.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('event_erasures')
    .addColumn('id', 'text', (c) => c.primaryKey())
    /** The target as JSON: `{ column, values, workspaceId? }` (column-engine.ts `EventTarget`). */
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('created_at', dialect.bigIntType, (c) => c.notNull())
    .execute();
}
