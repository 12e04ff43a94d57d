import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Dub } from 'dub';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { conversionEvents, insertClick, insertLink, readLink } from '../test-support/conversions.js';
import { createLeadService } from './lead.js';
import { createKeyedSerialQueue } from './serial.js';
import { newClickId } from '../ids.js';
import type { TrackDeps } from './deps.js';
import { createLinkCounters, type StoredEvent } from '../events/index.js';

let t: TestApp;
let dub: Dub;

before(async () => {
  t = await createTestApp();
  dub = new Dub({ token: t.key, serverURL: await t.listen() });
});
after(() => t.close());

const customer = (externalId: string) =>
  t.ctx.database.db.selectFrom('customers').selectAll().where('workspace_id', '=', t.workspaceId).where('external_id', '=', externalId).executeTakeFirst();

test('wait: a lead is attributed to the click, its link and a new customer with a readable name', async () => {
  const link = await insertLink(t, { external_id: 'ext-link-1', tenant_id: 'tenant-7' });
  const click = await insertClick(t, link);
  const res = await dub.track.lead({ clickId: click.click_id, eventName: 'Sign up', customerExternalId: 'user-1', mode: 'wait' });

  assert.deepEqual(res.click, { id: click.click_id });
  assert.deepEqual(res.link, {
    id: link.id,
    domain: link.domain,
    key: link.key,
    shortLink: link.short_link,
    url: link.url,
    partnerId: null,
    programId: null,
    tenantId: 'tenant-7',
    externalId: 'ext-link-1',
  });
  assert.match(res.customer.name!, /^[A-Z][a-z]+ [A-Z][a-z]+ [A-Z][a-z]+$/);
  assert.equal(res.customer.email, null);
  assert.equal(res.customer.externalId, 'user-1');

  const row = await customer('user-1');
  assert.ok(row);
  assert.equal(row.name, res.customer.name);
  assert.equal(row.click_id, click.click_id);
  assert.equal(row.link_id, link.id);
  assert.equal(row.country, 'DE');

  const events = (await conversionEvents(t)).filter((e) => e.customer_id === row.id);
  assert.equal(events.length, 1);
  const lead = events[0]!;
  assert.equal(lead.kind, 'lead');
  assert.equal(lead.event_name, 'Sign up');
  assert.equal(lead.click_id, click.click_id);
  assert.equal(lead.link_id, link.id);
  // Dimensions are copied from the click, so "leads by country" needs no join.
  assert.equal(lead.country, 'DE');
  assert.equal(lead.browser, 'Firefox');
  assert.equal(lead.utm_source, 'newsletter');
  assert.match(lead.id, /^evt_/);
  assert.equal((await readLink(t, link.id)).leads, 1);
});

test('eventQuantity N records N lead events and adds N to link.leads; metadata is stored', async () => {
  const link = await insertLink(t);
  const click = await insertClick(t, link);
  await dub.track.lead({
    clickId: click.click_id,
    eventName: 'Seats provisioned',
    customerExternalId: 'user-qty',
    customerName: 'Ada Lovelace',
    customerEmail: 'ada@example.com',
    mode: 'wait',
    eventQuantity: 3,
    metadata: { plan: 'team', seats: 3 },
  });
  const row = (await customer('user-qty'))!;
  assert.equal(row.name, 'Ada Lovelace');
  assert.equal(row.email, 'ada@example.com');
  const events = (await conversionEvents(t)).filter((e) => e.customer_id === row.id);
  assert.equal(events.length, 3);
  assert.equal(new Set(events.map((e) => e.id)).size, 3);
  assert.deepEqual(JSON.parse(events[0]!.metadata!), { plan: 'team', seats: 3 });
  assert.equal((await readLink(t, link.id)).leads, 3);
});

test('the same customer and event name within 7 days is not counted twice (link: null)', async () => {
  const link = await insertLink(t);
  const click = await insertClick(t, link);
  const first = await dub.track.lead({ clickId: click.click_id, eventName: 'Sign up', customerExternalId: 'user-dup', mode: 'wait' });
  assert.ok(first.link);
  for (const eventName of ['Sign up', 'sign-up', '  SIGN   UP ']) {
    const again = await dub.track.lead({ clickId: click.click_id, eventName, customerExternalId: 'user-dup', mode: 'wait' });
    assert.equal(again.link, null, eventName);
    assert.deepEqual(again.click, { id: click.click_id });
    assert.equal(again.customer.name, first.customer.name);
  }
  // Another event name is a new lead.
  const other = await dub.track.lead({ clickId: click.click_id, eventName: 'Trial started', customerExternalId: 'user-dup', mode: 'wait' });
  assert.ok(other.link);
  const row = (await customer('user-dup'))!;
  const events = (await conversionEvents(t)).filter((e) => e.customer_id === row.id);
  assert.deepEqual(events.map((e) => e.event_name).sort(), ['Sign up', 'Trial started']);
  assert.equal((await readLink(t, link.id)).leads, 2);
});

test('a lead older than the 7-day window does not make a new one a duplicate', async () => {
  const link = await insertLink(t);
  const click = await insertClick(t, link);
  await dub.track.lead({ clickId: click.click_id, eventName: 'Sign up', customerExternalId: 'user-old', mode: 'wait' });
  const row = (await customer('user-old'))!;
  await t.ctx.database.db
    .updateTable('events')
    .set({ timestamp: Date.now() - 8 * 24 * 3600 * 1000 })
    .where('workspace_id', '=', t.workspaceId)
    .where('customer_id', '=', row.id)
    .execute();
  const again = await dub.track.lead({ clickId: click.click_id, eventName: 'Sign up', customerExternalId: 'user-old', mode: 'wait' });
  assert.ok(again.link);
  assert.equal((await readLink(t, link.id)).leads, 2);
});

test('async answers before writing, writes right after, and a sale right after still finds the lead', async () => {
  const link = await insertLink(t);
  const click = await insertClick(t, link);
  const res = await dub.track.lead({ clickId: click.click_id, eventName: 'Sign up', customerExternalId: 'user-async' });
  assert.equal(res.link?.id, link.id);
  // The sale waits for the customer's pending lead write.
  const sale = await dub.track.sale({ customerExternalId: 'user-async', amount: 1200 });
  assert.equal(sale.sale?.amount, 1200);
  await t.modules.tracking.queue.drain();
  const row = (await customer('user-async'))!;
  const events = (await conversionEvents(t)).filter((e) => e.customer_id === row.id);
  assert.deepEqual(events.map((e) => e.kind), ['lead', 'sale']);
  const counters = await readLink(t, link.id);
  assert.equal(counters.leads, 1);
  assert.equal(counters.sales, 1);
});

test('deferred records the customer only; a later lead with clickId "" reuses its click', async () => {
  const link = await insertLink(t);
  const click = await insertClick(t, link);
  const deferred = await dub.track.lead({ clickId: click.click_id, eventName: 'Sign up', customerExternalId: 'user-def', mode: 'deferred' });
  assert.equal(deferred.link?.id, link.id);
  const row = (await customer('user-def'))!;
  assert.equal(row.click_id, click.click_id);
  assert.equal((await conversionEvents(t)).filter((e) => e.customer_id === row.id).length, 0);
  assert.equal((await readLink(t, link.id)).leads, 0);

  // deferred again with an empty clickId: still nothing recorded.
  await dub.track.lead({ clickId: '', eventName: 'Sign up', customerExternalId: 'user-def', mode: 'deferred' });
  assert.equal((await readLink(t, link.id)).leads, 0);

  const completed = await dub.track.lead({ clickId: '', eventName: 'Sign up', customerExternalId: 'user-def', mode: 'wait' });
  assert.deepEqual(completed.click, { id: click.click_id });
  assert.equal(completed.link?.id, link.id);
  const events = (await conversionEvents(t)).filter((e) => e.customer_id === row.id);
  assert.equal(events.length, 1);
  assert.equal(events[0]!.click_id, click.click_id);
  assert.equal((await readLink(t, link.id)).leads, 1);
});

test('an empty clickId without an existing customer is 400', async () => {
  const res = await t.inject({ method: 'POST', url: '/track/lead', payload: { clickId: '', eventName: 'Sign up', customerExternalId: 'nobody' } });
  assert.equal(res.statusCode, 400);
  assert.equal(res.json().error.code, 'bad_request');
  assert.match(res.json().error.message, /clickId/);
});

test('an unknown click, or a click of another workspace, is 404 naming the click id', async () => {
  const unknown = await t.inject({ method: 'POST', url: '/track/lead', payload: { clickId: 'nope1234', eventName: 'Sign up', customerExternalId: 'x1', mode: 'wait' } });
  assert.equal(unknown.statusCode, 404);
  assert.equal(unknown.json().error.code, 'not_found');
  assert.match(unknown.json().error.message, /clickId: nope1234/);

  const other = await t.addWorkspace();
  const otherLink = await insertLink(t, { workspace_id: other.workspaceId });
  const otherClick = await insertClick(t, otherLink);
  const res = await t.inject({
    method: 'POST',
    url: '/track/lead',
    payload: { clickId: otherClick.click_id, eventName: 'Sign up', customerExternalId: 'x2', mode: 'wait' },
  });
  assert.equal(res.statusCode, 404);
  assert.match(res.json().error.message, new RegExp(`clickId: ${otherClick.click_id}`));
  // Nothing was written in either workspace.
  assert.equal(await customer('x2'), undefined);
  assert.equal((await readLink(t, otherLink.id)).leads, 0);
  // The owner of the click can track it.
  const mine = await t.app.inject({
    method: 'POST',
    url: '/track/lead',
    headers: other.headers,
    payload: { clickId: otherClick.click_id, eventName: 'Sign up', customerExternalId: 'x2', mode: 'wait' },
  });
  assert.equal(mine.statusCode, 200);
  assert.equal((await readLink(t, otherLink.id)).leads, 1);
});

test('a disabled link refuses leads with 404', async () => {
  const link = await insertLink(t, { disabled_at: Date.now() - 1000 });
  const click = await insertClick(t, link);
  const res = await t.inject({ method: 'POST', url: '/track/lead', payload: { clickId: click.click_id, eventName: 'Sign up', customerExternalId: 'x3' } });
  assert.equal(res.statusCode, 404);
  assert.match(res.json().error.message, /disabled/);
});

test('a second lead updates the customer fields it carries (upsert by customerExternalId)', async () => {
  const link = await insertLink(t);
  const click = await insertClick(t, link);
  await dub.track.lead({ clickId: click.click_id, eventName: 'Sign up', customerExternalId: 'user-up', mode: 'wait' });
  const res = await dub.track.lead({
    clickId: click.click_id,
    eventName: 'Profile completed',
    customerExternalId: 'user-up',
    customerName: 'Grace Hopper',
    customerEmail: 'grace@example.com',
    customerAvatar: 'https://example.com/grace.png',
    mode: 'wait',
  });
  assert.deepEqual(res.customer, { name: 'Grace Hopper', email: 'grace@example.com', avatar: 'https://example.com/grace.png', externalId: 'user-up' });
  const row = (await customer('user-up'))!;
  assert.equal(row.name, 'Grace Hopper');
  assert.equal(row.email, 'grace@example.com');
  const count = await t.ctx.database.db.selectFrom('customers').select((eb) => eb.fn.countAll<number>().as('n')).where('external_id', '=', 'user-up').executeTakeFirstOrThrow();
  assert.equal(Number(count.n), 1);
});

test('tracking needs a business plan or higher, and any valid key of such a workspace', async () => {
  const pro = await t.addWorkspace('pro');
  const res = await t.app.inject({ method: 'POST', url: '/track/lead', headers: pro.headers, payload: { clickId: 'a', eventName: 'b', customerExternalId: 'c' } });
  assert.equal(res.statusCode, 403);
  assert.equal(res.json().error.code, 'forbidden');
  const sale = await t.app.inject({ method: 'POST', url: '/track/sale', headers: pro.headers, payload: { customerExternalId: 'c', amount: 1 } });
  assert.equal(sale.statusCode, 403);

  const scoped = await t.addWorkspace('business', ['links.read']);
  const link = await insertLink(t, { workspace_id: scoped.workspaceId });
  const click = await insertClick(t, link);
  const ok = await t.app.inject({
    method: 'POST',
    url: '/track/lead',
    headers: scoped.headers,
    payload: { clickId: click.click_id, eventName: 'Sign up', customerExternalId: 'c', mode: 'wait' },
  });
  assert.equal(ok.statusCode, 200);
});

test('the click lookup of the redirect module is used first (clicks not yet flushed are found)', async () => {
  const link = await insertLink(t);
  // A click that exists only in the (fake) redirect batch, not in the events table.
  const batched = batchedClickRow(link.id, link.domain, link.key);
  const deps: TrackDeps = {
    db: t.ctx.database.db,
    dialect: t.ctx.database.dialect,
    events: t.ctx.events,
    conversions: t.ctx.conversions,
    counters: createLinkCounters(t.ctx.database.dialect),
    now: Date.now,
    clicks: { findClick: async (ws, id) => (ws === t.workspaceId && id === batched.click_id ? batched : undefined) },
    customers: t.modules.customers.storeFor,
    queue: createKeyedSerialQueue(() => {}),
  };
  const leads = createLeadService(deps);
  const silent = { error() {}, warn() {}, info() {} };
  const res = await leads.track(t.workspaceId, { clickId: batched.click_id, eventName: 'Sign up', customerExternalId: 'user-batch', mode: 'wait' }, silent);
  assert.equal(res.link?.id, link.id);
  assert.equal((await readLink(t, link.id)).leads, 1);
});

/** A click row as the redirect module keeps it in memory before its flush. */
function batchedClickRow(linkId: string, domain: string, key: string): StoredEvent {
  const id = newClickId();
  return {
    workspace_id: t.workspaceId, timestamp: Date.now(), id, kind: 'click' as const, click_id: id, link_id: linkId, domain, key,
    url: 'https://shop.example.com/', country: 'FR', city: 'Paris', region: 'FR-IDF', continent: 'EU', device: 'Mobile',
    browser: 'Safari', os: 'iOS', referer: '(direct)', referer_url: '(direct)', trigger: 'qr', ip: '', ua: 'Mozilla/5.0',
  } as StoredEvent;
}

test('shutdown waits for async lead writes that were answered but not yet written', async () => {
  const t2 = await createTestApp();
  try {
    const link = await insertLink(t2);
    const click = await insertClick(t2, link);
    const res = await t2.inject({ method: 'POST', url: '/track/lead', payload: { clickId: click.click_id, eventName: 'Sign up', customerExternalId: 'late', eventQuantity: 5 } });
    assert.equal(res.statusCode, 200);
    await t2.app.close(); // runs the tracking lifecycle's drain; the database is still open
    assert.equal(t2.modules.tracking.queue.pending, 0);
    assert.equal((await readLink(t2, link.id)).leads, 5);
  } finally {
    await t2.close();
  }
});
