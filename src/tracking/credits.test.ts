/**
 * Credits written with the sale on `/track/sale` (docs/decisions/0015): the sale's rows per model
 * and touch, in the sale's transaction (a duplicate invoice adds none), over the customer's
 * journey of leads on several links, with each touch's dimensions.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Dub } from 'dub';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { insertClick, insertLink } from '../test-support/conversions.js';
import { CREDITED_MODELS } from '../attribution/sale-credits.js';

let t: TestApp;
let dub: Dub;
before(async () => {
  t = await createTestApp();
  dub = new Dub({ token: t.key, serverURL: await t.listen() });
});
after(() => t.close());

const creditsOf = (saleId: string) => t.ctx.database.db.selectFrom('credits').selectAll().where('sale_id', '=', saleId).orderBy('model').orderBy('cents', 'desc').execute();
const salesOf = (customerId: string) =>
  t.ctx.database.db.selectFrom('events').selectAll().where('kind', '=', 'sale').where('customer_id', '=', customerId).orderBy('timestamp').execute();

test('a sale after leads on two links: one row per model and touch, shares and cents of the models, the touch dimensions', async () => {
  const [a, b] = [await insertLink(t, { key: 'cred-a' }), await insertLink(t, { key: 'cred-b' })];
  const first = await insertClick(t, a, { timestamp: Date.now() - 3 * 86_400_000, country: 'FR' });
  const second = await insertClick(t, b, { timestamp: Date.now() - 2000 });
  await dub.track.lead({ clickId: first.click_id, eventName: 'Sign up', customerExternalId: 'cred-1', mode: 'wait' });
  // A lead's time is when it is tracked: two in the same millisecond would be tied touches.
  await new Promise((r) => setTimeout(r, 5));
  await dub.track.lead({ clickId: second.click_id, eventName: 'Trial', customerExternalId: 'cred-1', mode: 'wait' });
  await dub.track.sale({ customerExternalId: 'cred-1', amount: 1001, paymentProcessor: 'stripe', invoiceId: 'in_cred_1' });
  const customer = await t.ctx.database.db.selectFrom('customers').select('id').where('external_id', '=', 'cred-1').executeTakeFirstOrThrow();
  const [sale] = await salesOf(customer.id);
  const rows = await creditsOf(sale!.id);
  assert.deepEqual([...new Set(rows.map((r) => r.model))].sort(), [...CREDITED_MODELS].sort());
  const of = (model: string) => rows.filter((r) => r.model === model).map((r) => [r.link_id, r.country, Number(r.share), Number(r.cents)]);
  assert.deepEqual(of('first_click'), [[a.id, 'FR', 1, 1001]]);
  assert.deepEqual(of('linear'), [[a.id, 'FR', 0.5, 501], [b.id, 'DE', 0.5, 500]]);
  assert.deepEqual(of('position_based'), [[a.id, 'FR', 0.5, 501], [b.id, 'DE', 0.5, 500]]);
  // Time decay (7-day half-life): the touch three days older gets 2^-3/7 of the newer one's weight.
  const decay = of('time_decay');
  assert.equal(decay[0]![0], b.id);
  assert.equal(decay.reduce((s, r) => s + Number(r[3]), 0), 1001);
  for (const r of rows) assert.deepEqual([r.sale_link_id, r.customer_id, Number(r.timestamp)], [b.id, customer.id, Number(sale!.timestamp)]);

  // The same invoice again is the stored sale: no second set of credits.
  await dub.track.sale({ customerExternalId: 'cred-1', amount: 1001, paymentProcessor: 'stripe', invoiceId: 'in_cred_1' });
  assert.equal((await salesOf(customer.id)).length, 1);
  assert.equal((await t.ctx.database.db.selectFrom('credits').select('sale_id').where('customer_id', '=', customer.id).execute()).length, rows.length);
});

test('a direct sale (no lead yet) is credited to its click alone, under every model', async () => {
  const link = await insertLink(t, { key: 'cred-direct' });
  const click = await insertClick(t, link);
  await dub.track.sale({ customerExternalId: 'cred-direct', clickId: click.click_id, amount: 700, paymentProcessor: 'stripe' });
  const customer = await t.ctx.database.db.selectFrom('customers').select('id').where('external_id', '=', 'cred-direct').executeTakeFirstOrThrow();
  const [sale] = await salesOf(customer.id);
  const rows = await creditsOf(sale!.id);
  assert.deepEqual(rows.map((r) => [r.model, r.click_id, Number(r.share), Number(r.cents)]), CREDITED_MODELS.map((m) => [m, click.click_id, 1, 700]).sort());
});
