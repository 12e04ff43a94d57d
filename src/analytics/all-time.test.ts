/**
 * `interval=all` timeseries over events older than the workspace (imported or migrated): the
 * series starts at the first of them, ends at now, and its buckets add up to the totals. Runs on
 * the engine under test (TEST_EVENTS_URL, DATABASE_URL).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp, type TestWorkspace } from '../test-support/harness.js';
import type { StoredEvent } from '../events/index.js';
import { insertLink } from './testing.js';

// 15:00 UTC: hourly series of today have 16 buckets (00:00 … 15:00), none after now.
const NOW = Date.parse('2024-05-15T15:00:00.000Z');
const H = 3_600_000;
const D = 24 * H;

let t: TestApp;
let fresh: TestWorkspace;

function click(workspaceId: string, id: string, linkId: string, timestamp: number): StoredEvent {
  return {
    workspace_id: workspaceId, timestamp, id, kind: 'click', click_id: id, link_id: linkId, domain: 'go.test', key: linkId, url: 'https://example.com/',
    country: 'US', city: 'Austin', region: 'US-TX', continent: 'NA', device: 'Desktop', browser: 'Chrome', os: 'Mac OS', referer: '(direct)',
    referer_url: '(direct)', trigger: 'link', ip: '203.0.113.9', ua: 'Mozilla/5.0', utm_source: null, utm_medium: null, utm_campaign: null, utm_term: null,
    utm_content: null, customer_id: null, event_name: null, amount: 0, currency: null, original_amount: null, payment_processor: null, invoice_id: null,
    sale_type: null, metadata: null,
  };
}

before(async () => {
  t = await createTestApp({ now: () => NOW });
  fresh = await t.addWorkspace();
  const ws = t.workspaceId;
  await insertLink(t.database.db, { id: 'link_old', workspace_id: ws, domain: 'go.test', key: 'old', url: 'https://example.com/' });
  await insertLink(t.database.db, { id: 'link_new', workspace_id: ws, domain: 'go.test', key: 'new', url: 'https://example.com/' });
  // One click a day on link_old for the 31 days before the workspace was created (at NOW), two
  // clicks today on link_new, and a lead and a sale on the oldest click.
  const events: StoredEvent[] = [];
  for (let k = 1; k <= 31; k++) events.push(click(ws, `old_${k}`, 'link_old', NOW - k * D - 2 * H));
  events.push(click(ws, 'new_1', 'link_new', NOW - 3 * H), click(ws, 'new_2', 'link_new', NOW - 30 * 60_000));
  const oldest = events[30]!;
  events.push({ ...oldest, id: 'lead_1', kind: 'lead', timestamp: oldest.timestamp + H, customer_id: 'cus_1', event_name: 'Sign up' });
  events.push({ ...oldest, id: 'sale_1', kind: 'sale', timestamp: oldest.timestamp + 2 * H, customer_id: 'cus_1', event_name: 'Purchase', amount: 4200, currency: 'usd', original_amount: 4200, sale_type: 'new' });
  await t.ctx.events.append(events);
});
after(() => t.close());

async function get(query: string, headers?: Record<string, string>): Promise<any> {
  const res = await t.inject({ method: 'GET', url: `/analytics?${query}`, headers });
  assert.equal(res.statusCode, 200, `${query}: ${res.body}`);
  return res.json();
}

const sum = (rows: any[]) =>
  rows.reduce((a, r) => ({ clicks: a.clicks + r.clicks, leads: a.leads + r.leads, sales: a.sales + r.sales, saleAmount: a.saleAmount + r.saleAmount }), { clicks: 0, leads: 0, sales: 0, saleAmount: 0 });

describe('interval=all timeseries', () => {
  test('the workspace is newer than its events: the series starts at the first event, daily, and ends today', async () => {
    const created = (await t.database.db.selectFrom('workspaces').select('created_at').where('id', '=', t.workspaceId).executeTakeFirstOrThrow()).created_at;
    assert.equal(Number(created), NOW, 'the events predate the workspace');
    const series = await get('interval=all&groupBy=timeseries&event=composite');
    // The oldest click is 2024-04-14 13:00 UTC: daily buckets from that day to today.
    assert.equal(series.length, 32);
    assert.equal(series[0].start, '2024-04-14T00:00:00.000+0000');
    assert.equal(series.at(-1).start, '2024-05-15T00:00:00.000+0000');
    assert.deepEqual([series[0].clicks, series[0].leads, series[0].sales, series[0].saleAmount], [1, 1, 1, 4200]);
    assert.ok(series.slice(1, -1).every((b: any) => b.clicks === 1), 'one click on each day in between');
    assert.equal(series.at(-1).clicks, 2);
    assert.deepEqual(sum(series), await get('interval=all&event=composite'));
    assert.deepEqual(sum(series), { clicks: 33, leads: 1, sales: 1, saleAmount: 4200 });
  });

  test('the buckets add up to the totals in another zone and under a link filter', async () => {
    const la = await get('interval=all&groupBy=timeseries&event=composite&timezone=America/Los_Angeles');
    assert.equal(la[0].start, '2024-04-14T00:00:00.000-0700');
    assert.equal(la.at(-1).start, '2024-05-15T00:00:00.000-0700');
    assert.deepEqual(sum(la), await get('interval=all&event=composite&timezone=America/Los_Angeles'));
    const old = await get('interval=all&groupBy=timeseries&event=clicks&linkId=link_old');
    assert.equal(old[0].start, '2024-04-14T00:00:00.000+0000');
    assert.deepEqual(sum(old).clicks, 31);
  });

  test('a new workspace without events: the hours of today up to now, none to come', async () => {
    const series = await get('interval=all&groupBy=timeseries', fresh.headers);
    assert.equal(series.length, 16);
    assert.equal(series.at(-1).start, '2024-05-15T15:00:00.000+0000');
    assert.ok(series.every((b: any) => b.clicks === 0));
  });
});

describe('other ranges', () => {
  test('explicit dates ending today stop at the current hour; counts keep the whole day', async () => {
    const hours = await get('start=2024-05-15&end=2024-05-15&groupBy=timeseries');
    assert.equal(hours.length, 16);
    assert.equal(hours.at(-1).start, '2024-05-15T15:00:00.000+0000');
    assert.equal(sum(hours).clicks, 2);
    assert.equal((await get('start=2024-05-15&end=2024-05-15')).clicks, 2);
  });

  test('presets keep their published ranges: 24h ends at now, 30d at the end of today', async () => {
    const day = await get('interval=24h&groupBy=timeseries');
    assert.equal(day.at(-1).start, '2024-05-15T15:00:00.000+0000');
    const month = await get('interval=30d&groupBy=timeseries');
    assert.equal(month.at(-1).start, '2024-05-15T00:00:00.000+0000');
    assert.equal(sum(month).clicks, (await get('interval=30d')).clicks);
  });
});
