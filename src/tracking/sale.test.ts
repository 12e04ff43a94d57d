import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Dub } from 'dub';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { conversionEvents, insertClick, insertLink, readLink, type FixtureLink } from '../test-support/conversions.js';
import { buildApp } from '../app.js';

let t: TestApp;
let dub: Dub;
const ratesDir = mkdtempSync(join(tmpdir(), 'waymark-rates-'));
const ratesFile = join(ratesDir, 'rates.json');
// Fixed rates so the expected cents are exact: 1 USD = 0.8 EUR = 150 JPY = 0.3 KWD.
writeFileSync(ratesFile, JSON.stringify({ base: 'usd', date: '2025-01-01', rates: { eur: 0.8, jpy: 150, kwd: 0.3 } }));

before(async () => {
  t = await createTestApp({ config: { currencyRatesFile: ratesFile } });
  dub = new Dub({ token: t.key, serverURL: await t.listen() });
});
after(async () => {
  await t.close();
  rmSync(ratesDir, { recursive: true, force: true });
});

const customer = (externalId: string) =>
  t.ctx.database.db.selectFrom('customers').selectAll().where('workspace_id', '=', t.workspaceId).where('external_id', '=', externalId).executeTakeFirstOrThrow();

/** A customer with a lead on a fresh link. */
async function withLead(externalId: string, eventName = 'Sign up', link?: FixtureLink) {
  const l = link ?? (await insertLink(t));
  const click = await insertClick(t, l);
  await dub.track.lead({ clickId: click.click_id, eventName, customerExternalId: externalId, mode: 'wait' });
  return { link: l, click };
}

const salesOf = async (customerId: string) => (await conversionEvents(t)).filter((e) => e.kind === 'sale' && e.customer_id === customerId);

test('a sale is attributed to the lead: event, link and customer counters; first sale new, then recurring', async () => {
  const { link, click } = await withLead('buyer-1');
  const res = await dub.track.sale({ customerExternalId: 'buyer-1', amount: 4900, paymentProcessor: 'stripe', invoiceId: 'in_1', metadata: { plan: 'pro' } });
  const c = await customer('buyer-1');
  assert.deepEqual(res, {
    eventName: 'Purchase',
    customer: { id: c.id, name: c.name, email: null, avatar: null, externalId: 'buyer-1' },
    sale: { amount: 4900, currency: 'usd', paymentProcessor: 'stripe', invoiceId: 'in_1', metadata: { plan: 'pro' } },
  });
  let counters = await readLink(t, link.id);
  assert.deepEqual([counters.leads, counters.sales, counters.sale_amount, counters.conversions], [1, 1, 4900, 1]);
  assert.equal(c.sales, 1);
  assert.equal(c.sale_amount, 4900);
  assert.ok(c.first_sale_at !== null);

  const second = await dub.track.sale({ customerExternalId: 'buyer-1', amount: 1000, eventName: 'Invoice paid' });
  assert.equal(second.eventName, 'Invoice paid');
  counters = await readLink(t, link.id);
  // A recurring sale adds to sales and amount, not to conversions.
  assert.deepEqual([counters.sales, counters.sale_amount, counters.conversions], [2, 5900, 1]);
  const after2 = await customer('buyer-1');
  assert.equal(after2.sales, 2);
  assert.equal(after2.sale_amount, 5900);
  assert.equal(after2.first_sale_at, c.first_sale_at);

  const sales = await salesOf(c.id);
  assert.deepEqual(sales.map((s) => s.sale_type), ['new', 'recurring']);
  assert.ok(sales.every((s) => s.click_id === click.click_id && s.link_id === link.id));
  assert.equal(sales[0]!.payment_processor, 'stripe');
  assert.equal(sales[0]!.invoice_id, 'in_1');
  assert.equal(sales[0]!.country, 'DE');
  assert.equal(sales[1]!.invoice_id, null);
});

test('leadEventName picks that lead (case-sensitive); without it the latest lead wins', async () => {
  const linkA = await insertLink(t);
  const linkB = await insertLink(t);
  await withLead('buyer-2', 'Sign up', linkA);
  await withLead('buyer-2', 'Trial started', linkB);

  await dub.track.sale({ customerExternalId: 'buyer-2', amount: 100, leadEventName: 'Sign up' });
  assert.equal((await readLink(t, linkA.id)).sales, 1);
  assert.equal((await readLink(t, linkB.id)).sales, 0);

  await dub.track.sale({ customerExternalId: 'buyer-2', amount: 100 });
  assert.equal((await readLink(t, linkB.id)).sales, 1);
  // First sale of this customer on link B: a conversion there too, and a `new` sale.
  assert.equal((await readLink(t, linkB.id)).conversions, 1);
  const c = await customer('buyer-2');
  assert.deepEqual((await salesOf(c.id)).map((s) => [s.link_id, s.sale_type]), [[linkA.id, 'new'], [linkB.id, 'new']]);

  const wrongCase = await t.inject({ method: 'POST', url: '/track/sale', payload: { customerExternalId: 'buyer-2', amount: 100, leadEventName: 'sign up' } });
  assert.equal(wrongCase.statusCode, 404);
  assert.match(wrongCase.json().error.message, /sign up/);
  assert.equal(c.sales, 2);
});

test('a duplicate invoiceId returns the first result and changes nothing', async () => {
  const { link } = await withLead('buyer-3');
  const first = await dub.track.sale({ customerExternalId: 'buyer-3', amount: 2500, invoiceId: 'inv-seq', metadata: { n: 1 } });
  const again = await dub.track.sale({ customerExternalId: 'buyer-3', amount: 9999, invoiceId: 'inv-seq', eventName: 'Other', currency: 'eur' });
  assert.deepEqual(again, first);
  const counters = await readLink(t, link.id);
  assert.deepEqual([counters.sales, counters.sale_amount, counters.conversions], [1, 2500, 1]);
  const c = await customer('buyer-3');
  assert.deepEqual([c.sales, c.sale_amount], [1, 2500]);
  assert.equal((await salesOf(c.id)).length, 1);
});

test('20 concurrent requests with one invoiceId record one sale and move counters once', async () => {
  const { link } = await withLead('buyer-4');
  const results = await Promise.all(
    Array.from({ length: 20 }, () => dub.track.sale({ customerExternalId: 'buyer-4', amount: 3000, invoiceId: 'inv-par' })),
  );
  for (const r of results) assert.deepEqual(r, results[0]);
  assert.equal(results[0]!.sale?.amount, 3000);
  const c = await customer('buyer-4');
  assert.equal((await salesOf(c.id)).length, 1);
  const counters = await readLink(t, link.id);
  assert.deepEqual([counters.sales, counters.sale_amount, counters.conversions], [1, 3000, 1]);
  assert.deepEqual([c.sales, c.sale_amount], [1, 3000]);
});

test('the database constraint holds across processes: two app instances race on one invoice', async () => {
  // A second app on the same database has its own in-process queue, so only the UNIQUE index
  // (events_invoice) stands between the two.
  const second = await buildApp({ config: t.config, database: t.database, logger: false });
  try {
    const { link } = await withLead('buyer-5');
    const payload = { customerExternalId: 'buyer-5', amount: 700, invoiceId: 'inv-multi' };
    const apps = [t.app, second.app];
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => apps[i % 2]!.inject({ method: 'POST', url: '/track/sale', headers: t.headers, payload })),
    );
    for (const r of responses) assert.equal(r.statusCode, 200, r.body);
    const bodies = responses.map((r) => r.json());
    for (const b of bodies) assert.deepEqual(b, bodies[0]);
    const c = await customer('buyer-5');
    assert.equal((await salesOf(c.id)).length, 1);
    const counters = await readLink(t, link.id);
    assert.deepEqual([counters.sales, counters.sale_amount, counters.conversions], [1, 700, 1]);
    assert.deepEqual([c.sales, c.sale_amount], [1, 700]);
  } finally {
    await second.app.close();
  }
});

test('currencies convert to USD cents with the rate table; zero- and three-decimal currencies; any case', async () => {
  const { link } = await withLead('buyer-fx');
  const eur = await dub.track.sale({ customerExternalId: 'buyer-fx', amount: 1000, currency: 'EUR' });
  assert.deepEqual([eur.sale?.amount, eur.sale?.currency], [1250, 'usd']); // €10.00 / 0.8
  const jpy = await dub.track.sale({ customerExternalId: 'buyer-fx', amount: 1500, currency: 'jpy' });
  assert.equal(jpy.sale?.amount, 1000); // ¥1500 is whole yen: 1500 / 150 = $10.00
  const kwd = await dub.track.sale({ customerExternalId: 'buyer-fx', amount: 3000, currency: 'KWD' });
  assert.equal(kwd.sale?.amount, 1000); // 3.000 KWD / 0.3 = $10.00
  const usd = await dub.track.sale({ customerExternalId: 'buyer-fx', amount: 999 });
  assert.equal(usd.sale?.amount, 999);

  const c = await customer('buyer-fx');
  const sales = await salesOf(c.id);
  assert.deepEqual(
    sales.map((s) => [s.currency, s.original_amount, s.amount]),
    [['eur', 1000, 1250], ['jpy', 1500, 1000], ['kwd', 3000, 1000], ['usd', 999, 999]],
  );
  assert.equal((await readLink(t, link.id)).sale_amount, 1250 + 1000 + 1000 + 999);
  assert.equal(c.sale_amount, 4249);

  const unknown = await t.inject({ method: 'POST', url: '/track/sale', payload: { customerExternalId: 'buyer-fx', amount: 100, currency: 'gbp' } });
  assert.equal(unknown.statusCode, 422);
  assert.match(unknown.json().error.message, /currency/);
  assert.equal((await salesOf(c.id)).length, 4);
});

test('amount 0 records nothing and answers with null customer and sale', async () => {
  const { link } = await withLead('buyer-zero');
  const res = await dub.track.sale({ customerExternalId: 'buyer-zero', amount: 0, invoiceId: 'inv-zero' });
  assert.deepEqual(res, { eventName: 'Purchase', customer: null, sale: null });
  const counters = await readLink(t, link.id);
  assert.deepEqual([counters.sales, counters.conversions], [0, 0]);
  // The invoice id was not used up: a real sale with it is recorded.
  const real = await dub.track.sale({ customerExternalId: 'buyer-zero', amount: 10, invoiceId: 'inv-zero' });
  assert.equal(real.sale?.amount, 10);
});

test('no customer and no clickId: a no-op answered with nulls', async () => {
  const res = await dub.track.sale({ customerExternalId: 'stranger', amount: 500 });
  assert.deepEqual(res, { eventName: 'Purchase', customer: null, sale: null });
  const found = await t.ctx.database.db.selectFrom('customers').select('id').where('external_id', '=', 'stranger').executeTakeFirst();
  assert.equal(found, undefined);
});

test('direct sale tracking: a new customer with a clickId gets a lead and the sale', async () => {
  const link = await insertLink(t);
  const click = await insertClick(t, link);
  const res = await dub.track.sale({
    customerExternalId: 'direct-1',
    amount: 2000,
    clickId: click.click_id,
    customerName: 'Direct Buyer',
    customerEmail: 'direct@example.com',
    leadEventName: 'Checkout started',
  });
  assert.equal(res.customer?.name, 'Direct Buyer');
  assert.equal(res.customer?.email, 'direct@example.com');
  assert.equal(res.sale?.amount, 2000);
  const c = await customer('direct-1');
  assert.equal(c.click_id, click.click_id);
  // Both rows carry the same timestamp; sorted by kind for a stable comparison.
  const events = (await conversionEvents(t)).filter((e) => e.customer_id === c.id).sort((a, b) => a.kind.localeCompare(b.kind));
  assert.deepEqual(events.map((e) => [e.kind, e.event_name]), [['lead', 'Checkout started'], ['sale', 'Purchase']]);
  const counters = await readLink(t, link.id);
  assert.deepEqual([counters.leads, counters.sales, counters.sale_amount, counters.conversions], [1, 1, 2000, 1]);

  // Without leadEventName the synthesized lead has the default name.
  const click2 = await insertClick(t, link);
  await dub.track.sale({ customerExternalId: 'direct-2', amount: 1, clickId: click2.click_id });
  const c2 = await customer('direct-2');
  const lead = (await conversionEvents(t)).find((e) => e.customer_id === c2.id && e.kind === 'lead');
  assert.equal(lead?.event_name, 'Direct sale tracking lead event');
});

test('a customer created by a deferred lead buys: the stored click is used', async () => {
  const link = await insertLink(t);
  const click = await insertClick(t, link);
  await dub.track.lead({ clickId: click.click_id, eventName: 'Sign up', customerExternalId: 'deferred-buyer', mode: 'deferred' });
  const res = await dub.track.sale({ customerExternalId: 'deferred-buyer', amount: 800 });
  assert.equal(res.sale?.amount, 800);
  const counters = await readLink(t, link.id);
  assert.deepEqual([counters.leads, counters.sales, counters.conversions], [1, 1, 1]);
});

test('an existing customer with leads ignores clickId; an unknown direct click is 404', async () => {
  const { link } = await withLead('buyer-6');
  const otherLink = await insertLink(t);
  const otherClick = await insertClick(t, otherLink);
  await dub.track.sale({ customerExternalId: 'buyer-6', amount: 50, clickId: otherClick.click_id });
  assert.equal((await readLink(t, link.id)).sales, 1);
  assert.equal((await readLink(t, otherLink.id)).sales, 0);

  const missing = await t.inject({ method: 'POST', url: '/track/sale', payload: { customerExternalId: 'direct-x', amount: 50, clickId: 'doesnotexist' } });
  assert.equal(missing.statusCode, 404);
  assert.match(missing.json().error.message, /doesnotexist/);
});

test("a sale for another workspace's customer is not attributed to it", async () => {
  await withLead('shared-ext');
  const other = await t.addWorkspace();
  const res = await t.app.inject({ method: 'POST', url: '/track/sale', headers: other.headers, payload: { customerExternalId: 'shared-ext', amount: 100 } });
  assert.equal(res.statusCode, 200);
  assert.deepEqual(res.json(), { eventName: 'Purchase', customer: null, sale: null });
  assert.equal((await customer('shared-ext')).sales, 0);
});

test('the events_invoice index rejects a second sale row with the same invoice id on this engine', async () => {
  const { link, click } = await withLead('buyer-idx');
  const c = await customer('buyer-idx');
  const row = (id: string) => ({
    ...click,
    id,
    kind: 'sale' as const,
    timestamp: Date.now(),
    link_id: link.id,
    customer_id: c.id,
    event_name: 'Purchase',
    amount: 1,
    invoice_id: 'inv-index',
  });
  await t.ctx.events.append([row('evt_index_1')]);
  await assert.rejects(
    () => t.ctx.events.append([row('evt_index_2')]),
    (err) => t.ctx.database.dialect.isUniqueViolation(err),
  );
});

test('across two app instances: concurrent leads of one new customer record one lead; concurrent sales count one conversion', { skip: /duckdb/.test(process.env.TEST_EVENTS_URL ?? '') && 'two instances share the metadata database; a DuckDB event file belongs to one process' }, async () => {
  const second = await buildApp({ config: t.config, database: t.database, logger: false });
  try {
    const apps = [t.app, second.app];
    const link = await insertLink(t);
    const click = await insertClick(t, link);
    const leadPayload = { clickId: click.click_id, eventName: 'Sign up', customerExternalId: 'race-1', mode: 'wait' };
    const leads = await Promise.all(
      Array.from({ length: 10 }, (_, i) => apps[i % 2]!.inject({ method: 'POST', url: '/track/lead', headers: t.headers, payload: leadPayload })),
    );
    for (const r of leads) assert.equal(r.statusCode, 200, r.body);
    // Exactly one answer carries the link; the others were duplicates.
    assert.equal(leads.filter((r) => r.json().link !== null).length, 1);
    const c = await customer('race-1');
    assert.equal((await conversionEvents(t)).filter((e) => e.customer_id === c.id && e.kind === 'lead').length, 1);
    assert.equal((await readLink(t, link.id)).leads, 1);

    const sales = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        apps[i % 2]!.inject({ method: 'POST', url: '/track/sale', headers: t.headers, payload: { customerExternalId: 'race-1', amount: 100, invoiceId: `inv-race-${i}` } }),
      ),
    );
    for (const r of sales) assert.equal(r.statusCode, 200, r.body);
    const counters = await readLink(t, link.id);
    assert.deepEqual([counters.sales, counters.sale_amount, counters.conversions], [10, 1000, 1]);
    const after = await customer('race-1');
    assert.deepEqual([after.sales, after.sale_amount], [10, 1000]);
    const types = (await salesOf(c.id)).map((s) => s.sale_type);
    assert.equal(types.filter((x) => x === 'new').length, 1);
    assert.equal(types.length, 10);
  } finally {
    await second.app.close();
  }
});
