import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  decideSaleAttribution,
  isDuplicateLead,
  leadEventRows,
  normalizeLeadName,
  saleEventRow,
  type AttributionSource,
} from './attribution.js';

const click: AttributionSource = {
  click_id: 'c1', link_id: 'link_1', domain: 'go.example.com', key: 'abc', url: 'https://example.com/', country: 'DE', city: 'Berlin',
  region: 'DE-BE', continent: 'EU', device: 'Desktop', browser: 'Firefox', os: 'Linux', referer: '(direct)', referer_url: '(direct)',
  trigger: 'link', ip: '', ua: 'UA', utm_source: 'mail',
};

test('lead names are compared without case and with spaces as dashes', () => {
  assert.equal(normalizeLeadName('  Sign  Up '), 'sign-up');
  assert.ok(isDuplicateLead(['Sign up'], 'sign-up'));
  assert.ok(!isDuplicateLead(['Sign up'], 'Signed up'));
  assert.ok(!isDuplicateLead([], 'Sign up'));
});

test('N lead rows copy the click and get distinct ids', () => {
  let n = 0;
  const rows = leadEventRows(click, { workspaceId: 'ws_1', customerId: 'cus_1', eventName: 'Sign up', metadata: { a: 1 }, quantity: 3, now: 42, newEventId: () => `evt_${++n}` });
  assert.deepEqual(rows.map((r) => r.id), ['evt_1', 'evt_2', 'evt_3']);
  for (const r of rows) {
    assert.equal(r.kind, 'lead');
    assert.equal(r.timestamp, 42);
    assert.equal(r.link_id, 'link_1');
    assert.equal(r.country, 'DE');
    assert.equal(r.utm_source, 'mail');
    assert.equal(r.utm_medium, null);
    assert.equal(r.metadata, '{"a":1}');
  }
});

test('sale rows: new vs recurring, USD amount, original currency and amount', () => {
  const base = { workspaceId: 'ws_1', customerId: 'cus_1', eventName: 'Purchase', amountUsdCents: 1250, currency: 'eur', originalAmount: 1000, paymentProcessor: 'stripe', invoiceId: 'in_1', metadata: null, now: 1, eventId: 'evt_s' };
  const first = saleEventRow(click, { ...base, firstOnLink: true });
  assert.deepEqual([first.kind, first.sale_type, first.amount, first.currency, first.original_amount, first.invoice_id, first.metadata], ['sale', 'new', 1250, 'eur', 1000, 'in_1', null]);
  assert.equal(saleEventRow(click, { ...base, firstOnLink: false }).sale_type, 'recurring');
});

test('sale attribution decisions', () => {
  const d = (o: Partial<Parameters<typeof decideSaleAttribution>[0]>) =>
    decideSaleAttribution({ customerExists: true, matchingLeadFound: false, customerHasAnyLead: false, requestClickId: null, customerClickId: null, ...o });
  assert.deepEqual(d({ matchingLeadFound: true, customerHasAnyLead: true, requestClickId: 'x' }), { kind: 'lead' });
  assert.deepEqual(d({ customerHasAnyLead: true, requestClickId: 'x' }), { kind: 'lead-not-found' });
  assert.deepEqual(d({ requestClickId: 'x', customerClickId: 'y' }), { kind: 'direct', clickId: 'x' });
  assert.deepEqual(d({ customerClickId: 'y' }), { kind: 'direct', clickId: 'y' });
  assert.deepEqual(d({}), { kind: 'lead-not-found' });
  assert.deepEqual(d({ customerExists: false, requestClickId: 'x' }), { kind: 'direct', clickId: 'x' });
  assert.deepEqual(d({ customerExists: false }), { kind: 'none' });
  assert.deepEqual(d({ customerExists: false, requestClickId: '' }), { kind: 'none' });
});
