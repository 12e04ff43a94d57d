/**
 * The pure parts of the integrations: signature checks (against the `stripe` package's own
 * signer and hand-computed HMACs), the refund arithmetic, the secret box, amounts in major units,
 * and the mapping of each provider's payload to a sale, lead or refund.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { verifyPaddle, verifyShopify, verifyStripe } from './signatures.js';
import { refundStep } from './refunds.js';
import { createSecretBox, parseKey } from './secret-box.js';
import { majorToMinor, parseShopifyEvent } from './shopify.js';
import { parseStripeEvent } from './stripe.js';
import { parsePaddleEvent } from './paddle.js';

const stripe = new Stripe('sk_test_x');
const body = Buffer.from('{"id":"evt_1","type":"invoice.paid"}');
const now = 1_760_000_000_000;

test('Stripe: a header from stripe.webhooks.generateTestHeaderString verifies; other secrets, bodies and times do not', () => {
  const t = now / 1000;
  const header = stripe.webhooks.generateTestHeaderString({ payload: body.toString(), secret: 'whsec_a', timestamp: t });
  assert.deepEqual(verifyStripe(body, header, 'whsec_a', now), { ok: true });
  assert.deepEqual(verifyStripe(body, header, 'whsec_b', now), { ok: false, reason: 'mismatch' });
  assert.deepEqual(verifyStripe(Buffer.from(body.toString() + ' '), header, 'whsec_a', now), { ok: false, reason: 'mismatch' });
  assert.deepEqual(verifyStripe(body, header, 'whsec_a', now + 301_000), { ok: false, reason: 'expired' });
  assert.deepEqual(verifyStripe(body, header, 'whsec_a', now + 299_000), { ok: true });
  assert.deepEqual(verifyStripe(body, undefined, 'whsec_a', now), { ok: false, reason: 'missing' });
  assert.deepEqual(verifyStripe(body, 'v1=abc', 'whsec_a', now), { ok: false, reason: 'malformed' });
  // During a secret roll Stripe sends two v1 signatures; either may match.
  const sig = header.split('v1=')[1]!;
  assert.deepEqual(verifyStripe(body, `t=${t},v1=${'0'.repeat(64)},v1=${sig}`, 'whsec_a', now), { ok: true });
});

test('Paddle: ts=…;h1=… over "ts:body"; Shopify: base64 over the body', () => {
  const ts = now / 1000;
  const h1 = createHmac('sha256', 'pdl').update(`${ts}:${body}`).digest('hex');
  assert.deepEqual(verifyPaddle(body, `ts=${ts};h1=${h1}`, 'pdl', now), { ok: true });
  assert.deepEqual(verifyPaddle(body, `ts=${ts};h1=${h1}`, 'pdl', now + 600_000), { ok: false, reason: 'expired' });
  assert.deepEqual(verifyPaddle(body, `ts=${ts + 1};h1=${h1}`, 'pdl', now), { ok: false, reason: 'mismatch' });
  const mac = createHmac('sha256', 'shp').update(body).digest('base64');
  assert.deepEqual(verifyShopify(body, mac, 'shp'), { ok: true });
  assert.deepEqual(verifyShopify(body, mac.slice(1), 'shp'), { ok: false, reason: 'mismatch' });
});

test('refundStep: cumulative totals become increments, capped at the sale, summing to the sale in US cents', () => {
  const sale = { usdCents: 1000, original: 900 }; // e.g. 9.00 EUR sold for 10.00 USD
  const a = refundStep(sale, { original: 0, usdCents: 0 }, 300);
  assert.deepEqual(a, { original: 300, usdCents: 333, capped: false });
  const b = refundStep(sale, { original: 300, usdCents: 333 }, 900);
  assert.deepEqual(b, { original: 600, usdCents: 667, capped: false });
  assert.equal(a.usdCents + b.usdCents, 1000);
  assert.deepEqual(refundStep(sale, { original: 900, usdCents: 1000 }, 900), { original: 0, usdCents: 0, capped: false });
  assert.deepEqual(refundStep(sale, { original: 900, usdCents: 1000 }, 5000), { original: 0, usdCents: 0, capped: true });
  assert.deepEqual(refundStep(sale, { original: 0, usdCents: 0 }, 5000), { original: 900, usdCents: 1000, capped: true });
  // An older, smaller total delivered late records nothing.
  assert.deepEqual(refundStep(sale, { original: 600, usdCents: 667 }, 300), { original: 0, usdCents: 0, capped: false });
});

test('the secret box opens what it sealed, only with the same key and context', () => {
  const key = randomBytes(32);
  const box = createSecretBox({ key });
  const sealed = box.seal('whsec_secret', 'ws_1/stripe');
  assert.ok(!sealed.includes('whsec_secret'));
  assert.equal(box.open(sealed, 'ws_1/stripe'), 'whsec_secret');
  assert.equal(box.open(sealed, 'ws_2/stripe'), undefined);
  assert.equal(createSecretBox({ key: randomBytes(32) }).open(sealed, 'ws_1/stripe'), undefined);
  assert.notEqual(box.seal('whsec_secret', 'ws_1/stripe'), sealed, 'a fresh nonce each time');
  assert.equal(parseKey(key.toString('hex'))?.equals(key), true);
  assert.equal(parseKey(key.toString('base64'))?.equals(key), true);
  assert.equal(parseKey('short'), undefined);
});

test('majorToMinor: exact decimal conversion by the currency\'s digits', () => {
  assert.equal(majorToMinor('49.90', 'EUR'), 4990);
  assert.equal(majorToMinor('0.1', 'usd'), 10);
  assert.equal(majorToMinor('1200', 'JPY'), 1200);
  assert.equal(majorToMinor('1.5', 'JPY'), null);
  assert.equal(majorToMinor('1.234', 'KWD'), 1234);
  assert.equal(majorToMinor('-1.00', 'usd'), null);
  assert.equal(majorToMinor('1e3', 'usd'), null);
});

test('Stripe payloads: click ids from client_reference_id and metadata, invoice ids, refunds, leads', () => {
  const cs = parseStripeEvent({ id: 'evt_1', type: 'checkout.session.completed', data: { object: { id: 'cs_1', payment_status: 'paid', amount_total: 500, currency: 'usd', client_reference_id: 'dub_id_abc', payment_intent: 'pi_1', customer: 'cus_1', metadata: { dubCustomerExternalId: 'u1' } } } });
  assert.equal(cs?.intent.kind, 'sale');
  assert.deepEqual(cs?.intent.kind === 'sale' && [cs.intent.clickId, cs.intent.invoiceId, cs.intent.customer.externalId, cs.intent.customer.processorId], ['abc', 'pi_1', 'u1', 'cus_1']);
  const unpaid = parseStripeEvent({ id: 'evt_2', type: 'checkout.session.completed', data: { object: { id: 'cs_2', payment_status: 'unpaid', amount_total: 500, currency: 'usd' } } });
  assert.equal(unpaid?.intent.kind, 'ignore');
  const meta = parseStripeEvent({ id: 'evt_3', type: 'checkout.session.completed', data: { object: { id: 'cs_3', amount_total: 1, currency: 'usd', metadata: { dubClickId: 'xyz' } } } });
  assert.equal(meta?.intent.kind === 'sale' && meta.intent.clickId, 'xyz');
  const refund = parseStripeEvent({ id: 'evt_4', type: 'charge.refunded', data: { object: { amount_refunded: 100, currency: 'usd', invoice: 'in_1', payment_intent: { id: 'pi_9' } } } });
  assert.deepEqual(refund?.intent, { kind: 'refund', invoiceIds: ['in_1', 'pi_9'], refunded: { total: 100 }, currency: 'usd' });
  const noClick = parseStripeEvent({ id: 'evt_5', type: 'customer.created', data: { object: { id: 'cus_5', metadata: {} } } });
  assert.equal(noClick?.intent.kind, 'ignore');
  assert.equal(parseStripeEvent({ type: 'x' }), undefined);
  const trial = parseStripeEvent({ id: 'evt_6', type: 'invoice.paid', data: { object: { id: 'in_6', amount_paid: 0, currency: 'usd' } } });
  assert.equal(trial?.intent.kind, 'ignore');
});

test('Shopify and Paddle payloads', () => {
  const order = parseShopifyEvent({ id: 1, currency: 'USD', total_price: '5.00', note_attributes: [{ name: 'wm', value: 'c1' }] }, { topic: 'orders/paid', webhookId: 'w1' }, 'wm');
  assert.deepEqual(order?.intent.kind === 'sale' && [order.intent.clickId, order.intent.amount, order.intent.invoiceId], ['c1', 500, 'shopify_1']);
  assert.equal(parseShopifyEvent({ id: 1 }, { topic: 'orders/paid' }, 'wm'), undefined, 'no webhook id: not a Shopify delivery');
  const txn = parsePaddleEvent({ event_id: 'e1', event_type: 'transaction.completed', data: { id: 'txn_1', currency_code: 'EUR', custom_data: { waymark_id: 'c2' }, details: { totals: { grand_total: '1999' } } } });
  assert.deepEqual(txn?.intent.kind === 'sale' && [txn.intent.clickId, txn.intent.amount, txn.intent.currency], ['c2', 1999, 'EUR']);
  assert.equal(parsePaddleEvent({ event_id: 'e2', event_type: 'subscription.created', data: {} })?.intent.kind, 'ignore');
});

test('loadOrCreateKey: SECRETS_KEY wins; else the key file is created once (mode 0600) and read back', async () => {
  const { mkdtempSync, statSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { loadOrCreateKey } = await import('./secret-box.js');
  const dir = mkdtempSync(join(tmpdir(), 'wm-key-'));
  try {
    const file = join(dir, 'sub', 'secrets.key');
    const hex = randomBytes(32).toString('hex');
    assert.equal(loadOrCreateKey({ key: hex, file }).toString('hex'), hex);
    assert.throws(() => loadOrCreateKey({ key: 'abc', file }), /SECRETS_KEY/);
    const created = loadOrCreateKey({ file });
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.ok(loadOrCreateKey({ file }).equals(created), 'the second start reads the same key');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
