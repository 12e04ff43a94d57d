/**
 * The whole conversion flow on real modules: a link made through the links API, a real click
 * through the redirect server (with the click id appended to the destination), the lead sent at
 * once (the click may still be in the redirect's unflushed batch), a sale, then analytics.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Dub } from 'dub';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { hit } from '../redirect/testing.js';

let t: TestApp;
let dub: Dub;
let base: string;
before(async () => {
  t = await createTestApp();
  base = await t.listen();
  dub = new Dub({ token: t.key, serverURL: base });
});
after(() => t.close());

test('click → lead → sale → analytics, through the SDK and the redirect', async () => {
  const link = await dub.links.create({ url: 'https://shop.example.com/pricing', key: 'spring-sale', trackConversion: true });
  const param = t.config.clickIdParam;

  const click = await hit(base, '/spring-sale', { host: link.domain });
  assert.equal(click.status, 302);
  const location = new URL(click.location!);
  assert.equal(location.origin + location.pathname, 'https://shop.example.com/pricing');
  const clickId = location.searchParams.get(param);
  assert.match(clickId ?? '', /^[A-Za-z0-9]{16}$/);

  // Immediately: the click may not be flushed yet.
  const lead = await dub.track.lead({ clickId: clickId!, eventName: 'Sign up', customerExternalId: 'e2e-user', customerEmail: 'e2e@example.com', mode: 'wait' });
  assert.equal(lead.link?.id, link.id);
  assert.deepEqual(lead.click, { id: clickId });

  const sale = await dub.track.sale({ customerExternalId: 'e2e-user', amount: 4900, invoiceId: 'in_e2e', paymentProcessor: 'stripe' });
  assert.equal(sale.sale?.amount, 4900);
  const replay = await dub.track.sale({ customerExternalId: 'e2e-user', amount: 4900, invoiceId: 'in_e2e', paymentProcessor: 'stripe' });
  assert.deepEqual(replay, sale);

  const after = await dub.links.get({ linkId: link.id });
  assert.deepEqual([after.leads, after.sales, after.saleAmount, after.conversions], [1, 1, 4900, 1]);

  const customer = await dub.customers.get({ id: 'ext_e2e-user', includeExpandedFields: true });
  assert.equal(customer.link?.id, link.id);
  assert.deepEqual([customer.sales, customer.saleAmount], [1, 4900]);

  // Analytics reads the same event log (composite: clicks, leads and sales of the link).
  await t.modules.tracking.queue.drain();
  const counts = await t.inject({ method: 'GET', url: `/analytics?event=composite&interval=all&linkId=${link.id}` });
  assert.equal(counts.statusCode, 200, counts.body);
  const c = counts.json();
  assert.deepEqual([c.leads, c.sales, c.saleAmount], [1, 1, 4900]);

  const events = await t.inject({ method: 'GET', url: '/events?event=sales&interval=all' });
  assert.equal(events.statusCode, 200, events.body);
  const [saleEvent] = events.json();
  assert.equal(saleEvent.eventName, 'Purchase');
  assert.equal(saleEvent.sale.amount, 4900);
  assert.equal(saleEvent.sale.invoiceId, 'in_e2e');
  assert.equal(saleEvent.customer.externalId, 'e2e-user');
  assert.equal(saleEvent.click.id, clickId);
  assert.equal(saleEvent.link.id, link.id);
});
