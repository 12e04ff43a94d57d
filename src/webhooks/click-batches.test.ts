/**
 * Clicks reach webhooks without the outbox and off the redirect thread: the click routes (which
 * webhooks cover which workspaces and links), the one row of webhook work a click batch writes
 * whatever the number of webhooks, the deliveries the dispatcher expands from it (one event id per
 * click for all its webhooks, nothing for a webhook disabled since the routes were read), and the
 * dispatcher's thread putting a send in flight back when it closes.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { insertLink } from '../test-support/conversions.js';
import { hit } from '../redirect/testing.js';
import type { StoredEvent } from '../events/index.js';
import { clickRouter, writeClickWebhookBatch, type ClickBatchPayload } from './click-batches.js';
import { startReceiver, type Receiver } from './testing.js';

let t: TestApp;
let base: string;
let r: Receiver;
before(async () => {
  t = await createTestApp({ env: { TRUST_PROXY: 'true', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_INTERVAL_MS: '20', WEBHOOK_LEASE_MS: '60000' } });
  base = await t.listen();
  r = await startReceiver();
});
after(async () => {
  await t.close();
  await r.close();
});

const hook = async (payload: object) => {
  const res = await t.inject({ method: 'POST', url: '/webhooks', payload: { name: 'h', url: r.url, ...payload } });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as { id: string };
};
const remove = (id: string) => t.inject({ method: 'DELETE', url: `/webhooks/${id}` });

test('the router gives a click the webhooks of its workspace and of its link, once each; other rows none', () => {
  assert.equal(clickRouter({ all: false, workspaces: [], links: [] }), null);
  assert.equal(clickRouter({ all: false, workspaces: [], links: [], routes: { workspaces: {}, links: {} } }), null);
  const route = clickRouter({ all: false, workspaces: [], links: [], routes: { workspaces: { ws_1: ['wh_a', 'wh_b'] }, links: { link_1: ['wh_b', 'wh_c'], link_2: ['wh_d'] } } })!;
  const row = (kind: string, workspace_id: string, link_id: string) => ({ kind, workspace_id, link_id }) as unknown as StoredEvent;
  assert.deepEqual([...route(row('click', 'ws_1', 'link_1'))].sort(), ['wh_a', 'wh_b', 'wh_c']);
  assert.deepEqual(route(row('click', 'ws_2', 'link_2')), ['wh_d']);
  assert.deepEqual(route(row('click', 'ws_1', 'link_9')), ['wh_a', 'wh_b']);
  assert.deepEqual(route(row('click', 'ws_2', 'link_9')), []);
  assert.deepEqual(route(row('lead', 'ws_1', 'link_1')), []);
});

test('the routes follow every scope: workspace, folders, listed links, links naming the webhook; not disabled webhooks nor other triggers', async () => {
  const folder = (await t.inject({ method: 'POST', url: '/folders', payload: { name: 'routed' } })).json() as { id: string };
  const inFolder = (await t.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/f', folderId: folder.id } })).json() as { id: string };
  const listed = await insertLink(t, {});
  const named = await insertLink(t, {});
  const whole = await hook({ triggers: ['link.clicked'], linkScope: 'workspace' });
  const byFolder = await hook({ triggers: ['link.clicked'], linkScope: 'folders', folderIds: [folder.id] });
  const byList = await hook({ triggers: ['link.clicked'], linkScope: 'links', linkIds: [listed.id] });
  const attached = await hook({ triggers: ['link.clicked'], linkScope: 'links' });
  const disabled = await hook({ triggers: ['link.clicked'], linkScope: 'links', linkIds: [listed.id] });
  const created = await hook({ triggers: ['link.created'] });
  assert.equal((await t.inject({ method: 'PATCH', url: `/links/${named.id}`, payload: { webhookIds: [attached.id] } })).statusCode, 200);
  await t.ctx.database.db.updateTable('webhooks').set({ disabled_at: Date.now() }).where('id', '=', disabled.id).execute();
  // A webhook change reloads the routes at once; use one to take the direct disable in too.
  await t.inject({ method: 'PATCH', url: `/webhooks/${created.id}`, payload: { name: 'reload' } });
  const routes = t.ctx.outbox.clickSubscriptions().routes!;
  assert.deepEqual(routes.workspaces[t.workspaceId], [whole.id]);
  assert.deepEqual(routes.links[inFolder.id], [byFolder.id]);
  assert.deepEqual(routes.links[listed.id], [byList.id]);
  assert.deepEqual(routes.links[named.id], [attached.id]);
  const everyHook = [...Object.values(routes.workspaces), ...Object.values(routes.links)].flat();
  assert.ok(!everyHook.includes(disabled.id) && !everyHook.includes(created.id));
  for (const h of [whole, byFolder, byList, attached, disabled, created]) await remove(h.id);
  assert.equal(t.ctx.outbox.clickSubscriptions().routes?.workspaces[t.workspaceId], undefined);
});

test('a click two webhooks cover: one event id and body for both; a webhook disabled behind the cache\'s back gets nothing', async () => {
  const link = await insertLink(t, { key: 'two-hooks' });
  const a = await hook({ triggers: ['link.clicked'], linkScope: 'links', linkIds: [link.id] });
  const b = await hook({ triggers: ['link.clicked'], linkScope: 'workspace' });
  const off = await hook({ triggers: ['link.clicked'], linkScope: 'links', linkIds: [link.id] });
  // Disabled in the database only: the routes the click writer holds still name it.
  await t.ctx.database.db.updateTable('webhooks').set({ disabled_at: Date.now() }).where('id', '=', off.id).execute();
  r.got.length = 0;
  const res = await hit(base, '/two-hooks', { host: link.domain, headers: { 'x-forwarded-for': '198.51.100.40' } });
  assert.equal(res.status, 302);
  await t.modules.redirect.flushClicks();
  await r.until((got) => got.length === 2, 'both deliveries');
  const rows = await t.ctx.database.db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', 'in', [a.id, b.id, off.id]).execute();
  assert.deepEqual(rows.map((d) => d.webhook_id).sort(), [a.id, b.id].sort());
  assert.equal(rows[0]!.event_id, rows[1]!.event_id);
  assert.equal(rows[0]!.body, rows[1]!.body);
  const body = JSON.parse(rows[0]!.body) as { id: string; event: string; data: { click: { id: string }; link: { id: string; shortLink: string } } };
  assert.equal(body.id, rows[0]!.event_id);
  assert.equal(body.event, 'link.clicked');
  assert.equal(body.data.link.id, link.id);
  assert.equal(body.data.click.id, new URL(res.location!).searchParams.get('waymark_id'));
  assert.deepEqual(new Set(r.got.map((g) => g.headers['webhook-id'])), new Set([body.id]));
  for (const h of [a, b, off]) await remove(h.id);
});

test('a click batch writes one row of webhook work, whatever the number of webhooks, and no delivery', async () => {
  const link = await insertLink(t, { key: 'o-one' });
  for (let i = 0; i < 40; i++) assert.equal((await hit(base, '/o-one', { host: link.domain, headers: { 'x-forwarded-for': `198.51.100.${100 + i}` } })).status, 302);
  await t.modules.redirect.flushClicks();
  const rows = await t.ctx.database.db.selectFrom('events').selectAll().where('kind', '=', 'click').where('link_id', '=', link.id).execute();
  assert.equal(rows.length, 40);
  const db = t.ctx.database.db;
  const count = async (table: 'webhook_click_batches' | 'webhook_deliveries', q = db) => Number((await q.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  for (const hooks of [1, 10, 100]) {
    const ids = Array.from({ length: hooks }, (_, i) => `wh_test${i}`);
    const route = clickRouter({ all: false, workspaces: [], links: [], routes: { workspaces: { [t.workspaceId]: ids }, links: {} } })!;
    const deliveriesBefore = await count('webhook_deliveries');
    const batchesBefore = await count('webhook_click_batches');
    // Inside a transaction that is rolled back: the dispatcher never sees these rows.
    const seen = await db.transaction().execute(async (trx) => {
      const covered = await writeClickWebhookBatch(trx, rows, route, { now: Date.now() });
      const payload = JSON.parse((await trx.selectFrom('webhook_click_batches').select('payload').orderBy('id', 'desc').executeTakeFirstOrThrow()).payload) as ClickBatchPayload;
      const out = { covered, batches: (await count('webhook_click_batches', trx)) - batchesBefore, deliveries: (await count('webhook_deliveries', trx)) - deliveriesBefore, payload };
      throw Object.assign(new Error('roll back'), { out });
    }).catch((err: { out?: unknown }) => err.out as { covered: number; batches: number; deliveries: number; payload: ClickBatchPayload });
    assert.deepEqual([seen.covered, seen.batches, seen.deliveries], [40, 1, 0], `${hooks} webhooks`);
    assert.equal(seen.payload.sets.length, 1, 'one set of webhooks, shared by every click');
    assert.deepEqual(seen.payload.sets[0], ids);
    assert.equal(new Set(seen.payload.clicks.map((c) => c.id)).size, 40, 'an event id per click');
  }
  assert.equal(await writeClickWebhookBatch(db, rows, () => [], { now: Date.now() }), 0, 'no covered click: no row');
});

test('closing the dispatcher puts a send in flight back: due at once, its attempt not counted', async () => {
  const h = await hook({ triggers: ['link.created'] });
  r.answer = () => new Promise<number>(() => {});
  r.got.length = 0;
  try {
    await t.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/held', key: 'held-send' } });
    await r.until((got) => got.length === 1, 'the send');
    const claimed = await t.ctx.database.db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', h.id).executeTakeFirstOrThrow();
    assert.equal(Number(claimed.attempts), 1);
    assert.ok(Number(claimed.next_attempt_at) > Date.now(), 'leased');
    const closedAt = Date.now();
    await t.modules.webhooks.dispatcher.close();
    const back = await t.ctx.database.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', claimed.id).executeTakeFirstOrThrow();
    assert.equal(Number(back.attempts), 0);
    assert.equal(back.delivered_at, null);
    assert.ok(Number(back.next_attempt_at) <= Date.now() && Number(back.next_attempt_at) >= closedAt - 1, 'due again');
  } finally {
    r.answer = () => 204;
  }
});

test('a subscriber to every click and a webhook hear of one click under one event id', async () => {
  const seen: string[] = [];
  const other = await createTestApp({
    env: { TRUST_PROXY: 'true', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_INTERVAL_MS: '20' },
    subscribers: [{ name: 'every-click', events: ['link.clicked'], deliver: async (e) => void seen.push(e.id) }],
  });
  try {
    const otherBase = await other.listen();
    const res = await other.inject({ method: 'POST', url: '/webhooks', payload: { name: 'all', url: r.url, triggers: ['link.clicked'], linkScope: 'workspace' } });
    assert.equal(res.statusCode, 200, res.body);
    const link = await insertLink(other, { key: 'both-hear' });
    r.got.length = 0;
    assert.equal((await hit(otherBase, '/both-hear', { host: link.domain, headers: { 'x-forwarded-for': '198.51.100.41' } })).status, 302);
    await r.until((got) => got.length === 1, 'the webhook delivery');
    const deadline = Date.now() + 60_000;
    while (seen.length < 1) {
      assert.ok(Date.now() < deadline, 'the subscriber hears of the click');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.deepEqual(seen, [r.got[0]!.headers['webhook-id']]);
  } finally {
    await other.close();
  }
});
