/**
 * Migration 0007 made `events_customer` partial (rows with a customer only) so click writes skip
 * it. Lead and sale lookups by customer must still use it on the engine under test.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CompiledQuery } from 'kysely';
import { createTestApp, TEST_ENGINE } from '../test-support/harness.js';

test('lookups by customer still use the partial events_customer index', async () => {
  const t = await createTestApp();
  try {
    const query = t.database.db
      .selectFrom('events')
      .select(['id', 'timestamp'])
      .where('workspace_id', '=', t.workspaceId)
      .where('customer_id', '=', 'cus_1')
      .where('kind', '=', 'lead')
      .compile();
    let plan: string;
    if (TEST_ENGINE === 'sqlite') {
      const res = await t.database.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]));
      plan = res.rows.map((r) => r.detail).join('\n');
    } else {
      // An empty table would be scanned whatever the indexes; forbid that to see which index is usable.
      plan = await t.database.db.transaction().execute(async (trx) => {
        await trx.executeQuery(CompiledQuery.raw('set local enable_seqscan = off'));
        const res = await trx.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]));
        return res.rows.map((r) => r['QUERY PLAN']).join('\n');
      });
    }
    assert.match(plan, /events_customer/, plan);
  } finally {
    await t.close();
  }
});
