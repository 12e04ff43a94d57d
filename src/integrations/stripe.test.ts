/**
 * Stripe end to end, signed by the `stripe` package itself (webhooks.generateTestHeaderString):
 * Checkout sales with the click id in client_reference_id, recurring invoices found by the stored
 * Stripe customer id, refunds to net revenue, leads from customer.created, one sale per invoice
 * id shared with /track/sale, and every refusal (bad signature, old timestamp, replay, unknown
 * customer, unknown click, refund larger than the sale).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import Stripe from 'stripe';
import { insertClick, insertLink, readLink, type FixtureLink } from '../test-support/conversions.js';
import { integrationApp, type IntegrationHarness } from './testing.js';
import type { PublishedEvent } from '../webhooks/event-payloads.js';

const stripe = new Stripe('sk_test_waymark');
const SECRET = 'whsec_test_waymark_0123456789abcdef';

let h: IntegrationHarness;
let seq = 0;
before(async () => {
  h = await integrationApp();
  await h.t.modules.integrations.service.setSecret(h.t.workspaceId, 'stripe', SECRET);
});
after(() => h.t.close());

function event(type: string, object: Record<string, unknown>, id = `evt_${++seq}_${Date.now()}`): string {
  return JSON.stringify({ id, object: 'event', type, api_version: '2024-06-20', created: Math.floor(Date.now() / 1000), data: { object } });
}

async function deliver(body: string, opts: { secret?: string; timestamp?: number } = {}) {
  const header = stripe.webhooks.generateTestHeaderString({ payload: body, secret: opts.secret ?? SECRET, timestamp: opts.timestamp });
  return h.post('stripe', body, { 'stripe-signature': header });
}

async function clickOnNewLink(): Promise<{ link: FixtureLink; clickId: string }> {
  const link = await insertLink(h.t);
  const click = await insertClick(h.t, link);
  return { link, clickId: click.click_id };
}

const checkout = (over: Record<string, unknown>) => ({
  id: `cs_${++seq}`, object: 'checkout.session', mode: 'payment', payment_status: 'paid', amount_total: 4900, currency: 'usd',
  customer: null, invoice: null, payment_intent: `pi_${seq}`, customer_details: { email: `buyer${seq}@example.com`, name: 'Ada Buyer' }, metadata: {}, ...over,
});

test('the secret is stored sealed, not in clear', async () => {
  const row = await h.t.ctx.database.db.selectFrom('integrations').selectAll().where('workspace_id', '=', h.t.workspaceId).executeTakeFirstOrThrow();
  assert.equal(row.provider, 'stripe');
  assert.ok(!row.secret_sealed.includes(SECRET) && !row.secret_sealed.includes('waymark_0123'));
  assert.match(row.secret_sealed, /^v1:/);
});

test('checkout.session.completed with client_reference_id=dub_id_<click> is a sale like /track/sale', async () => {
  const { link, clickId } = await clickOnNewLink();
  const res = await deliver(event('checkout.session.completed', checkout({ client_reference_id: `dub_id_${clickId}`, customer: 'cus_checkout1', payment_intent: 'pi_checkout1', amount_total: 4900, currency: 'eur' })));
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().outcome, 'recorded', res.body);
  const row = await readLink(h.t, link.id);
  const eurToUsd = h.t.modules.tracking.currency.toUsdCents(4900, 'eur')!;
  assert.deepEqual([row.leads, row.sales, row.sale_amount, row.conversions], [1, 1, eurToUsd, 1]);
  const customer = await h.t.ctx.database.db.selectFrom('customers').selectAll().where('processor_customer_id', '=', 'cus_checkout1').executeTakeFirstOrThrow();
  assert.equal(customer.sale_amount, eurToUsd);
  const [sale] = await h.waitFor('sale.created', 1);
  const data = sale!.data as PublishedEvent<'sale.created'>['data'];
  assert.deepEqual(data.sale, { amount: eurToUsd, currency: 'usd', paymentProcessor: 'stripe', invoiceId: 'pi_checkout1' });
  assert.equal(data.click.id, clickId);
  assert.equal(data.link?.id, link.id);
  assert.deepEqual(await h.totals(link.id), { leads: 1, sales: 1, saleAmount: eurToUsd });
});

test('a subscription: the Checkout session and its first invoice are one sale; renewals are recurring sales of the stored Stripe customer', async () => {
  const { link, clickId } = await clickOnNewLink();
  const first = await deliver(event('checkout.session.completed', checkout({ mode: 'subscription', client_reference_id: `dub_id_${clickId}`, customer: 'cus_sub1', invoice: 'in_sub1_first', amount_total: 1500 })));
  assert.equal(first.json().outcome, 'recorded', first.body);
  const invoice = (id: string, reason: string) => ({ id, object: 'invoice', customer: 'cus_sub1', amount_paid: 1500, currency: 'usd', billing_reason: reason, metadata: {} });
  const same = await deliver(event('invoice.paid', invoice('in_sub1_first', 'subscription_create')));
  assert.equal(same.json().outcome, 'duplicate', same.body);
  for (const n of [2, 3]) {
    const renewal = await deliver(event('invoice.paid', invoice(`in_sub1_${n}`, 'subscription_cycle')));
    assert.equal(renewal.json().outcome, 'recorded', renewal.body);
  }
  const row = await readLink(h.t, link.id);
  assert.deepEqual([row.sales, row.sale_amount, row.conversions], [3, 4500, 1]);
  const types = await h.t.ctx.database.db.selectFrom('events').select(['sale_type', 'event_name']).where('link_id', '=', link.id).where('kind', '=', 'sale').orderBy('timestamp').execute();
  assert.deepEqual(types.map((r) => r.sale_type), ['new', 'recurring', 'recurring']);
  assert.equal(types[2]!.event_name, 'Subscription renewal');
});

test('a Stripe invoice and a /track/sale with the same invoice id are one sale, whichever comes first', async () => {
  const { link, clickId } = await clickOnNewLink();
  const lead = await h.t.inject({ method: 'POST', url: '/track/lead', payload: { clickId, eventName: 'Sign up', customerExternalId: 'app-user-7', mode: 'wait' } });
  assert.equal(lead.statusCode, 200, lead.body);
  const api = await h.t.inject({ method: 'POST', url: '/track/sale', payload: { customerExternalId: 'app-user-7', amount: 2000, invoiceId: 'in_shared_1', paymentProcessor: 'stripe' } });
  assert.equal(api.statusCode, 200, api.body);
  const viaStripe = await deliver(event('invoice.paid', { id: 'in_shared_1', customer: 'cus_app7', amount_paid: 2000, currency: 'usd', metadata: { dubCustomerExternalId: 'app-user-7' } }));
  assert.equal(viaStripe.json().outcome, 'duplicate', viaStripe.body);
  const second = await deliver(event('invoice.paid', { id: 'in_shared_2', customer: 'cus_app7', amount_paid: 2000, currency: 'usd', metadata: { dubCustomerExternalId: 'app-user-7' } }));
  assert.equal(second.json().outcome, 'recorded', second.body);
  const again = await h.t.inject({ method: 'POST', url: '/track/sale', payload: { customerExternalId: 'app-user-7', amount: 2000, invoiceId: 'in_shared_2', paymentProcessor: 'stripe' } });
  assert.equal(again.statusCode, 200, again.body);
  const row = await readLink(h.t, link.id);
  assert.deepEqual([row.sales, row.sale_amount], [2, 4000]);
  // The Stripe customer id is now stored on the customer: the API shows it.
  const customer = await h.t.inject({ method: 'GET', url: '/customers/ext_app-user-7' });
  assert.equal(customer.json().stripeCustomerId, 'cus_app7');
});

test('charge.refunded: partial, then the rest, then more than the sale; counters and analytics show net revenue, the sale count stays', async () => {
  const { link, clickId } = await clickOnNewLink();
  await deliver(event('checkout.session.completed', checkout({ client_reference_id: `dub_id_${clickId}`, customer: 'cus_refund1', payment_intent: 'pi_refund1', amount_total: 10_000 })));
  const refund = (refunded: number) => event('charge.refunded', { id: 'ch_refund1', object: 'charge', amount: 10_000, amount_refunded: refunded, currency: 'usd', payment_intent: 'pi_refund1', invoice: null });
  const partial = await deliver(refund(2500));
  assert.equal(partial.json().outcome, 'recorded', partial.body);
  assert.deepEqual(await h.totals(link.id), { leads: 1, sales: 1, saleAmount: 7500 });
  const rest = await deliver(refund(10_000));
  assert.equal(rest.json().outcome, 'recorded', rest.body);
  const tooMuch = await deliver(refund(12_000));
  assert.equal(tooMuch.json().outcome, 'duplicate', tooMuch.body);
  assert.match(tooMuch.json().message, /larger than the sale/);
  assert.deepEqual(await h.totals(link.id), { leads: 1, sales: 1, saleAmount: 0 });
  const row = await readLink(h.t, link.id);
  assert.deepEqual([row.sales, row.sale_amount], [1, 0]);
  const customer = await h.t.ctx.database.db.selectFrom('customers').selectAll().where('processor_customer_id', '=', 'cus_refund1').executeTakeFirstOrThrow();
  assert.deepEqual([customer.sales, customer.sale_amount], [1, 0]);
  // The events list shows the refunds as sales with a negative amount, valid for the SDK's schema.
  const events = await h.t.inject({ method: 'GET', url: `/events?event=sales&interval=all&linkId=${link.id}` });
  assert.equal(events.statusCode, 200, events.body);
  assert.deepEqual(events.json().map((e: { sale: { amount: number } }) => e.sale.amount).sort((a: number, b: number) => a - b), [-7500, -2500, 10_000]);
  // Credits were written with the sale and each refund (docs/decisions/0015): per model, the
  // sale's share 1 and its cents, each refund's share 0 and its negative cents, netting to 0.
  const credits = await h.t.ctx.database.db.selectFrom('credits').selectAll().where('sale_link_id', '=', link.id).execute();
  for (const model of ['first_click', 'linear', 'time_decay', 'position_based']) {
    const mine = credits.filter((c) => c.model === model);
    assert.deepEqual(mine.map((c) => [Number(c.share), Number(c.cents)]).sort((x, y) => x[1]! - y[1]!), [[0, -7500], [0, -2500], [1, 10_000]], model);
  }
});

test('a refund larger than the sale in one event is stopped at the sale amount', async () => {
  const { link, clickId } = await clickOnNewLink();
  await deliver(event('checkout.session.completed', checkout({ client_reference_id: `dub_id_${clickId}`, payment_intent: 'pi_over', amount_total: 3000 })));
  const res = await deliver(event('charge.refunded', { id: 'ch_over', amount_refunded: 9000, currency: 'usd', payment_intent: 'pi_over' }));
  assert.equal(res.json().outcome, 'recorded', res.body);
  assert.match(res.json().message, /larger than the sale/);
  assert.equal((await readLink(h.t, link.id)).sale_amount, 0);
});

test('customer.created with a click id in metadata is a lead; its later invoices find the customer', async () => {
  const { link, clickId } = await clickOnNewLink();
  const res = await deliver(event('customer.created', { id: 'cus_lead1', object: 'customer', email: 'lead1@example.com', name: 'Lea Lead', metadata: { dubClickId: clickId, dubCustomerExternalId: 'user-lead-1' } }));
  assert.equal(res.json().outcome, 'recorded', res.body);
  const paid = await deliver(event('invoice.paid', { id: 'in_lead1', customer: 'cus_lead1', amount_paid: 700, currency: 'usd' }));
  assert.equal(paid.json().outcome, 'recorded', paid.body);
  const row = await readLink(h.t, link.id);
  assert.deepEqual([row.leads, row.sales, row.sale_amount], [1, 1, 700]);
  const [lead] = await h.waitFor('lead.created', 1, (e) => (e.data as PublishedEvent<'lead.created'>['data']).link?.id === link.id);
  assert.equal((lead!.data as PublishedEvent<'lead.created'>['data']).customer.externalId, 'user-lead-1');
});

test('a bad signature, a wrong secret and an old timestamp are refused with 400 and record nothing', async () => {
  const { link, clickId } = await clickOnNewLink();
  const body = event('checkout.session.completed', checkout({ client_reference_id: `dub_id_${clickId}` }));
  const wrong = await deliver(body, { secret: 'whsec_someone_else' });
  assert.equal(wrong.statusCode, 400);
  assert.equal(wrong.json().error.code, 'bad_request');
  const old = await deliver(body, { timestamp: Math.floor(Date.now() / 1000) - 600 });
  assert.equal(old.statusCode, 400);
  assert.match(old.json().error.message, /tolerance/);
  const missing = await h.post('stripe', body, {});
  assert.equal(missing.statusCode, 400);
  const header = stripe.webhooks.generateTestHeaderString({ payload: body, secret: SECRET });
  const tampered = await h.post('stripe', body.replace('4900', '1'), { 'stripe-signature': header });
  assert.equal(tampered.statusCode, 400);
  assert.equal((await readLink(h.t, link.id)).sales, 0);
  // Another workspace's address does not take this workspace's secret.
  const other = await h.t.addWorkspace();
  const elsewhere = await h.post('stripe', body, { 'stripe-signature': header }, other.workspaceId);
  assert.equal(elsewhere.statusCode, 404);
  const unknownProvider = await h.post('lemonsqueezy' as never, body, { 'stripe-signature': header });
  assert.equal(unknownProvider.statusCode, 404);
  const valid = await h.post('stripe', body, { 'stripe-signature': header });
  assert.equal(valid.json().outcome, 'recorded', valid.body);
  assert.equal((await readLink(h.t, link.id)).sales, 1);
});

test('a replayed event id is answered from the log and counted once', async () => {
  const { link, clickId } = await clickOnNewLink();
  const body = event('checkout.session.completed', checkout({ client_reference_id: `dub_id_${clickId}`, amount_total: 1234 }));
  const first = await deliver(body);
  const replay = await deliver(body);
  assert.equal(first.json().replay, false);
  assert.deepEqual([replay.statusCode, replay.json().replay, replay.json().outcome], [200, true, 'recorded']);
  assert.deepEqual([(await readLink(h.t, link.id)).sales, (await readLink(h.t, link.id)).sale_amount], [1, 1234]);
});

test('an unknown customer and an unknown click are skipped, kept, and recorded on a later delivery once they exist', async () => {
  const noCustomer = event('invoice.paid', { id: 'in_unknown_1', customer: 'cus_nobody', amount_paid: 900, currency: 'usd' }, 'evt_unknown_customer');
  const skipped = await deliver(noCustomer);
  assert.deepEqual([skipped.statusCode, skipped.json().outcome], [200, 'skipped']);
  assert.match(skipped.json().message, /Unknown customer cus_nobody/);
  const kept = await h.t.ctx.database.db.selectFrom('integration_events').selectAll().where('event_id', '=', 'evt_unknown_customer').executeTakeFirstOrThrow();
  assert.equal(kept.payload, noCustomer);

  const unknownClick = await deliver(event('checkout.session.completed', checkout({ client_reference_id: 'dub_id_nosuchclick123' })));
  assert.equal(unknownClick.json().outcome, 'skipped');
  assert.match(unknownClick.json().message, /Click not found/);

  // The customer's lead arrives; Stripe's next delivery of the same event records the sale.
  const { link, clickId } = await clickOnNewLink();
  await h.t.inject({ method: 'POST', url: '/track/lead', payload: { clickId, eventName: 'Sign up', customerExternalId: 'late-user', mode: 'wait' } });
  await h.t.inject({ method: 'PATCH', url: '/customers/ext_late-user', payload: { stripeCustomerId: 'cus_nobody' } });
  const retried = await deliver(noCustomer);
  assert.deepEqual([retried.json().outcome, retried.json().replay], ['recorded', false], retried.body);
  assert.deepEqual([(await readLink(h.t, link.id)).sales, (await readLink(h.t, link.id)).sale_amount], [1, 900]);
});

test('events Waymark does not use are acknowledged as ignored', async () => {
  const res = await deliver(event('payment_intent.created', { id: 'pi_x' }));
  assert.deepEqual([res.statusCode, res.json().outcome], [200, 'ignored']);
});

test('concurrent deliveries: the same event five times, and three events plus /track/sale for one invoice, are one sale', async () => {
  const { link, clickId } = await clickOnNewLink();
  const lead = await h.t.inject({ method: 'POST', url: '/track/lead', payload: { clickId, eventName: 'Sign up', customerExternalId: 'race-user', mode: 'wait' } });
  assert.equal(lead.statusCode, 200, lead.body);
  const same = event('invoice.paid', { id: 'in_race_1', customer: 'cus_race', amount_paid: 500, currency: 'usd', metadata: { dubCustomerExternalId: 'race-user' } });
  const answers = await Promise.all(Array.from({ length: 5 }, () => deliver(same)));
  // One records; the others are answered from the log, or 409 while the first is still at work (Stripe retries those).
  assert.equal(answers.filter((r) => r.statusCode === 200 && !r.json().replay).length, 1, answers.map((r) => r.body).join('\n'));
  assert.ok(answers.every((r) => r.statusCode === 200 || r.statusCode === 409));
  const invoice = { id: 'in_race_2', customer: 'cus_race', amount_paid: 700, currency: 'usd', metadata: { dubCustomerExternalId: 'race-user' } };
  await Promise.all([
    ...Array.from({ length: 3 }, () => deliver(event('invoice.paid', invoice))),
    h.t.inject({ method: 'POST', url: '/track/sale', payload: { customerExternalId: 'race-user', amount: 700, invoiceId: 'in_race_2', paymentProcessor: 'stripe' } }),
  ]);
  const row = await readLink(h.t, link.id);
  assert.deepEqual([row.sales, row.sale_amount], [2, 1200]);
});
