/**
 * Clicks an earlier version's import left in the metadata database reach the column store once:
 * moved at open, never counted again (their link counters were added by that import), and a move
 * interrupted between its append and its delete copies nothing twice.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../../test-support/harness.js';
import { contractEvent } from '../contract.js';
import { buildScope } from '../link-scope.js';
import { insertEvents } from '../sql/event-writer.js';
import { insertLink } from '../../redirect/testing.js';
import { openDuckDbEngine } from '../duckdb/duckdb-engine.js';
import { moveMetadataClicks } from './metadata-clicks.js';
import { openColumnEventStore } from '../column/store.js';

test('clicks left in the metadata database: moved once, the links\' counters untouched, an interrupted move finished without a second copy', async () => {
  const t = await createTestApp();
  const engine = await openDuckDbEngine({ path: ':memory:' });
  try {
    const { workspaceId } = await t.addWorkspace();
    await insertLink(t.database.db, workspaceId, { id: 'lnk_m', domain: 'wm.test', key: 'm', url: 'https://example.com/' });
    const now = Date.now();
    const clicks = [0, 1, 2].map((i) => contractEvent(workspaceId, 'lnk_m', { timestamp: now - 1000 + i }));
    // What the earlier import wrote: the clicks in `events`, counted on the link in the same transaction.
    await t.database.db.transaction().execute(async (trx) => {
      await insertEvents(trx, clicks, new Map(), t.database.dialect);
      await trx.updateTable('links').set({ clicks: 3 }).where('id', '=', 'lnk_m').execute();
    });
    // A move interrupted after its append and before its delete: one click is in both places.
    assert.equal(await engine.append([clicks[0]!]), 1);

    const store = await openColumnEventStore({ database: t.database, engine });
    const left = await t.database.db.selectFrom('events').select('id').where('kind', '=', 'click').execute();
    assert.deepEqual(left, [], 'no click is left in the metadata database');
    const spec = { workspaceId, kinds: ['click'] as const, group: [], timeseries: false, dims: [], conversions: {}, scope: buildScope({ workspaceId, links: {}, named: false }) };
    const [row] = await store.aggregate(spec, { from: 0, to: now + 60_000 });
    assert.equal(Number(row?.clicks), 3, 'each click once in the column store');
    const link = await t.database.db.selectFrom('links').select('clicks').where('id', '=', 'lnk_m').executeTakeFirstOrThrow();
    assert.equal(Number(link.clicks), 3, 'the move counts nothing');
    assert.equal(await moveMetadataClicks(t.database.db, engine), 0, 'nothing left: a no-op');
    await store.close();
  } finally {
    await t.close();
  }
});
