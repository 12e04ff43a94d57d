/**
 * `click_rollup_state`: one row saying how far the click events are folded into the analytics
 * rollups and the link counters (src/redirect/click-fold.ts). `folded_before` = t means every
 * click event with `timestamp < t` is counted there and none later; null means every click event
 * is (writers that fold each batch in its own transaction: PostgreSQL).
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('click_rollup_state')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('folded_before', dialect.bigIntType)
    .execute();
  await db.insertInto('click_rollup_state').values({ id: 1, folded_before: null }).execute();
}
