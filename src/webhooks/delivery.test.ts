/**
 * Webhook delivery end to end, to a real receiver on 127.0.0.1: every trigger with the payload the
 * `dub` SDK's event schemas accept, both signatures (Dub-Signature, and Standard Webhooks checked
 * by the `standardwebhooks` package), retries after 500s, disabling after 20 consecutive
 * failures and re-enabling by PATCH, and clicks announced only for subscribed links.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { LinkClickedEvent$inboundSchema, LeadCreatedEvent$inboundSchema, SaleCreatedEvent$inboundSchema, LinkWebhookEvent$inboundSchema } from 'dub/models/components';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { insertLink } from '../test-support/conversions.js';
import { hit } from '../redirect/testing.js';
import { startReceiver, type Receiver, type Received } from './testing.js';

let t: TestApp;
let base: string;
let r: Receiver;
before(async () => {
  t = await createTestApp({
    env: { TRUST_PROXY: 'true', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_INTERVAL_MS: '20', WEBHOOK_RETRY_DELAYS_MS: Array(25).fill('10').join(',') },
  });
  base = await t.listen();
  r = await startReceiver();
});
after(async () => {
  await t.close();
  await r.close();
});

const bodies = (got: Received[]) => got.map((g) => JSON.parse(g.body) as { id: string; event: string; createdAt: string; data: Record<string, unknown> });
const ofEvent = (got: Received[], event: string) => got.filter((g) => JSON.parse(g.body).event === event);

async function webhook(payload: object): Promise<{ id: string; secret: string }> {
  const res = await t.inject({ method: 'POST', url: '/webhooks', payload: { name: 'test', url: r.url, ...payload } });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

function verify(g: Received, secret: string): void {
  assert.equal(g.headers['dub-signature'], createHmac('sha256', secret).update(g.body).digest('hex'));
  // Throws unless webhook-signature is right for this id, timestamp and body.
  new Webhook(secret).verify(g.body, { 'webhook-id': g.headers['webhook-id']!, 'webhook-timestamp': g.headers['webhook-timestamp']!, 'webhook-signature': g.headers['webhook-signature']! });
  assert.equal(g.headers['webhook-id'], JSON.parse(g.body).id);
}

test('every trigger reaches the receiver signed both ways, with the payload the dub SDK parses', async () => {
  const hook = await webhook({ triggers: ['link.created', 'link.updated', 'link.deleted', 'link.clicked', 'lead.created', 'sale.created'], linkScope: 'workspace' });
  r.got.length = 0;
  const created = (await t.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/hooked', key: 'hooked', trackConversion: true } })).json();
  await t.inject({ method: 'PATCH', url: `/links/${created.id}`, payload: { title: 'Hooked' } });
  const click = await hit(base, '/hooked', { host: created.domain, headers: { 'x-forwarded-for': '198.51.100.9' } });
  const clickId = new URL(click.location!).searchParams.get('waymark_id');
  await r.until((got) => ofEvent(got, 'link.clicked').length === 1, 'link.clicked');
  const lead = await t.inject({ method: 'POST', url: '/track/lead', payload: { clickId, eventName: 'Sign up', customerExternalId: 'hook-user', mode: 'wait' } });
  assert.equal(lead.statusCode, 200, lead.body);
  await t.inject({ method: 'POST', url: '/track/sale', payload: { customerExternalId: 'hook-user', amount: 500, invoiceId: 'in_hook' } });
  const beforeDelete = (await t.inject({ method: 'GET', url: `/links/${created.id}` })).json();
  await t.inject({ method: 'DELETE', url: `/links/${created.id}` });
  await r.until((got) => ['link.created', 'link.updated', 'link.deleted', 'lead.created', 'sale.created'].every((e) => ofEvent(got, e).length === 1), 'every trigger');

  for (const g of r.got) verify(g, hook.secret);
  const byEvent = Object.fromEntries(bodies(r.got).map((b) => [b.event, b]));
  for (const b of Object.values(byEvent)) {
    assert.deepEqual(Object.keys(b), ['id', 'event', 'createdAt', 'data'], 'the envelope without workspaceId');
    assert.match(b.id, /^evt_/);
  }
  assert.deepEqual(byEvent['link.created']!.data, created);
  assert.deepEqual(byEvent['link.deleted']!.data, beforeDelete);
  for (const e of ['link.created', 'link.updated', 'link.deleted']) {
    const parsed = LinkWebhookEvent$inboundSchema.safeParse(byEvent[e]);
    assert.ok(parsed.success, `${e}: ${JSON.stringify(parsed.error?.issues?.slice(0, 3))}`);
  }
  const clicked = LinkClickedEvent$inboundSchema.safeParse(byEvent['link.clicked']);
  assert.ok(clicked.success, `link.clicked: ${JSON.stringify(clicked.error?.issues?.slice(0, 3))}`);
  assert.equal(clicked.data!.data.click.id, clickId);
  const leadParsed = LeadCreatedEvent$inboundSchema.safeParse(byEvent['lead.created']);
  assert.ok(leadParsed.success, `lead.created: ${JSON.stringify(leadParsed.error?.issues?.slice(0, 3))}`);
  const saleParsed = SaleCreatedEvent$inboundSchema.safeParse(byEvent['sale.created']);
  assert.ok(saleParsed.success, `sale.created: ${JSON.stringify(saleParsed.error?.issues?.slice(0, 3))}`);
  assert.equal(saleParsed.data!.data.sale.amount, 500);
  await t.inject({ method: 'DELETE', url: `/webhooks/${hook.id}` });
});

test('a receiver answering 500 gets the same event again, then a 2xx settles it and the failure count starts over', async () => {
  const hook = await webhook({ triggers: ['link.created'] });
  r.got.length = 0;
  let calls = 0;
  r.answer = () => (++calls <= 2 ? 500 : 200);
  // The first answer is longer than the 1 KB an attempt keeps.
  r.answerBody = () => (calls === 1 ? 'x'.repeat(3000) : calls === 2 ? 'boom' : 'ok');
  try {
    await t.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/retried' } });
    await r.until((got) => got.length === 3, 'three attempts');
    assert.equal(new Set(r.got.map((g) => g.headers['webhook-id'])).size, 1, 'one event id on every attempt');
    assert.equal(new Set(r.got.map((g) => g.body)).size, 1, 'the same body on every attempt');
    let deliveries: { attempt: number; status: string; statusCode: number; latencyMs: number; error: string | null; eventId: string }[] = [];
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline) {
      deliveries = (await t.inject({ method: 'GET', url: `/webhooks/${hook.id}/deliveries` })).json();
      if (deliveries[0]?.status === 'delivered') break;
      await new Promise((res) => setTimeout(res, 20));
    }
    assert.equal(deliveries.length, 1);
    assert.equal(deliveries[0]!.attempt, 3);
    assert.equal(deliveries[0]!.statusCode, 200);
    assert.equal(deliveries[0]!.error, null);
    assert.equal(deliveries[0]!.eventId, r.got[0]!.headers['webhook-id']);
    assert.equal((await t.inject({ method: 'GET', url: `/webhooks/${hook.id}` })).json().consecutiveFailures, 0);
    // Every attempt is kept, newest first: the failures before the success stay visible.
    const attempts = (deliveries[0] as unknown as { attempts: { attempt: number; sentAt: string; statusCode: number | null; latencyMs: number | null; response: string | null; error: string | null }[] }).attempts;
    assert.deepEqual(attempts.map((a) => [a.attempt, a.statusCode, a.response, a.error]), [
      [3, 200, 'ok', null],
      [2, 500, 'boom', 'receiver answered 500'],
      [1, 500, 'x'.repeat(1024), 'receiver answered 500'],
    ]);
    const sentAt = attempts.map((a) => Date.parse(a.sentAt));
    assert.ok(sentAt[0]! >= sentAt[1]! && sentAt[1]! >= sentAt[2]!, `newest first: ${attempts.map((a) => a.sentAt)}`);
    for (const a of attempts) assert.ok(typeof a.latencyMs === 'number' && a.latencyMs >= 0);

    // Redelivery sends the same event again.
    const again = await t.inject({ method: 'POST', url: `/webhooks/${hook.id}/deliveries/${(deliveries[0] as unknown as { id: string }).id}/redeliver` });
    assert.equal(again.statusCode, 200, again.body);
    await r.until((got) => got.length === 4, 'the redelivery');
    assert.equal(r.got[3]!.headers['webhook-id'], r.got[0]!.headers['webhook-id']);
    let listed: { attempts: { attempt: number }[] }[] = [];
    for (const deadline2 = Date.now() + 10_000; Date.now() < deadline2; await new Promise((res) => setTimeout(res, 20))) {
      listed = (await t.inject({ method: 'GET', url: `/webhooks/${hook.id}/deliveries` })).json();
      if (listed[0]?.attempts.length === 4) break;
    }
    assert.deepEqual(listed[0]!.attempts.map((a) => a.attempt), [4, 3, 2, 1], 'the redelivery is one more attempt');
  } finally {
    r.answer = () => 204;
    r.answerBody = () => '';
    await t.inject({ method: 'DELETE', url: `/webhooks/${hook.id}` });
  }
});

test('20 consecutive failures disable the webhook and stop its deliveries; PATCH enables it again', async () => {
  const hook = await webhook({ triggers: ['link.updated'] });
  r.got.length = 0;
  r.answer = () => 503;
  try {
    const sent = await t.inject({ method: 'POST', url: `/webhooks/${hook.id}/test`, payload: { trigger: 'link.updated' } });
    assert.equal(sent.statusCode, 200, sent.body);
    const state = async () => (await t.inject({ method: 'GET', url: `/webhooks/${hook.id}` })).json();
    const deadline = Date.now() + 60_000;
    while (!(await state()).disabledAt) {
      assert.ok(Date.now() < deadline, `not disabled after ${r.got.length} attempts`);
      await new Promise((res) => setTimeout(res, 20));
    }
    assert.equal((await state()).consecutiveFailures, 20);
    await new Promise((res) => setTimeout(res, 200));
    assert.equal(r.got.length, 20, 'no attempt after the webhook was disabled');

    r.answer = () => 200;
    const enabled = await t.inject({ method: 'PATCH', url: `/webhooks/${hook.id}`, payload: {} });
    assert.equal(enabled.json().disabledAt, null);
    assert.equal(enabled.json().consecutiveFailures, 0);
    await r.until((got) => got.length === 21, 'the pending delivery after re-enabling');
    verify(r.got[20]!, hook.secret);
  } finally {
    r.answer = () => 204;
    await t.inject({ method: 'DELETE', url: `/webhooks/${hook.id}` });
  }
});

test('clicks of links no webhook covers write no delivery; a webhook for one link gets that link\'s clicks alone, written by the click batch', async () => {
  const covered = await insertLink(t, { key: 'covered-click' });
  const other = await insertLink(t, { key: 'uncovered-click' });
  const hook = await webhook({ triggers: ['link.clicked'], linkScope: 'links', linkIds: [covered.id] });
  r.got.length = 0;
  for (const link of [other, covered]) {
    const res = await hit(base, `/${link.key}`, { host: link.domain, headers: { 'x-forwarded-for': '198.51.100.20' } });
    assert.equal(res.status, 302);
  }
  await r.until((got) => got.length === 1, 'the covered click');
  await t.modules.redirect.flushClicks();
  const announced = await t.ctx.database.db.selectFrom('outbox').select('payload').where('type', '=', 'link.clicked').execute();
  assert.deepEqual(announced, [], 'webhooks take clicks without the outbox');
  const rows = await t.ctx.database.db.selectFrom('webhook_deliveries').select(['body', 'event_id']).where('webhook_id', '=', hook.id).execute();
  assert.equal(rows.length, 1, 'one delivery: the covered click');
  assert.ok(!rows[0]!.body.includes(other.id), 'none for the uncovered link');
  const got = bodies(r.got)[0]!;
  assert.equal((got.data as { link: { id: string } }).link.id, covered.id);
  assert.equal(got.id, rows[0]!.event_id);
  await t.inject({ method: 'DELETE', url: `/webhooks/${hook.id}` });
  assert.equal(t.ctx.outbox.clickSubscriptions().routes?.links[covered.id], undefined, 'no webhook covers the link any more');
});

test('clicks of a workspace without link.clicked webhooks, and unsubscribed events, write no outbox rows', async () => {
  const before = await t.ctx.database.db.selectFrom('outbox').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  assert.equal(t.ctx.outbox.wants('link.created'), false);
  await t.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/quiet' } });
  const after = await t.ctx.database.db.selectFrom('outbox').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  assert.equal(Number(after.n), Number(before.n));
});

test('attempts are kept 30 days: the prune deletes older ones, and a replayed recording adds none', async () => {
  const { createDeliveryStore } = await import('./delivery-store.js');
  const { DELIVERY_RETENTION_MS } = await import('./dispatcher.js');
  const db = t.ctx.database.db;
  const store = createDeliveryStore(db, { skipLocked: false });
  const hook = await webhook({ triggers: ['link.created'] });
  const now = Date.now();
  const delivery = {
    id: 'whd_prune', webhook_id: hook.id, workspace_id: t.workspaceId, event_id: 'evt_prune', event: 'link.created', body: '{}',
    attempts: 1, next_attempt_at: now, delivered_at: null, status_code: null, latency_ms: null, error: null, created_at: now - DELIVERY_RETENTION_MS - 10_000,
  };
  await db.insertInto('webhook_deliveries').values(delivery).execute();
  const outcome = { statusCode: 503, latencyMs: 5, error: 'receiver answered 503', response: 'busy' };
  await store.record([{ kind: 'failure', delivery, outcome, retryAt: now + 1000 }], now);
  await store.record([{ kind: 'failure', delivery, outcome, retryAt: now + 1000 }], now);
  const kept = () => db.selectFrom('webhook_attempts').select(['attempt', 'sent_at']).where('delivery_id', '=', 'whd_prune').execute();
  assert.deepEqual((await kept()).map((a) => a.attempt), [1], 'the same attempt recorded twice is one row');
  await db.insertInto('webhook_attempts').values({ delivery_id: 'whd_prune', attempt: 0, webhook_id: hook.id, workspace_id: t.workspaceId, sent_at: now - DELIVERY_RETENTION_MS - 1, status_code: 500, latency_ms: 1, response: null, error: 'old' }).execute();
  await store.prune(now - DELIVERY_RETENTION_MS);
  assert.deepEqual((await kept()).map((a) => a.attempt), [1], 'the attempt older than 30 days is gone, the recent one stays');
  await t.inject({ method: 'DELETE', url: `/webhooks/${hook.id}` });
});
