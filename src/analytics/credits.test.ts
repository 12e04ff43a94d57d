/**
 * Analytics from the credits written with the sales against the read-time path
 * (docs/decisions/0015): over a generated data set, every model and several groupings and
 * filters, `attribution=<model>` (the default lookback: stored credits) equals the same query
 * with `lookbackDays=90` (read at query time) to the cent, and per model the revenue by link sums
 * to the total revenue. The data set is written around the roads (one append), then credited by
 * the backfill; half of it is credited again on the live road (`appendWithCredits`).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { insertLink, type FixtureLink } from '../test-support/conversions.js';
import { conversionEvent, type StoredEvent } from '../events/index.js';
import { clickIdOf } from '../visitors/click-id.js';
import { newId } from '../ids.js';
import { ATTRIBUTION_MODELS } from '../attribution/models.js';
import { appendWithCredits } from '../attribution/credit-writer.js';
import { seededRandom } from '../test-support/seeded-random.js';

let t: TestApp;
let links: FixtureLink[];
const DAY = 86_400_000;
let total = 0;
const COUNTRIES = ['DE', 'FR', 'US', 'GB'];
const SOURCES = ['newsletter', 'ads', null];

function click(link: FixtureLink, at: number, n: number, rnd: () => number): StoredEvent {
  const id = clickIdOf(at, n % 14_000_000, n);
  const country = COUNTRIES[Math.floor(rnd() * COUNTRIES.length)]!;
  return {
    workspace_id: t.workspaceId, timestamp: at, id, kind: 'click', click_id: id, link_id: link.id, domain: link.domain, key: link.key, url: link.url,
    country, city: 'X', region: `${country}-X`, continent: 'EU', device: rnd() < 0.5 ? 'Desktop' : 'Mobile', browser: 'Firefox', os: 'Linux',
    referer: '(direct)', referer_url: '(direct)', trigger: 'link', ip: '203.0.113.9', ua: 'test', utm_source: SOURCES[Math.floor(rnd() * SOURCES.length)] ?? null,
  } as StoredEvent;
}

before(async () => {
  t = await createTestApp();
  links = [];
  for (let i = 0; i < 7; i++) links.push(await insertLink(t, { key: `cred-${i}` }));
  // 400 customers over 200 days: 1-5 clicks on random links (some more than 90 days before a
  // sale, so the lookback matters), a lead on each, then 0-3 sales on the latest lead's click,
  // some of them refunds; a few sales without a customer.
  const rnd = seededRandom(1543);
  const early: StoredEvent[] = [];
  const late: StoredEvent[] = [];
  const start = Date.now() - 200 * DAY;
  let n = 1;
  for (let c = 0; c < 400; c++) {
    const customer = `cus_cred_${c}`;
    const rows = c % 2 ? late : early;
    let at = start + Math.floor(rnd() * 60 * DAY);
    let last: StoredEvent | undefined;
    for (let k = 1 + Math.floor(rnd() * 5); k > 0; k--) {
      const ck = click(links[Math.floor(rnd() * links.length)]!, at, n++, rnd);
      early.push(ck);
      rows.push(conversionEvent(ck as never, { workspace_id: t.workspaceId, timestamp: at + 60_000, id: newId('evt', at + 60_000), kind: 'lead', customer_id: customer, event_name: `Step ${k}` }));
      last = ck;
      at += Math.floor(rnd() * 40 * DAY);
    }
    for (let s = Math.floor(rnd() * 4); s > 0; s--) {
      const when = Math.min(at + Math.floor(rnd() * 30 * DAY), Date.now() - 60_000);
      const amount = rnd() < 0.15 ? -Math.floor(rnd() * 3000) : 1 + Math.floor(rnd() * 90_000);
      const buyer = rnd() < 0.03 ? null : customer;
      rows.push(conversionEvent(last as never, { workspace_id: t.workspaceId, timestamp: when, id: newId('evt', when), kind: 'sale', customer_id: buyer, event_name: 'Purchase', amount, sale_type: 'new' }));
      total += amount;
    }
  }
  // The clicks and half the customers written around the roads, then credited by the backfill;
  // the other half through the live road's function, one customer's events at a time in time order.
  await t.ctx.events.append(early);
  assert.ok((await t.modules.analytics.backfill.run({ restart: true })) > 0);
  const byCustomer = new Map<string, StoredEvent[]>();
  for (const r of late) byCustomer.set(r.customer_id ?? r.id, [...(byCustomer.get(r.customer_id ?? r.id) ?? []), r]);
  for (const rows of byCustomer.values()) {
    for (const r of rows.sort((a, b) => a.timestamp - b.timestamp)) {
      await t.ctx.database.db.transaction().execute((trx) => appendWithCredits(t.ctx.conversions, [r], trx));
    }
  }
  await t.ctx.conversions.afterCommit();
  assert.equal(await t.modules.analytics.backfill.done(), true);
});
after(() => t.close());

const get = async (query: string) => {
  const res = await t.inject({ method: 'GET', url: `/analytics?${query}` });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as Record<string, unknown>[];
};

/** A grouping's rows keyed by its value, with sales (4 decimals) and revenue. */
const keyed = (rows: Record<string, unknown>[], key: (r: Record<string, unknown>) => string) =>
  Object.fromEntries(rows.map((r) => [key(r), [Math.round(Number(r.sales) * 1e4) / 1e4, Number(r.saleAmount)]]).sort());

const GROUPINGS: { groupBy: string; key: (r: Record<string, unknown>) => string }[] = [
  { groupBy: 'top_links', key: (r) => String((r.link as { key: string }).key) },
  { groupBy: 'countries', key: (r) => String(r.country) },
  { groupBy: 'utm_sources', key: (r) => String(r.utm_source) },
  { groupBy: 'devices', key: (r) => String(r.device) },
];

test('stored credits answer as the read-time path, to the cent, for every model, grouping and filter', async () => {
  const filters = ['', '&country=DE', `&linkId=${links[2]!.id}`, '&device=Mobile'];
  let compared = 0;
  for (const model of ATTRIBUTION_MODELS.filter((m) => m !== 'last_click')) {
    for (const g of GROUPINGS) {
      for (const f of filters) {
        const q = `event=sales&groupBy=${g.groupBy}&interval=all&attribution=${model}${f}`;
        const stored = keyed(await get(q), g.key);
        const readTime = keyed(await get(`${q}&lookbackDays=90`), g.key);
        assert.deepEqual(stored, readTime, q);
        compared += Object.keys(stored).length;
      }
    }
  }
  assert.ok(compared > 100, `${compared} groups compared`);
  // The stored path read rows of every model (not an empty table answering like an empty journey).
  const models = await t.ctx.database.db.selectFrom('credits').select('model').distinct().where('workspace_id', '=', t.workspaceId).execute();
  assert.equal(models.length, 4);
});

test('per model, revenue by link sums to the total revenue, and the models differ', async () => {
  const count = (await t.inject({ method: 'GET', url: '/analytics?event=sales&groupBy=count&interval=all' })).json() as { saleAmount: number };
  assert.equal(count.saleAmount, total);
  const byModel = new Map<string, unknown>();
  for (const model of ATTRIBUTION_MODELS) {
    const rows = await get(`event=sales&groupBy=top_links&interval=all&attribution=${model}`);
    assert.equal(rows.reduce((s, r) => s + Number(r.saleAmount), 0), total, model);
    byModel.set(model, keyed(rows, GROUPINGS[0]!.key));
  }
  assert.notDeepEqual(byModel.get('first_click'), byModel.get('linear'));
  assert.notDeepEqual(byModel.get('time_decay'), byModel.get('position_based'));
});

test('a composite grouping under a model keeps its clicks and leads from the stored path', async () => {
  const plain = await get('event=composite&groupBy=top_links&interval=all');
  const linear = await get('event=composite&groupBy=top_links&interval=all&attribution=linear');
  const counts = (rows: Record<string, unknown>[]) => Object.fromEntries(rows.map((r) => [GROUPINGS[0]!.key(r), [r.clicks, r.leads]]));
  assert.deepEqual(counts(linear), counts(plain));
  assert.deepEqual(keyed(linear, GROUPINGS[0]!.key), keyed(await get('event=composite&groupBy=top_links&interval=all&attribution=linear&lookbackDays=90'), GROUPINGS[0]!.key));
});
