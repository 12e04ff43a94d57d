import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { insertLink, type FixtureLink } from '../test-support/conversions.js';
import { conversionEvent, type StoredEvent } from '../events/index.js';
import { clickIdOf } from '../visitors/click-id.js';
import { newId } from '../ids.js';
import { ATTRIBUTION_MODELS } from '../attribution/models.js';
import { seededRandom } from '../test-support/seeded-random.js';

let t: TestApp;
let links: FixtureLink[];
const DAY = 86_400_000;
let total = 0;
let saleCount = 0;

function click(link: FixtureLink, at: number, n: number): StoredEvent {
  const id = clickIdOf(at, n % 14_000_000, n);
  return {
    workspace_id: t.workspaceId, timestamp: at, id, kind: 'click', click_id: id, link_id: link.id, domain: link.domain, key: link.key, url: link.url,
    country: 'DE', city: 'Berlin', region: 'DE-BE', continent: 'EU', device: 'Desktop', browser: 'Firefox', os: 'Linux', referer: '(direct)', referer_url: '(direct)',
    trigger: 'link', ip: '203.0.113.9', ua: 'test',
  } as StoredEvent;
}

before(async () => {
  t = await createTestApp();
  links = [];
  for (let i = 0; i < 6; i++) links.push(await insertLink(t, { key: `attr-${i}` }));
  // 300 customers: 1-4 clicks on random links over 60 days, a lead on each click, then 0-2
  // sales on the latest lead's click (as /track/sale attributes them), some of them refunds.
  const rnd = seededRandom(43);
  const rows: StoredEvent[] = [];
  const start = Date.now() - 80 * DAY;
  let n = 1;
  for (let c = 0; c < 300; c++) {
    const customer = `cus_attr_${c}`;
    let at = start + Math.floor(rnd() * 20 * DAY);
    let last: StoredEvent | undefined;
    for (let k = 1 + Math.floor(rnd() * 4); k > 0; k--) {
      const ck = click(links[Math.floor(rnd() * links.length)]!, at, n++);
      rows.push(ck, conversionEvent(ck as never, { workspace_id: t.workspaceId, timestamp: at + 60_000, id: newId('evt', at + 60_000), kind: 'lead', customer_id: customer, event_name: `Step ${k}` }));
      last = ck;
      at += Math.floor(rnd() * 15 * DAY);
    }
    for (let s = Math.floor(rnd() * 3); s > 0; s--) {
      const when = at + Math.floor(rnd() * 5 * DAY);
      const amount = rnd() < 0.1 ? -Math.floor(rnd() * 2000) : 1 + Math.floor(rnd() * 50_000);
      rows.push(conversionEvent(last as never, { workspace_id: t.workspaceId, timestamp: when, id: newId('evt', when), kind: 'sale', customer_id: customer, event_name: 'Purchase', amount }));
      total += amount;
      // A refund (a negative sale) adds to revenue, not to the count of sales (docs/decisions/0006).
      if (amount >= 0) saleCount++;
    }
  }
  await t.ctx.events.append(rows);
  // Written around the roads that credit a sale: the backfill credits them (docs/decisions/0015).
  await t.modules.analytics.backfill.run({ restart: true });
});
after(() => t.close());

const get = async (query: string) => {
  const res = await t.inject({ method: 'GET', url: `/analytics?${query}` });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
};

test('every model credits exactly the total revenue across links, on a generated data set', async () => {
  const count = await get('event=sales&groupBy=count&interval=all');
  assert.equal(count.saleAmount, total);
  assert.equal(count.sales, saleCount);
  const byModel = new Map<string, Record<string, number>>();
  for (const model of ATTRIBUTION_MODELS) {
    const rows: { link: { key: string }; sales: number; saleAmount: number }[] = await get(`event=sales&groupBy=top_links&interval=all&attribution=${model}`);
    assert.equal(rows.reduce((s, r) => s + r.saleAmount, 0), total, `${model}: revenue by link sums to the total`);
    assert.ok(Math.abs(rows.reduce((s, r) => s + r.sales, 0) - saleCount) < 0.01, `${model}: sales by link sum to the count`);
    byModel.set(model, Object.fromEntries(rows.map((r) => [r.link.key, r.saleAmount])));
  }
  // Absent is today's answer, and the same as last_click.
  const plain: { link: { key: string }; saleAmount: number }[] = await get('event=sales&groupBy=top_links&interval=all');
  assert.deepEqual(Object.fromEntries(plain.map((r) => [r.link.key, r.saleAmount])), byModel.get('last_click'));
  assert.notDeepEqual(byModel.get('first_click'), byModel.get('last_click'));
  assert.notDeepEqual(byModel.get('linear'), byModel.get('time_decay'));
  // The totals of a count do not depend on the model.
  assert.deepEqual(await get('event=sales&groupBy=count&interval=all&attribution=linear'), count);
});

test('a composite grouping keeps its clicks and leads; a short lookback moves credit to later clicks', async () => {
  const plain: { link: { key: string }; clicks: number; leads: number }[] = await get('event=composite&groupBy=top_links&interval=all');
  const linear: { link: { key: string }; clicks: number; leads: number }[] = await get('event=composite&groupBy=top_links&interval=all&attribution=linear');
  const counts = (rows: typeof plain) => Object.fromEntries(rows.map((r) => [r.link.key, [r.clicks, r.leads]]));
  assert.deepEqual(counts(linear), counts(plain));
  const long: { saleAmount: number }[] = await get('event=sales&groupBy=top_links&interval=all&attribution=first_click');
  const short: { link: { key: string }; saleAmount: number }[] = await get('event=sales&groupBy=top_links&interval=all&attribution=first_click&lookbackDays=1');
  assert.equal(short.reduce((s, r) => s + r.saleAmount, 0), total);
  assert.notDeepEqual(short, long);
  // Other groupings share the credit by the touched clicks' own dimensions.
  const countries: { country: string; saleAmount: number }[] = await get('event=sales&groupBy=countries&interval=all&attribution=position_based');
  assert.deepEqual(countries.map((r) => [r.country, r.saleAmount]), [['DE', total]]);
});

test('a bad model or lookback is refused with the error body', async () => {
  const bad = await t.inject({ method: 'GET', url: '/analytics?event=sales&groupBy=top_links&attribution=u_shaped' });
  assert.equal(bad.statusCode, 422);
  assert.match(bad.json().error.message, /attribution/);
  const days = await t.inject({ method: 'GET', url: '/analytics?event=sales&groupBy=top_links&attribution=linear&lookbackDays=9999' });
  assert.equal(days.statusCode, 422);
});
