import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Dub } from 'dub';
import * as errors from 'dub/models/errors';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { insertClick, insertLink } from '../test-support/conversions.js';

let t: TestApp;
let dub: Dub;
before(async () => {
  t = await createTestApp();
  dub = new Dub({ token: t.key, serverURL: await t.listen() });
});
after(() => t.close());

const s = (n: number) => 'x'.repeat(n);
/** Metadata whose JSON text is exactly `n` characters: `{"k":"…"}` adds 8. */
const metadataOf = (n: number) => ({ k: s(n - 8) });

const lead = { clickId: 'c1', eventName: 'Sign up', customerExternalId: 'u1' };
const sale = { customerExternalId: 'u1', amount: 100 };

// [description, body, field named in the message, zod code]
const leadCases: [string, Record<string, unknown>, string, string][] = [
  ['clickId missing', { eventName: 'Sign up', customerExternalId: 'u1' }, 'clickId', 'invalid_type'],
  ['eventName missing', { clickId: 'c1', customerExternalId: 'u1' }, 'eventName', 'invalid_type'],
  ['eventName empty', { ...lead, eventName: '' }, 'eventName', 'too_small'],
  ['eventName only spaces', { ...lead, eventName: '   ' }, 'eventName', 'too_small'],
  ['eventName 256', { ...lead, eventName: s(256) }, 'eventName', 'too_big'],
  ['customerExternalId missing', { clickId: 'c1', eventName: 'Sign up' }, 'customerExternalId', 'invalid_type'],
  ['customerExternalId empty', { ...lead, customerExternalId: '' }, 'customerExternalId', 'too_small'],
  ['customerExternalId 101', { ...lead, customerExternalId: s(101) }, 'customerExternalId', 'too_big'],
  ['customerName 101', { ...lead, customerName: s(101) }, 'customerName', 'too_big'],
  ['customerEmail 101', { ...lead, customerEmail: `${s(89)}@example.com` }, 'customerEmail', 'too_big'],
  ['customerEmail not an email', { ...lead, customerEmail: 'not-an-email' }, 'customerEmail', 'invalid_format'],
  ['customerAvatar not a URL', { ...lead, customerAvatar: 'not a url' }, 'customerAvatar', 'invalid_format'],
  ['mode unknown', { ...lead, mode: 'sync' }, 'mode', 'invalid_value'],
  ['eventQuantity 0', { ...lead, eventQuantity: 0 }, 'eventQuantity', 'too_small'],
  ['eventQuantity 101', { ...lead, eventQuantity: 101 }, 'eventQuantity', 'too_big'],
  ['eventQuantity 1.5', { ...lead, eventQuantity: 1.5 }, 'eventQuantity', 'invalid_type'],
  ['metadata 10001 chars', { ...lead, metadata: metadataOf(10_001) }, 'metadata', 'custom'],
  ['metadata not an object', { ...lead, metadata: [1, 2] }, 'metadata', 'invalid_type'],
];

const saleCases: [string, Record<string, unknown>, string, string][] = [
  ['customerExternalId missing', { amount: 100 }, 'customerExternalId', 'invalid_type'],
  ['customerExternalId empty', { ...sale, customerExternalId: '' }, 'customerExternalId', 'too_small'],
  ['customerExternalId 101', { ...sale, customerExternalId: s(101) }, 'customerExternalId', 'too_big'],
  ['amount missing', { customerExternalId: 'u1' }, 'amount', 'invalid_type'],
  ['amount negative', { ...sale, amount: -1 }, 'amount', 'too_small'],
  ['amount not an integer', { ...sale, amount: 10.5 }, 'amount', 'invalid_type'],
  ['amount a string', { ...sale, amount: '100' }, 'amount', 'invalid_type'],
  ['currency not 3 letters', { ...sale, currency: 'EURO' }, 'currency', 'invalid_format'],
  ['eventName 256', { ...sale, eventName: s(256) }, 'eventName', 'too_big'],
  ['paymentProcessor unknown', { ...sale, paymentProcessor: 'cash' }, 'paymentProcessor', 'invalid_value'],
  ['invoiceId 256', { ...sale, invoiceId: s(256) }, 'invoiceId', 'too_big'],
  ['metadata 10001 chars', { ...sale, metadata: metadataOf(10_001) }, 'metadata', 'custom'],
  ['leadEventName 256', { ...sale, leadEventName: s(256) }, 'leadEventName', 'too_big'],
  ['customerName 101', { ...sale, customerName: s(101) }, 'customerName', 'too_big'],
  ['customerEmail not an email', { ...sale, customerEmail: 'nope' }, 'customerEmail', 'invalid_format'],
  ['customerAvatar not a URL', { ...sale, customerAvatar: 'nope' }, 'customerAvatar', 'invalid_format'],
];

for (const [name, payload, field, code] of leadCases) {
  test(`POST /track/lead: ${name} → 422 naming ${field}`, async () => {
    const res = await t.inject({ method: 'POST', url: '/track/lead', payload });
    assert.equal(res.statusCode, 422, res.body);
    const error = res.json().error;
    assert.equal(error.code, 'unprocessable_entity');
    assert.match(error.message, new RegExp(`^${code}: ${field}: `));
  });
}

for (const [name, payload, field, code] of saleCases) {
  test(`POST /track/sale: ${name} → 422 naming ${field}`, async () => {
    const res = await t.inject({ method: 'POST', url: '/track/sale', payload });
    assert.equal(res.statusCode, 422, res.body);
    assert.match(res.json().error.message, new RegExp(`^${code}: ${field}: `));
  });
}

test('the SDK surfaces a limit violation as UnprocessableEntity', async () => {
  await assert.rejects(
    () => dub.track.lead({ clickId: 'c1', eventName: s(256), customerExternalId: 'u1' }),
    (err) => err instanceof errors.UnprocessableEntity && /eventName/.test(err.message),
  );
});

test('values exactly at every limit are accepted', async () => {
  const link = await insertLink(t);
  const click = await insertClick(t, link);
  const res = await dub.track.lead({
    clickId: click.click_id,
    eventName: s(255),
    customerExternalId: s(100),
    customerName: s(100),
    customerEmail: `${s(88)}@example.com`,
    eventQuantity: 100,
    metadata: metadataOf(10_000),
    mode: 'wait',
  });
  assert.equal(res.customer.externalId, s(100));
  assert.equal(res.customer.email?.length, 100);
  const saleRes = await dub.track.sale({
    customerExternalId: s(100),
    amount: 0 + 1,
    eventName: s(255),
    invoiceId: s(255),
    leadEventName: s(255),
    metadata: metadataOf(10_000),
  });
  assert.equal(saleRes.sale?.invoiceId, s(255));
  assert.equal(JSON.stringify(saleRes.sale?.metadata).length, 10_000);
});
