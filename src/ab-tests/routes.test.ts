import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { insertLink, type FixtureLink } from '../test-support/conversions.js';
import { conversionEvent, type StoredEvent } from '../events/index.js';
import { newClickIdAt } from '../visitors/click-id.js';
import { newId } from '../ids.js';

let t: TestApp;
const HOUR = 3_600_000;
const A = 'https://shop.example.com/a';
const B = 'https://shop.example.com/b';

before(async () => {
  t = await createTestApp();
});
after(() => t.close());

/** A link with an A/B test between A and B, from two days ago to `completedAt`. */
async function abLink(completedAt: number): Promise<FixtureLink> {
  const now = Date.now();
  return insertLink(t, {
    url: A,
    test_variants: JSON.stringify([{ url: A, percentage: 50 }, { url: B, percentage: 50 }]),
    test_started_at: now - 48 * HOUR,
    test_completed_at: completedAt,
  });
}

/** `clicks` clicks on one variant, `leads` of them leading to a lead and `sales` to a 50 USD sale. */
async function traffic(link: FixtureLink, url: string, clicks: number, leads: number, sales = 0) {
  const rows: StoredEvent[] = [];
  const start = Date.now() - 40 * HOUR;
  for (let i = 0; i < clicks; i++) {
    const at = start + i * 60_000;
    const clickId = newClickIdAt(at);
    const click = {
      workspace_id: t.workspaceId, timestamp: at, id: clickId, kind: 'click', click_id: clickId, link_id: link.id, domain: link.domain, key: link.key,
      url: `${url}?dub_id=${clickId}`, country: 'DE', city: 'Berlin', region: 'DE-BE', continent: 'EU', device: 'Desktop', browser: 'Firefox', os: 'Linux',
      referer: '(direct)', referer_url: '(direct)', trigger: 'link', ip: '203.0.113.9', ua: 'test',
    } as StoredEvent;
    rows.push(click);
    const customer_id = `cus_${clickId}`;
    if (i < leads) rows.push(conversionEvent(click as never, { workspace_id: t.workspaceId, timestamp: at + 1000, id: newId('evt', at + 1000), kind: 'lead', customer_id, event_name: 'Sign up' }));
    if (i < sales) rows.push(conversionEvent(click as never, { workspace_id: t.workspaceId, timestamp: at + 2000, id: newId('evt', at + 2000), kind: 'sale', customer_id, event_name: 'Purchase', amount: 5000 }));
  }
  await t.ctx.events.append(rows);
}

test('a significant test, completed: per-variant figures, intervals and the winner', async () => {
  const link = await abLink(Date.now() - HOUR);
  await traffic(link, A, 200, 10, 4);
  await traffic(link, B, 200, 40, 12);
  const res = await t.inject({ method: 'GET', url: `/links/${link.id}/ab-test` });
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json();
  assert.equal(body.metric, 'leads');
  assert.deepEqual(body.variants.map((v: { url: string; clicks: number; leads: number; sales: number; saleAmount: number }) => [v.url, v.clicks, v.leads, v.sales, v.saleAmount]), [
    [A, 200, 10, 4, 20_000],
    [B, 200, 40, 12, 60_000],
  ]);
  assert.equal(body.variants[1].rate, 0.2);
  assert.ok(body.variants[1].interval.low < 0.2 && body.variants[1].interval.high > 0.2);
  assert.ok(body.variants[0].pValue < 0.001);
  assert.equal(body.verdict.status, 'significant');
  assert.equal(body.verdict.winner, B);
  assert.equal(body.verdict.outcome, 'winner');
  // The series adds up to the totals.
  const sum = (i: number, k: 'clicks' | 'leads') => body.timeseries.reduce((s: number, p: { variants: Record<string, number>[] }) => s + p.variants[i]![k]!, 0);
  assert.equal(sum(0, 'clicks'), 200);
  assert.equal(sum(1, 'leads'), 40);
  // The link object is as it was written: the result is not in it.
  const plain = (await t.inject({ method: 'GET', url: `/links/${link.id}` })).json();
  assert.deepEqual(plain.testVariants, [{ url: A, percentage: 50 }, { url: B, percentage: 50 }]);
  assert.equal(plain.url, A);
  assert.equal('verdict' in plain, false);
});

test('sales as the metric; not significant; the configured outcome', async () => {
  const link = await abLink(Date.now() - HOUR);
  await traffic(link, A, 150, 20, 3);
  await traffic(link, B, 150, 24, 4);
  const keep = (await t.inject({ method: 'GET', url: `/links/${link.id}/ab-test` })).json();
  assert.equal(keep.verdict.status, 'not_significant');
  assert.equal(keep.verdict.winner, null);
  assert.equal(keep.verdict.outcome, 'keep_splitting');
  const stop = (await t.inject({ method: 'GET', url: `/links/${link.id}/ab-test?metric=sales&onInconclusive=stop` })).json();
  assert.equal(stop.metric, 'sales');
  assert.equal(stop.verdict.status, 'insufficient_data', 'seven sales over 300 clicks: fewer than 5 expected per variant');
  assert.equal(stop.verdict.outcome, 'stop');
});

test('a running test has a leader but no winner yet', async () => {
  const link = await abLink(Date.now() + 24 * HOUR);
  await traffic(link, A, 200, 10);
  await traffic(link, B, 200, 40);
  const body = (await t.inject({ method: 'GET', url: `/links/${link.id}/ab-test` })).json();
  assert.equal(body.verdict.status, 'significant');
  assert.equal(body.verdict.leader, B);
  assert.equal(body.verdict.winner, null);
  assert.equal(body.verdict.outcome, 'running');
});

test('refusals: no test, bad metric, another workspace', async () => {
  const plain = await insertLink(t);
  const none = await t.inject({ method: 'GET', url: `/links/${plain.id}/ab-test` });
  assert.equal(none.statusCode, 404);
  assert.equal(none.json().error.code, 'not_found');
  const link = await abLink(Date.now());
  const bad = await t.inject({ method: 'GET', url: `/links/${link.id}/ab-test?metric=bounces` });
  assert.equal(bad.statusCode, 422);
  assert.equal(bad.json().error.code, 'unprocessable_entity');
  const other = await t.addWorkspace();
  const theirs = await t.inject({ method: 'GET', url: `/links/${link.id}/ab-test`, headers: other.headers });
  assert.equal(theirs.statusCode, 404);
  assert.equal(theirs.json().error.message, 'Link not found.');
});
