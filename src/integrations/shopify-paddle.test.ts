/**
 * Shopify `orders/paid` and Paddle `transaction.completed` end to end, signed as their docs
 * specify: Shopify's base64 HMAC-SHA256 of the raw body, Paddle's `ts=…;h1=…` HMAC-SHA256 of
 * `ts:body`. Sales, recurring sales, one sale per order or transaction id, refusals.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { insertClick, insertLink, readLink } from '../test-support/conversions.js';
import { integrationApp, type IntegrationHarness } from './testing.js';

const SHOPIFY_SECRET = 'shpss_0123456789abcdef0123456789abcdef';
const PADDLE_SECRET = 'pdl_ntfset_01h_secret_0123456789';

let h: IntegrationHarness;
before(async () => {
  h = await integrationApp();
  await h.t.modules.integrations.service.setSecret(h.t.workspaceId, 'shopify', SHOPIFY_SECRET);
  await h.t.modules.integrations.service.setSecret(h.t.workspaceId, 'paddle', PADDLE_SECRET);
});
after(() => h.t.close());

let seq = 0;
const shopifyHmac = (body: string, secret = SHOPIFY_SECRET) => createHmac('sha256', secret).update(body, 'utf8').digest('base64');
function postShopify(order: Record<string, unknown>, opts: { webhookId?: string; topic?: string; secret?: string } = {}) {
  const body = JSON.stringify(order);
  return h.post('shopify', body, {
    'x-shopify-topic': opts.topic ?? 'orders/paid',
    'x-shopify-webhook-id': opts.webhookId ?? `wh_${++seq}`,
    'x-shopify-hmac-sha256': shopifyHmac(body, opts.secret),
  });
}

const paddleSignature = (body: string, ts = Math.floor(Date.now() / 1000), secret = PADDLE_SECRET) =>
  `ts=${ts};h1=${createHmac('sha256', secret).update(`${ts}:${body}`).digest('hex')}`;
function postPaddle(data: Record<string, unknown>, opts: { eventId?: string; ts?: number; secret?: string } = {}) {
  const body = JSON.stringify({ event_id: opts.eventId ?? `evt_pdl_${++seq}`, event_type: 'transaction.completed', occurred_at: new Date().toISOString(), data });
  return h.post('paddle', body, { 'paddle-signature': paddleSignature(body, opts.ts, opts.secret) });
}

test('Shopify orders/paid with the click id in a cart attribute is a sale; the amount is converted from major units', async () => {
  const link = await insertLink(h.t);
  const click = await insertClick(h.t, link);
  const order = { id: 820982911946154500, admin_graphql_api_id: 'gid://shopify/Order/820982911946154508', name: '#1001', currency: 'EUR', current_total_price: '49.90', customer: { id: 115310627314723950, admin_graphql_api_id: 'gid://shopify/Customer/115310627314723954', email: 'shop@example.com', first_name: 'Sam', last_name: 'Shop' }, note_attributes: [{ name: 'waymark_id', value: click.click_id }] };
  const res = await postShopify(order, { webhookId: 'wh_order_1' });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().outcome, 'recorded', res.body);
  const usd = h.t.modules.tracking.currency.toUsdCents(4990, 'eur')!;
  assert.deepEqual([(await readLink(h.t, link.id)).sales, (await readLink(h.t, link.id)).sale_amount], [1, usd]);
  const [sale] = await h.waitFor('sale.created', 1, (e) => (e.data as { link?: { id: string } }).link?.id === link.id);
  assert.deepEqual((sale!.data as { sale: unknown }).sale, { amount: usd, currency: 'usd', paymentProcessor: 'shopify', invoiceId: 'shopify_820982911946154508' });

  // The same order again under another webhook id (Shopify re-sends on edits): still one sale.
  const again = await postShopify(order);
  assert.equal(again.json().outcome, 'duplicate', again.body);
  // The customer's next order, without a click id: found by the stored Shopify customer id.
  const next = await postShopify({ ...order, id: 820982911946154600, admin_graphql_api_id: 'gid://shopify/Order/820982911946154609', current_total_price: '10.00', note_attributes: [] });
  assert.equal(next.json().outcome, 'recorded', next.body);
  const row = await readLink(h.t, link.id);
  assert.deepEqual([row.sales, row.conversions], [2, 1]);
});

test('Shopify: the click id in the landing_site query works too; bad HMAC refused; replayed webhook id answered from the log', async () => {
  const link = await insertLink(h.t);
  const click = await insertClick(h.t, link);
  const order = { id: 5001, currency: 'USD', total_price: '12.00', email: 'land@example.com', customer: { id: 77 }, landing_site: `/products/x?dub_id=${click.click_id}&utm_source=ig` };
  const bad = await postShopify(order, { secret: 'wrong' });
  assert.equal(bad.statusCode, 400);
  const first = await postShopify(order, { webhookId: 'wh_land' });
  assert.equal(first.json().outcome, 'recorded', first.body);
  const replay = await postShopify(order, { webhookId: 'wh_land' });
  assert.deepEqual([replay.json().replay, replay.json().outcome], [true, 'recorded']);
  assert.equal((await readLink(h.t, link.id)).sale_amount, 1200);
  const other = await postShopify({ id: 9, currency: 'USD', total_price: '1.00' }, { topic: 'orders/create' });
  assert.equal(other.json().outcome, 'ignored');
});

test('Paddle transaction.completed: a first sale with custom_data, then a renewal found by the Paddle customer id', async () => {
  const link = await insertLink(h.t);
  const click = await insertClick(h.t, link);
  const txn = (id: string, origin: string, custom: Record<string, unknown>) => ({ id, status: 'completed', origin, customer_id: 'ctm_01paddle', currency_code: 'USD', custom_data: custom, details: { totals: { total: '2900', grand_total: '2900' } } });
  const first = await postPaddle(txn('txn_01first', 'web', { dub_id: click.click_id, dubCustomerExternalId: 'paddle-user-1' }));
  assert.equal(first.json().outcome, 'recorded', first.body);
  const renewal = await postPaddle(txn('txn_01renew', 'subscription_recurring', {}));
  assert.equal(renewal.json().outcome, 'recorded', renewal.body);
  const dup = await postPaddle(txn('txn_01renew', 'subscription_recurring', {}));
  assert.equal(dup.json().outcome, 'duplicate');
  const row = await readLink(h.t, link.id);
  assert.deepEqual([row.sales, row.sale_amount, row.conversions], [2, 5800, 1]);
  const customer = await h.t.inject({ method: 'GET', url: '/customers/ext_paddle-user-1' });
  assert.deepEqual([customer.json().sales, customer.json().saleAmount], [2, 5800]);
  assert.deepEqual(await h.totals(link.id), { leads: 1, sales: 2, saleAmount: 5800 });
});

test('Paddle: a stale timestamp and a wrong secret are refused; an unknown customer is skipped and kept', async () => {
  const data = { id: 'txn_stale', customer_id: 'ctm_nobody', currency_code: 'USD', custom_data: null, details: { totals: { grand_total: '100' } } };
  const stale = await postPaddle(data, { ts: Math.floor(Date.now() / 1000) - 3600 });
  assert.equal(stale.statusCode, 400);
  assert.match(stale.json().error.message, /tolerance/);
  const wrong = await postPaddle(data, { secret: 'nope' });
  assert.equal(wrong.statusCode, 400);
  const skipped = await postPaddle(data, { eventId: 'evt_pdl_unknown' });
  assert.equal(skipped.json().outcome, 'skipped', skipped.body);
  const kept = await h.t.ctx.database.db.selectFrom('integration_events').select(['payload', 'outcome']).where('event_id', '=', 'evt_pdl_unknown').executeTakeFirstOrThrow();
  assert.ok(kept.payload?.includes('txn_stale'));
});

test('Shopify refunds/create and Paddle approved refund adjustments take from net revenue, once per refund', async () => {
  const link = await insertLink(h.t);
  const click = await insertClick(h.t, link);
  await postShopify({ id: 6001, currency: 'USD', total_price: '50.00', customer: { id: 601 }, note_attributes: [{ name: 'dub_id', value: click.click_id }] });
  const refund = { id: 9001, order_id: 6001, transactions: [{ kind: 'refund', status: 'success', amount: '20.00', currency: 'USD' }, { kind: 'refund', status: 'failure', amount: '5.00', currency: 'USD' }] };
  const first = await postShopify(refund, { topic: 'refunds/create' });
  assert.equal(first.json().outcome, 'recorded', first.body);
  const again = await postShopify(refund, { topic: 'refunds/create' }); // another webhook id, the same refund
  assert.equal(again.json().replay, true, again.body);
  const tooMuch = await postShopify({ id: 9002, order_id: 6001, transactions: [{ kind: 'refund', status: 'success', amount: '45.00', currency: 'USD' }] }, { topic: 'refunds/create' });
  assert.match(tooMuch.json().message, /larger than the sale/);
  assert.deepEqual([(await readLink(h.t, link.id)).sales, (await readLink(h.t, link.id)).sale_amount], [1, 0]);

  const link2 = await insertLink(h.t);
  const click2 = await insertClick(h.t, link2);
  await postPaddle({ id: 'txn_refund', customer_id: 'ctm_refund', currency_code: 'USD', custom_data: { waymark_id: click2.click_id }, details: { totals: { grand_total: '3000' } } });
  const adjustment = (status: string) => ({ id: 'adj_01', action: 'refund', status, transaction_id: 'txn_refund', currency_code: 'USD', totals: { total: '1000' } });
  const post = (type: string, data: Record<string, unknown>) => {
    const body = JSON.stringify({ event_id: `evt_adj_${++seq}`, event_type: type, data });
    return h.post('paddle', body, { 'paddle-signature': paddleSignature(body) });
  };
  assert.equal((await post('adjustment.created', adjustment('pending_approval'))).json().outcome, 'ignored');
  assert.equal((await post('adjustment.updated', adjustment('approved'))).json().outcome, 'recorded');
  assert.equal((await post('adjustment.updated', adjustment('approved'))).json().replay, true);
  assert.deepEqual(await h.totals(link2.id), { leads: 1, sales: 1, saleAmount: 2000 });
});
