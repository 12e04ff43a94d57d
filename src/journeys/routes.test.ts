import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { insertClick, insertLink } from '../test-support/conversions.js';

let t: TestApp;
const DAY = 86_400_000;

before(async () => {
  t = await createTestApp();
});
after(() => t.close());

test("a customer's journey: clicks on two links, two leads and a sale, in time order, with each model's credit", async () => {
  const x = await insertLink(t, { key: 'journey-x' });
  const y = await insertLink(t, { key: 'journey-y' });
  const stranger = await insertClick(t, x, { timestamp: Date.now() - 2 * DAY });
  const c1 = await insertClick(t, x, { timestamp: Date.now() - 3 * DAY });
  const c2 = await insertClick(t, y, { timestamp: Date.now() - DAY });
  const track = async (url: string, payload: object) => {
    const res = await t.inject({ method: 'POST', url, payload });
    assert.equal(res.statusCode, 200, res.body);
  };
  await track('/track/lead', { clickId: c1.click_id, eventName: 'Sign up', customerExternalId: 'journey-1' });
  await track('/track/lead', { clickId: c2.click_id, eventName: 'Trial', customerExternalId: 'journey-1' });
  await track('/track/sale', { customerExternalId: 'journey-1', amount: 9001, invoiceId: 'inv-journey-1' });

  const res = await t.inject({ method: 'GET', url: '/customers/ext_journey-1/journey' });
  assert.equal(res.statusCode, 200, res.body);
  const j = res.json();
  assert.equal(j.customer.externalId, 'journey-1');
  assert.deepEqual(
    j.events.map((e: { event: string; link: { key: string }; eventName: string | null }) => [e.event, e.link.key, e.eventName]),
    [
      ['click', 'journey-x', null],
      ['click', 'journey-y', null],
      ['lead', 'journey-x', 'Sign up'],
      ['lead', 'journey-y', 'Trial'],
      ['sale', 'journey-y', 'Purchase'],
    ],
  );
  assert.ok(!j.events.some((e: { clickId: string }) => e.clickId === stranger.click_id), "another visitor's click is not in the journey");
  const times = j.events.map((e: { timestamp: string }) => Date.parse(e.timestamp));
  assert.deepEqual([...times].sort((a, b) => a - b), times);
  assert.equal(j.events[4].saleAmount, 9001);
  const credit = (model: string) => j.attribution[model].map((c: { key: string; saleAmount: number; sales: number }) => [c.key, c.saleAmount, c.sales]);
  assert.deepEqual(credit('last_click'), [['journey-y', 9001, 1]]);
  assert.deepEqual(credit('first_click'), [['journey-x', 9001, 1]]);
  assert.deepEqual(credit('linear'), [['journey-x', 4501, 0.5], ['journey-y', 4500, 0.5]]);
  assert.deepEqual(credit('position_based'), [['journey-x', 4501, 0.5], ['journey-y', 4500, 0.5]]);
  // Time decay, 7-day half-life: clicks 3 and 1 days before the sale weigh 2^(-3/7) and 2^(-1/7).
  const [older, newer] = [Math.pow(2, -3 / 7), Math.pow(2, -1 / 7)];
  const td = j.attribution.time_decay as { key: string; saleAmount: number }[];
  assert.equal(td.find((c) => c.key === 'journey-y')!.saleAmount, Math.round((9001 * newer) / (older + newer)));
  // A 2-day lookback leaves the first click out.
  const short = (await t.inject({ method: 'GET', url: '/customers/ext_journey-1/journey?lookbackDays=2' })).json();
  assert.deepEqual(short.attribution.first_click.map((c: { key: string }) => c.key), ['journey-y']);
});

test('journey refusals: unknown customer, bad lookback, another workspace', async () => {
  const missing = await t.inject({ method: 'GET', url: '/customers/cus_nothing/journey' });
  assert.equal(missing.statusCode, 404);
  assert.equal(missing.json().error.code, 'not_found');
  const bad = await t.inject({ method: 'GET', url: '/customers/ext_journey-1/journey?lookbackDays=0' });
  assert.equal(bad.statusCode, 422);
  const other = await t.addWorkspace();
  const theirs = await t.inject({ method: 'GET', url: '/customers/ext_journey-1/journey', headers: other.headers });
  assert.equal(theirs.statusCode, 404);
});
