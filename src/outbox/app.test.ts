/**
 * Domain events through the whole app: the links API's single writes announce the link as the API
 * returns it, bulk writes announce nothing, leads and sales are announced with their click,
 * customer and link, and clicks write no outbox row while nobody subscribes to `link.clicked`.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { insertClick, insertLink } from '../test-support/conversions.js';
import { addTag } from '../links/test-fixtures.js';
import { hit } from '../redirect/testing.js';
import { clickOutboxEntries, writeOutbox, type DomainEvent, type DomainEventType } from './outbox.js';
import { createOutboxPublisher, type Subscriber } from './publisher.js';
import { createEventExpander, type PublishedEvent } from '../webhooks/event-payloads.js';
import type { ColumnEventStore } from '../events/index.js';

/** The click ids stored for a link, in whichever event store the app runs (TEST_EVENTS_URL). */
async function storedClickIds(app: { ctx: TestApp['ctx'] }, linkId: string): Promise<string[]> {
  const column = app.ctx.events as Partial<ColumnEventStore>;
  if (column.engine) {
    const rows = await column.engine.query({ text: "SELECT id FROM events WHERE kind = 'click' AND link_id = $1", params: [{ type: 'text', value: linkId }] });
    return rows.map((r) => String(r.id));
  }
  return (await app.ctx.database.db.selectFrom('events').select('click_id').where('link_id', '=', linkId).where('kind', '=', 'click').execute()).map((r) => r.click_id);
}

const got: DomainEvent[] = [];
const subscriber: Subscriber = {
  name: 'test',
  // Everything but clicks.
  events: ['link.created', 'link.updated', 'link.deleted', 'lead.created', 'sale.created'],
  async deliver(event) {
    if (!got.some((e) => e.id === event.id)) got.push(event);
  },
};

let t: TestApp;
before(async () => {
  t = await createTestApp({ subscribers: [subscriber] });
});
after(() => t.close());

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** The next `n` events delivered after `from` (an index into `got`), once they are there. */
async function next(from: number, n = 1): Promise<DomainEvent[]> {
  await until(() => got.length >= from + n, `${n} event(s) after #${from}`);
  return got.slice(from, from + n);
}

const outboxTypes = async () => (await t.ctx.database.db.selectFrom('outbox').select('type').execute()).map((r) => r.type as DomainEventType);

test("single create, update, upsert's update and delete announce the link exactly as the API returns it; upsert's create does not", async () => {
  const tag = await addTag(t, 'Launch');
  let from = got.length;
  const created = await t.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/a', key: 'ev-a', tagIds: [tag] } });
  assert.equal(created.statusCode, 200, created.body);
  const [c] = await next(from);
  assert.equal(c!.event, 'link.created');
  assert.match(c!.id, /^evt_/);
  assert.equal(c!.workspaceId, t.workspaceId);
  assert.deepEqual(c!.data, created.json());
  assert.equal((c!.data as { tags: unknown[] }).tags.length, 1);

  from = got.length;
  const updated = await t.inject({ method: 'PATCH', url: `/links/${created.json().id}`, payload: { title: 'A title', tagIds: [] } });
  assert.equal(updated.statusCode, 200, updated.body);
  const [u] = await next(from);
  assert.equal(u!.event, 'link.updated');
  assert.deepEqual(u!.data, updated.json());

  from = got.length;
  const upsertedOld = await t.inject({ method: 'PUT', url: '/links/upsert', payload: { url: 'https://example.com/a', title: 'Upserted' } });
  const upsertedNew = await t.inject({ method: 'PUT', url: '/links/upsert', payload: { url: 'https://example.com/new' } });
  assert.equal(upsertedNew.statusCode, 200, upsertedNew.body);
  // An upsert that updates announces the update; one that creates announces nothing (the published rule).
  const [uo] = await next(from);
  assert.equal(uo!.event, 'link.updated');
  assert.deepEqual(uo!.data, upsertedOld.json());
  t.ctx.outbox.nudge();
  await t.modules.events.publisher.idle();
  assert.equal(got.length, from + 1, `upsert's create announced nothing: ${got.slice(from + 1).map((e) => e.event).join(', ')}`);

  const before = (await t.inject({ method: 'GET', url: `/links/${created.json().id}` })).json();
  from = got.length;
  const deleted = await t.inject({ method: 'DELETE', url: `/links/${created.json().id}` });
  assert.equal(deleted.statusCode, 200, deleted.body);
  const [d] = await next(from);
  assert.equal(d!.event, 'link.deleted');
  assert.deepEqual(d!.data, before);

  // A failed write (the key is taken) announces nothing.
  from = got.length;
  const taken = await t.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/b', key: 'ev-a2' } });
  const again = await t.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/c', key: 'ev-a2' } });
  assert.equal(again.statusCode, 409, again.body);
  const [only] = await next(from);
  assert.deepEqual(only!.data, taken.json());
  await t.modules.events.publisher.idle();
  assert.equal(got.length, from + 1);
});

test('bulk create, update and delete write no link events', async () => {
  const from = got.length;
  const outboxBefore = (await outboxTypes()).length;
  const bulk = await t.inject({ method: 'POST', url: '/links/bulk', payload: [{ url: 'https://example.com/b1' }, { url: 'https://example.com/b2' }] });
  assert.equal(bulk.statusCode, 200, bulk.body);
  const ids = (bulk.json() as { id: string }[]).map((l) => l.id);
  assert.equal(ids.length, 2);
  const patched = await t.inject({ method: 'PATCH', url: '/links/bulk', payload: { linkIds: ids, data: { title: 'Bulk' } } });
  assert.equal(patched.statusCode, 200, patched.body);
  const removed = await t.inject({ method: 'DELETE', url: `/links/bulk?linkIds=${ids.join(',')}` });
  assert.equal(removed.statusCode, 200, removed.body);
  assert.equal(removed.json().deletedCount, 2);
  t.ctx.outbox.nudge();
  await t.modules.events.publisher.idle();
  assert.equal(got.length, from);
  const outboxAfter = await outboxTypes();
  assert.equal(outboxAfter.length, outboxBefore, `no outbox rows: ${outboxAfter.join(', ')}`);
});

test('clicks write no outbox row while nobody subscribes to link.clicked', async () => {
  assert.equal(t.ctx.outbox.wants('link.clicked'), false);
  const base = await t.listen();
  const link = await t.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/clicked', key: 'ev-click' } });
  const res = await hit(base, '/ev-click', { host: link.json().domain });
  assert.equal(res.status, 302);
  const stored = async () => (await storedClickIds(t, link.json().id)).length > 0;
  await until(stored, 'the click is stored');
  assert.ok(!(await outboxTypes()).includes('link.clicked'));
});

test('a lead and a sale are announced with their click, customer and link; a repeated invoice is not', async () => {
  const link = await insertLink(t, { track_conversion: 1 });
  const click = await insertClick(t, link);
  let from = got.length;
  const lead = await t.inject({
    method: 'POST',
    url: '/track/lead',
    payload: { clickId: click.click_id, eventName: 'Sign up', customerExternalId: 'ev-user', customerEmail: 'ev@example.com', metadata: { plan: 'pro' }, mode: 'wait' },
  });
  assert.equal(lead.statusCode, 200, lead.body);
  const [l] = await next(from);
  assert.equal(l!.event, 'lead.created');
  const leadData = l!.data as PublishedEvent<'lead.created'>['data'];
  assert.equal(leadData.eventName, 'Sign up');
  assert.deepEqual(leadData.metadata, { plan: 'pro' });
  assert.equal(leadData.click.id, click.click_id);
  assert.equal(leadData.customer.externalId, 'ev-user');
  assert.equal(leadData.customer.email, 'ev@example.com');
  assert.equal(leadData.link?.id, link.id);
  assert.equal(leadData.link?.leads, 1);

  from = got.length;
  const sale = await t.inject({ method: 'POST', url: '/track/sale', payload: { customerExternalId: 'ev-user', amount: 1999, invoiceId: 'in_ev', paymentProcessor: 'stripe' } });
  assert.equal(sale.statusCode, 200, sale.body);
  const replay = await t.inject({ method: 'POST', url: '/track/sale', payload: { customerExternalId: 'ev-user', amount: 1999, invoiceId: 'in_ev', paymentProcessor: 'stripe' } });
  assert.equal(replay.statusCode, 200, replay.body);
  const [s] = await next(from);
  assert.equal(s!.event, 'sale.created');
  const saleData = s!.data as PublishedEvent<'sale.created'>['data'];
  assert.deepEqual(saleData.sale, { amount: 1999, currency: 'usd', paymentProcessor: 'stripe', invoiceId: 'in_ev' });
  assert.equal(saleData.customer.externalId, 'ev-user');
  assert.equal(saleData.click.id, click.click_id);
  assert.equal(saleData.link?.id, link.id);
  t.ctx.outbox.nudge();
  await t.modules.events.publisher.idle();
  assert.equal(got.length, from + 1, 'the repeated invoice announced nothing');
});

test('the publisher expands stored click entries into the /events click object and the link as the API returns it', async () => {
  const link = await insertLink(t);
  const click = await insertClick(t, link);
  const clicked: DomainEvent[] = [];
  const publisher = createOutboxPublisher({
    db: t.database.db,
    subscribers: [{ name: 'clicks', events: ['link.clicked'], deliver: async (e) => void clicked.push(e) }],
    expander: () => createEventExpander(t.database.db, t.config),
    pollMs: 10_000,
  });
  try {
    const entries = clickOutboxEntries([click], Date.now());
    await t.database.db.transaction().execute((trx) => writeOutbox(trx, entries));
    publisher.start();
    await until(() => clicked.length === 1, 'the click event');
    const records = (await t.inject({ method: 'GET', url: `/events?event=clicks&interval=all&linkId=${link.id}` })).json() as { click: { id: string } }[];
    const record = records.find((r) => r.click.id === click.click_id);
    assert.ok(record);
    const api = (await t.inject({ method: 'GET', url: `/links/${link.id}` })).json();
    assert.deepEqual(clicked[0], { id: entries[0]!.id, event: 'link.clicked', createdAt: new Date(entries[0]!.created_at).toISOString(), workspaceId: t.workspaceId, data: { click: record.click, link: api } });
  } finally {
    await publisher.close();
  }
});

test('with a subscriber to link.clicked, each recorded click is announced once, from the batch that stored it', async () => {
  const clicked: DomainEvent[] = [];
  const c = await createTestApp({
    env: { TRUST_PROXY: 'true' },
    subscribers: [{ name: 'clicks', events: ['link.clicked'], deliver: async (e) => void (clicked.some((x) => x.id === e.id) || clicked.push(e)) }],
  });
  try {
    assert.equal(c.ctx.outbox.wants('link.clicked'), true);
    const base = await c.listen();
    const link = (await c.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/announced', key: 'ev-announced' } })).json();
    for (const ip of ['198.51.100.1', '198.51.100.2']) {
      const res = await hit(base, '/ev-announced', { host: link.domain, headers: { 'x-forwarded-for': ip } });
      assert.equal(res.status, 302);
    }
    await c.modules.redirect.flushClicks();
    const stored = await storedClickIds(c, link.id);
    assert.equal(stored.length, 2);
    await until(() => clicked.length === 2, 'both clicks announced');
    assert.deepEqual(clicked.map((e) => (e.data as { click: { id: string } }).click.id).sort(), stored.sort());
    for (const e of clicked) {
      assert.equal(e.event, 'link.clicked');
      assert.equal((e.data as { link: { id: string } | null }).link?.id, link.id);
    }
  } finally {
    await c.close();
  }
});
