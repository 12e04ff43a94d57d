/**
 * `credit_copies`: the sales whose credits changed in the metadata database and are still to be
 * copied into a DuckDB event file (events/column/credit-copies.ts, docs/decisions/0018). A row is
 * written in the transaction that changes the sale's credits (its append, the backfill, a
 * recomputation, an erasure), so a crash before the copy loses nothing; `mark` is new at each
 * change, and the copy deletes a row only with the mark it read (a change made meanwhile stays
 * queued). Only the DuckDB store writes it; the SQL store's credits are read where they are.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('credit_copies')
    .addColumn('sale_id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('mark', 'text', (c) => c.notNull())
    .execute();
}
