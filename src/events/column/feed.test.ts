/**
 * Nothing is half-written across the two databases: what the metadata database committed reaches
 * the column store after a crash between the commit and the copy, and copies are idempotent.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../../test-support/harness.js';
import { contractEvent } from '../contract.js';
import { buildScope } from '../link-scope.js';
import { insertEvents } from '../sql/event-writer.js';
import { insertLink } from '../../redirect/testing.js';
import { openDuckDbEngine } from '../duckdb/duckdb-engine.js';
import { createColumnEventStore, openColumnEventStore } from './store.js';
import { createColumnConversions } from './conversions.js';

test('a lead committed before a crash is copied at the next open; a retried batch adds nothing', async () => {
  const t = await createTestApp();
  const engine = await openDuckDbEngine({ path: ':memory:' });
  try {
    const { workspaceId } = await t.addWorkspace();
    await insertLink(t.database.db, workspaceId, { id: 'lnk_f', domain: 'wm.test', key: 'f', url: 'https://example.com/' });
    const click = contractEvent(workspaceId, 'lnk_f', { timestamp: Date.now() });
    const lead = contractEvent(workspaceId, 'lnk_f', { kind: 'lead', timestamp: Date.now(), click_id: click.click_id, customer_id: 'cus_f', event_name: 'Sign up' });
    // The process died after the lead's transaction committed and before its copy: the metadata
    // database holds it (and a click of a joined append), the column store does not.
    await t.database.db.transaction().execute((trx) => insertEvents(trx, [click, lead], new Map(), t.database.dialect));
    const store = await openColumnEventStore({ database: t.database, engine });
    const spec = { workspaceId, kinds: ['click', 'lead', 'sale'] as const, group: [], timeseries: false, dims: [], conversions: {}, scope: buildScope({ workspaceId, links: {}, named: false }) };
    const range = { from: 0, to: Date.now() + 60_000 };
    const [row] = await store.aggregate(spec, range);
    assert.deepEqual([Number(row?.clicks), Number(row?.leads)], [1, 1]);
    assert.equal((await store.findClick(workspaceId, click.click_id))?.id, click.id);
    const left = await t.database.db.selectFrom('events').select('id').where('kind', '=', 'click').execute();
    assert.deepEqual(left, [], 'the copied click left the metadata database');

    assert.equal(await engine.append([click, lead]), 0, 'a retried batch adds nothing');
    assert.equal(await store.catchUp(), 0, 'nothing left to copy');
    const [again] = await store.aggregate(spec, range);
    assert.deepEqual([Number(again?.clicks), Number(again?.leads)], [1, 1]);
    await store.close();
  } finally {
    await t.close();
  }
});

test('afterCommit() waits for a copy the column store holds back at most copyWaitMs, and the copy lands later', async () => {
  const t = await createTestApp();
  const engine = await openDuckDbEngine({ path: ':memory:' });
  try {
    const { workspaceId } = await t.addWorkspace();
    await insertLink(t.database.db, workspaceId, { id: 'lnk_w', domain: 'wm.test', key: 'w', url: 'https://example.com/' });
    // The engine's writer is busy (a compaction of a large week): appends wait until released.
    let release: () => void = () => undefined;
    const busy = new Promise<void>((resolve) => (release = resolve));
    const held = { ...engine, append: async (rows: Parameters<typeof engine.append>[0]) => (await busy, engine.append(rows)) };
    const store = createColumnEventStore({ database: t.database, engine: held, copyWaitMs: 100 });
    const lead = contractEvent(workspaceId, 'lnk_w', { kind: 'lead', timestamp: Date.now(), customer_id: 'cus_w', event_name: 'Sign up' });
    const conversions = createColumnConversions({ database: t.database, log: store });
    await t.database.db.transaction().execute((trx) => conversions.append([lead], trx));
    const started = performance.now();
    await conversions.afterCommit();
    const waited = performance.now() - started;
    assert.ok(waited >= 90 && waited < 5000, `waited ${waited.toFixed(0)} ms`);
    assert.deepEqual(await engine.existingIds([lead.id]), [], 'not copied while the writer is busy');
    release();
    await store.catchUp();
    assert.deepEqual(await engine.existingIds([lead.id]), [lead.id], 'copied once the writer is free');
    await store.close();
  } finally {
    await t.close();
  }
});
