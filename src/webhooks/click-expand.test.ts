/**
 * Click batches become deliveries (click-expand.ts) on a database of their own, no dispatcher
 * running: opening makes a cursor per webhook that still takes clicks and was not disabled before
 * the batch; a webhook's expansion walks its batches in order, up to the chunk asked for, with the
 * body receivers get, going on from where the cursor is (another process may have moved it); a
 * batch goes with its last cursor; no click is written twice.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestDatabase } from '../test-support/harness.js';
import { linkRow } from '../test-support/link-row.js';
import { createWorkspaceService } from '../workspaces/service.js';
import { createWorkspaceStore } from '../workspaces/store.js';
import type { StoredEvent } from '../events/index.js';
import { clickWebhookBatch } from './click-batches.js';
import { createClickExpander } from './click-expand.js';

const settings = { baseUrl: 'http://localhost:3000', shortLinkProtocol: 'https' as const };

test('open, expand in order and in chunks from where the cursor is, clean up', async () => {
  const { database, dispose } = await openTestDatabase();
  const db = database.db;
  try {
    const t0 = Date.now();
    const ws = (await createWorkspaceService(createWorkspaceStore(db), Date.now).createWorkspace({ name: 'expand', plan: 'business' })).id;
    await db.insertInto('links').values(linkRow({ id: 'link_x', workspace_id: ws, domain: 'go.test', key: 'x', url: 'https://example.com/x' }, t0)).execute();
    const hook = (id: string, triggers: string[], disabledAt: number | null) => ({
      id, workspace_id: ws, name: id, url: 'https://hooks.example.com/in', secret: 'whsec_MDEyMzQ1Njc4OWFiY2RlZg==', triggers: JSON.stringify(triggers),
      link_scope: 'workspace', link_ids: '[]', folder_ids: '[]', disabled_at: disabledAt, consecutive_failures: 0, created_at: t0, updated_at: t0,
    });
    await db.insertInto('webhooks').values([
      hook('wh_a', ['link.clicked'], null),
      hook('wh_b', ['link.clicked'], null),
      hook('wh_off', ['link.clicked'], t0 - 1000),
      hook('wh_created', ['link.created'], null),
    ]).execute();
    const click = (i: number): StoredEvent => ({
      id: `c${i}`, kind: 'click', workspace_id: ws, link_id: 'link_x', click_id: `click${i}`, timestamp: t0 + i, url: 'https://example.com/x', domain: 'go.test', key: 'x',
      trigger: 'link', country: 'DE', city: 'Berlin', region: 'BE', continent: 'EU', device: 'Desktop', browser: 'Chrome', os: 'Linux', referer: '(direct)', referer_url: '(direct)', ip: '198.51.100.0', qr: 0,
    }) as unknown as StoredEvent;
    // Two batches: wh_a covers every click, wh_b only the even ones of the first batch.
    const route = (row: StoredEvent) => (Number(row.id.slice(1)) % 2 === 0 && Number(row.id.slice(1)) < 10 ? ['wh_a', 'wh_b', 'wh_off', 'wh_created', 'wh_gone'] : ['wh_a']);
    const first = clickWebhookBatch(Array.from({ length: 10 }, (_, i) => click(i)), route, { now: t0 })!;
    const second = clickWebhookBatch(Array.from({ length: 5 }, (_, i) => click(10 + i)), route, { now: t0 + 1 })!;
    for (const b of [first, second]) {
      const { clicks: _, ...row } = b;
      await db.insertInto('webhook_click_batches').values(row).execute();
    }
    const expander = createClickExpander({ db, settings });
    assert.equal(await expander.open(), 2);
    assert.equal(await expander.open(), 0, 'opened once');
    const cursors = await db.selectFrom('webhook_click_cursors').select(['batch_id', 'webhook_id']).orderBy('webhook_id').execute();
    assert.deepEqual(cursors.map((c) => c.webhook_id).sort(), ['wh_a', 'wh_a', 'wh_b'], 'not the webhook disabled before the batch, nor one without link.clicked, nor a deleted one');
    assert.deepEqual([...(await expander.webhooksWithWork())].sort(), ['wh_a', 'wh_b']);

    // wh_a: 15 clicks over two batches, in chunks of 4 then the rest.
    const now = t0 + 5000;
    assert.equal(await expander.expand('wh_a', now, 4), 4);
    assert.equal(await expander.expand('wh_a', now, 100), 11, 'the rest, across both batches in one call');
    assert.equal(await expander.expand('wh_a', now, 100), 0);
    const rows = await db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', 'wh_a').orderBy('event_id').execute();
    assert.equal(rows.length, 15);
    assert.equal(new Set(rows.map((r) => r.event_id)).size, 15, 'each click once');
    const body = JSON.parse(rows[0]!.body) as { id: string; event: string; createdAt: string; data: { click: { id: string }; link: { id: string; shortLink: string } } };
    assert.deepEqual(Object.keys(body), ['id', 'event', 'createdAt', 'data']);
    assert.equal(body.event, 'link.clicked');
    assert.equal(body.id, rows[0]!.event_id);
    assert.equal(body.data.link.id, 'link_x');
    assert.match(body.data.click.id, /^click\d+$/);
    assert.ok(rows.every((r) => Number(r.next_attempt_at) === now && Number(r.attempts) === 0), 'due now, unattempted');
    // The first batch still has wh_b's cursor; the second went with its last cursor.
    assert.deepEqual((await db.selectFrom('webhook_click_batches').select('id').execute()).map((r) => r.id), [first.id]);

    // Another process moved wh_b's cursor (it expanded click 0): this one goes on from there.
    const other = createClickExpander({ db, settings });
    await db.updateTable('webhook_click_cursors').set({ next_click: 2 }).where('webhook_id', '=', 'wh_b').execute();
    assert.equal(await other.expand('wh_b', now, 1), 1);
    const b = await db.selectFrom('webhook_deliveries').select('event_id').where('webhook_id', '=', 'wh_b').execute();
    assert.equal(b.length, 1);
    assert.equal(JSON.parse((await db.selectFrom('webhook_deliveries').select('body').where('webhook_id', '=', 'wh_b').executeTakeFirstOrThrow()).body).data.click.id, 'click2');
    assert.equal(await expander.expand('wh_b', now, 100), 3, 'the even clicks left: 4, 6, 8');
    assert.equal((await db.selectFrom('webhook_click_batches').select('id').execute()).length, 0, 'every batch done');
    assert.equal((await db.selectFrom('webhook_click_cursors').select('batch_id').execute()).length, 0);
  } finally {
    await database.close();
    await dispose();
  }
});
