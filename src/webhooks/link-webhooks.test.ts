/**
 * Links' `webhookIds`: stored, accepted on create, update, upsert and bulk writes, checked against
 * the workspace's webhooks (unknown or another workspace's → 422 naming them, the published
 * wording), returned in every link response; a link.clicked webhook attached this way gets that
 * link's clicks.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { hit } from '../redirect/testing.js';
import { startReceiver, type Receiver } from './testing.js';

let t: TestApp;
let base: string;
let r: Receiver;
before(async () => {
  t = await createTestApp({ env: { TRUST_PROXY: 'true', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_INTERVAL_MS: '20' } });
  base = await t.listen();
  r = await startReceiver();
});
after(async () => {
  await t.close();
  await r.close();
});

const hook = async (payload: object, headers?: Record<string, string>) => {
  const res = await t.inject({ method: 'POST', url: '/webhooks', payload: { name: 'h', url: r.url, ...payload }, ...(headers ? { headers } : {}) });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as { id: string };
};

test('webhookIds are stored and returned by create, get, list, update, upsert and bulk writes', async () => {
  const a = await hook({ triggers: ['link.clicked'], linkScope: 'links' });
  const b = await hook({ triggers: ['link.created'] });
  const created = await t.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/wh', key: 'wh-a', webhookIds: [a.id, b.id, a.id] } });
  assert.equal(created.statusCode, 200, created.body);
  assert.deepEqual(created.json().webhookIds, [a.id, b.id]);
  const id = created.json().id;
  assert.deepEqual((await t.inject({ method: 'GET', url: `/links/${id}` })).json().webhookIds, [a.id, b.id]);
  assert.deepEqual((await t.inject({ method: 'GET', url: '/links?search=wh-a' })).json()[0].webhookIds, [a.id, b.id]);

  const patched = await t.inject({ method: 'PATCH', url: `/links/${id}`, payload: { webhookIds: [b.id] } });
  assert.deepEqual(patched.json().webhookIds, [b.id]);
  // Not given: unchanged.
  assert.deepEqual((await t.inject({ method: 'PATCH', url: `/links/${id}`, payload: { title: 'x' } })).json().webhookIds, [b.id]);
  const upserted = await t.inject({ method: 'PUT', url: '/links/upsert', payload: { url: 'https://example.com/wh', webhookIds: [] } });
  assert.equal(upserted.statusCode, 200, upserted.body);
  assert.deepEqual(upserted.json().webhookIds, []);

  const bulk = await t.inject({ method: 'POST', url: '/links/bulk', payload: [{ url: 'https://example.com/wh-bulk', webhookIds: [a.id] }] });
  assert.deepEqual(bulk.json()[0].webhookIds, [a.id]);
  const bulkPatched = await t.inject({ method: 'PATCH', url: '/links/bulk', payload: { linkIds: [bulk.json()[0].id], data: { webhookIds: [b.id] } } });
  assert.equal(bulkPatched.statusCode, 200, bulkPatched.body);
  assert.deepEqual((await t.inject({ method: 'GET', url: `/links/${bulk.json()[0].id}` })).json().webhookIds, [b.id]);

  // A deleted webhook leaves the links that named it.
  await t.inject({ method: 'DELETE', url: `/webhooks/${b.id}` });
  assert.deepEqual((await t.inject({ method: 'GET', url: `/links/${bulk.json()[0].id}` })).json().webhookIds, []);
});

test("unknown webhook ids, and another workspace's, are a 422 naming them", async () => {
  const other = await t.addWorkspace('enterprise');
  const theirs = await hook({ triggers: ['link.created'] }, other.headers);
  for (const payload of [{ url: 'https://example.com/x', webhookIds: ['wh_nope'] }, { url: 'https://example.com/x', webhookIds: [theirs.id] }]) {
    const res = await t.inject({ method: 'POST', url: '/links', payload });
    assert.equal(res.statusCode, 422, res.body);
    assert.equal(res.json().error.message, `Invalid webhookIds detected: ${payload.webhookIds[0]}`);
  }
  const link = (await t.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/y' } })).json();
  const res = await t.inject({ method: 'PATCH', url: `/links/${link.id}`, payload: { webhookIds: ['wh_a', 'wh_b'] } });
  assert.equal(res.statusCode, 422);
  assert.equal(res.json().error.message, 'Invalid webhookIds detected: wh_a, wh_b');
});

test('a link.clicked webhook attached through a link\'s webhookIds gets that link\'s clicks', async () => {
  const clicks = await hook({ triggers: ['link.clicked'], linkScope: 'links' });
  const link = (await t.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/attached', key: 'wh-attached' } })).json();
  const patched = await t.inject({ method: 'PATCH', url: `/links/${link.id}`, payload: { webhookIds: [clicks.id] } });
  assert.equal(patched.statusCode, 200, patched.body);
  const deadline = Date.now() + 5000;
  while (!t.ctx.outbox.clickSubscriptions().routes?.links[link.id]?.includes(clicks.id)) {
    assert.ok(Date.now() < deadline, 'the click routes take the link');
    await new Promise((res) => setTimeout(res, 10));
  }
  r.got.length = 0;
  await hit(base, '/wh-attached', { host: link.domain, headers: { 'x-forwarded-for': '198.51.100.30' } });
  await r.until((got) => got.length === 1, 'the click');
  const body = JSON.parse(r.got[0]!.body);
  assert.equal(body.event, 'link.clicked');
  assert.deepEqual(body.data.link.webhookIds, [clicks.id]);
});
