/**
 * One tenant's receiver cannot hold another's deliveries (issue 26, class 5), end to end on a real
 * app and real receivers: workspace A's 10 click webhooks on a receiver that never answers, with
 * 300 clicks queued, leave workspace B's `link.created` going out at once; a receiver never has
 * more sends in flight than its cap; a receiver that timed out is backed off: none of its
 * deliveries is claimed meanwhile (they wait, unattempted), while other receivers go on.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { insertLink } from '../test-support/conversions.js';
import { hit } from '../redirect/testing.js';
import { startReceiver, type Receiver } from './testing.js';

const closing: (() => Promise<void>)[] = [];
after(async () => {
  for (const c of closing.reverse()) await c();
});
async function app(env: Record<string, string>): Promise<TestApp> {
  const t = await createTestApp({ env: { TRUST_PROXY: 'true', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_INTERVAL_MS: '20', ...env } });
  closing.push(() => t.close());
  return t;
}
async function receiver(): Promise<Receiver & { concurrent: number; maxConcurrent: number }> {
  const r = Object.assign(await startReceiver(), { concurrent: 0, maxConcurrent: 0 });
  closing.push(() => r.close());
  return r;
}
/** Answers after `ms` (never, when null), counting the requests held at once. */
function hold(r: Awaited<ReturnType<typeof receiver>>, ms: number | null): void {
  r.answer = () => {
    r.concurrent++;
    r.maxConcurrent = Math.max(r.maxConcurrent, r.concurrent);
    if (ms === null) return new Promise<number>(() => {});
    return new Promise<number>((resolve) => setTimeout(() => {
      r.concurrent--;
      resolve(204);
    }, ms));
  };
}
async function webhook(t: TestApp, payload: object, headers?: Record<string, string>): Promise<{ id: string }> {
  const res = await t.inject({ method: 'POST', url: '/webhooks', payload: { name: 'h', ...payload }, ...(headers ? { headers } : {}) });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}
type Delivery = { attempt: number; status: string; error: string | null };
const deliveriesOf = async (t: TestApp, id: string) => (await t.inject({ method: 'GET', url: `/webhooks/${id}/deliveries` })).json() as Delivery[];

test("a never-answering receiver of workspace A (10 click webhooks, 300 clicks) does not delay workspace B's link.created", async () => {
  const t = await app({ WEBHOOK_RECEIVER_CONCURRENCY: '3' });
  const base = await t.listen();
  const slow = await receiver();
  const fast = await receiver();
  hold(slow, null);
  const hooksA = [];
  for (let i = 0; i < 10; i++) hooksA.push(await webhook(t, { url: `${slow.url}?hook=${i}`, triggers: ['link.clicked'], linkScope: 'workspace' }));
  const link = await insertLink(t, { key: 'storm' });
  // 300 clicks, 25 at a time (sequential hits take minutes on a loaded machine).
  for (let i = 0; i < 300; i += 25) {
    const answers = await Promise.all(Array.from({ length: 25 }, (_, j) => hit(base, '/storm', { host: link.domain, headers: { 'x-forwarded-for': `198.51.${100 + Math.floor((i + j) / 250)}.${(i + j) % 250}` } })));
    for (const res of answers) assert.equal(res.status, 302);
  }
  await t.modules.redirect.flushClicks();
  // A's storm is under way: its receiver holds every request it got.
  // Generous: on a loaded machine the dispatcher's thread takes seconds to start.
  await slow.until((got) => got.length >= 3, "A's first sends", 60_000);

  const b = await t.addWorkspace('enterprise');
  await webhook(t, { url: fast.url, triggers: ['link.created'] }, b.headers);
  const created = await t.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/b', key: 'b-link' }, headers: b.headers });
  assert.equal(created.statusCode, 200, created.body);
  const started = Date.now();
  await fast.until((got) => got.some((g) => JSON.parse(g.body).event === 'link.created'), "B's link.created", 15_000);
  const waited = Date.now() - started;

  // Order, not speed: B went out while A's receiver still held its first sends, at most its cap,
  // and A's 3,000 deliveries were still waiting.
  assert.equal(slow.got.length, 3, `A's receiver got its cap and no more (${slow.got.length})`);
  assert.equal(slow.maxConcurrent, 3);
  const delivered = await t.ctx.database.db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll<number>().as('n')).where('webhook_id', 'in', hooksA.map((h) => h.id)).where('delivered_at', 'is not', null).executeTakeFirstOrThrow();
  assert.equal(Number(delivered.n), 0);
  const pendingClicks = await t.ctx.database.db.selectFrom('webhook_click_cursors').select((eb) => eb.fn.countAll<number>().as('n')).where('webhook_id', 'in', hooksA.map((h) => h.id)).executeTakeFirstOrThrow();
  assert.ok(Number(pendingClicks.n) >= 1, "A's click work is still waiting");
  assert.ok(waited < 15_000, `B waited ${waited} ms`);
});

test('a timed-out receiver is backed off: its other deliveries are not claimed meanwhile; other receivers go on, within their cap', async () => {
  // 2 s: long enough for the paced receiver's answers on a loaded machine, short for the test.
  const t = await app({ WEBHOOK_RECEIVER_CONCURRENCY: '2', WEBHOOK_SEND_TIMEOUT_MS: '2000', WEBHOOK_RECEIVER_BACKOFF_MS: '60000', WEBHOOK_LEASE_MS: '10000' });
  const dead = await receiver();
  const paced = await receiver();
  hold(dead, null);
  hold(paced, 50);
  const d = await webhook(t, { url: dead.url, triggers: ['link.created'] });
  // Six deliveries due at once: queued while the webhook is disabled, then enabled by a PATCH.
  await t.modules.webhooks.service.disable(t.workspaceId, d.id);
  for (let i = 0; i < 6; i++) assert.equal((await t.inject({ method: 'POST', url: `/webhooks/${d.id}/test`, payload: { trigger: 'link.created' } })).statusCode, 200);
  assert.equal((await t.inject({ method: 'PATCH', url: `/webhooks/${d.id}`, payload: {} })).statusCode, 200);
  // Its cap (2) is sent; both time out after 2 s.
  await dead.until((got) => got.length >= 2, 'the first sends', 60_000);
  const deadline = Date.now() + 30_000;
  while ((await deliveriesOf(t, d.id)).filter((x) => /timed out/.test(x.error ?? '')).length < 2) {
    assert.ok(Date.now() < deadline, 'two timed-out attempts recorded');
    await new Promise((r) => setTimeout(r, 20));
  }

  // Backed off for 60 s: meanwhile another receiver's deliveries go out, two at a time at most.
  const p1 = await webhook(t, { url: `${paced.url}?a`, triggers: ['link.updated'] });
  const p2 = await webhook(t, { url: `${paced.url}?b`, triggers: ['link.updated'] });
  for (let i = 0; i < 4; i++) {
    for (const h of [p1, p2]) assert.equal((await t.inject({ method: 'POST', url: `/webhooks/${h.id}/test`, payload: { trigger: 'link.updated' } })).statusCode, 200);
  }
  await paced.until((got) => got.length === 8, 'the other receiver’s deliveries', 60_000);
  assert.ok(paced.maxConcurrent <= 2, `its cap (${paced.maxConcurrent} at once)`);

  const list = await deliveriesOf(t, d.id);
  assert.equal(dead.got.length, 2, 'nothing more claimed for the backed-off receiver');
  assert.equal(list.length, 6);
  assert.equal(list.filter((x) => x.attempt === 1 && /timed out/.test(x.error ?? '')).length, 2);
  const waiting = list.filter((x) => x.attempt === 0);
  assert.equal(waiting.length, 4, 'the others were never claimed');
  assert.ok(waiting.every((x) => x.status === 'pending' && x.error === null), 'and not failed: they wait');
});
