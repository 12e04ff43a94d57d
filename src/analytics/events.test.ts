/**
 * GET /events against the seeded fixture: records, pagination, sorting, filters, plan gating,
 * permissions and validation limits.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { SEED_NOW, seedAnalytics } from './testing.js';

let t: TestApp;

before(async () => {
  t = await createTestApp({ now: () => SEED_NOW });
  const other = await t.addWorkspace();
  await seedAnalytics(t.database.db, t.ctx.events, t.workspaceId, other.workspaceId);
});
after(() => t.close());

async function list(query: string): Promise<any[]> {
  const res = await t.inject({ method: 'GET', url: `/events?${query}` });
  assert.equal(res.statusCode, 200, `${query}: ${res.body}`);
  return res.json();
}
const ids = (rows: any[]) => rows.map((r) => r.eventId ?? r.click.id);

describe('records', () => {
  test('clicks of the last 24h, newest first, with the nested and the deprecated flat fields', async () => {
    const rows = await list('');
    assert.deepEqual(ids(rows), ['c1', 'c2', 'c3', 'c7', 'c9', 'c4']);
    const c1 = rows[0];
    assert.equal(c1.event, 'click');
    assert.equal(c1.timestamp, '2024-05-15T02:00:00.000Z');
    assert.deepEqual(c1.click, {
      id: 'c1', timestamp: '2024-05-15T02:00:00.000Z', url: 'https://example.com/a?utm_source=news', country: 'US', city: 'San Francisco',
      region: 'US-CA', continent: 'NA', device: 'Desktop', browser: 'Chrome', os: 'Mac OS', trigger: 'link', referer: 'google.com',
      refererUrl: 'https://google.com/search', qr: false, ip: '203.0.113.9',
    });
    assert.equal(c1.link.id, 'link_a');
    assert.equal(c1.link.shortLink, 'https://go.test/a');
    assert.equal(c1.link.tags[0].name, 'Newsletter');
    assert.deepEqual(
      [c1.click_id, c1.link_id, c1.domain, c1.key, c1.url, c1.continent, c1.country, c1.city, c1.device, c1.browser, c1.os, c1.qr, c1.ip],
      ['c1', 'link_a', 'go.test', 'a', 'https://example.com/a?utm_source=news', 'NA', 'US', 'San Francisco', 'Desktop', 'Chrome', 'Mac OS', 0, '203.0.113.9'],
    );
    assert.equal(rows[1].qr, 1);
    assert.equal(rows[1].click.qr, true);
  });

  test('leads carry the event, its metadata and the customer (a deleted one as the placeholder)', async () => {
    const rows = await list('event=leads');
    assert.deepEqual(ids(rows), ['l1', 'l5', 'l3']);
    assert.deepEqual(
      { event: rows[0].event, eventId: rows[0].eventId, eventName: rows[0].eventName, metadata: rows[0].metadata, clickId: rows[0].click.id },
      { event: 'lead', eventId: 'l1', eventName: 'Sign up', metadata: { plan: 'pro', seats: 3 }, clickId: 'c1' },
    );
    assert.deepEqual(rows[0].customer, {
      id: 'cus_1', name: 'Ada', email: 'ada@example.com', avatar: null, externalId: 'ext-cus_1', country: 'US', createdAt: new Date(SEED_NOW - 100 * 86_400_000).toISOString(),
    });
    assert.deepEqual(rows[1].customer, {
      id: 'cus_5', name: 'Deleted Customer', email: 'deleted@customer.com', avatar: null, externalId: 'cus_5', country: null, createdAt: '1970-01-01T00:00:00.000Z',
    });
    assert.equal(rows[2].metadata.plan, 'free');
  });

  test('sales carry the sale object and the deprecated flat sale fields', async () => {
    const rows = await list('event=sales');
    assert.deepEqual(ids(rows), ['s2', 's1', 's4']);
    assert.deepEqual(rows[1].sale, { amount: 5000, invoiceId: 'inv_1', paymentProcessor: 'stripe', currency: 'usd' });
    assert.deepEqual([rows[1].saleAmount, rows[1].invoice_id, rows[1].payment_processor], [5000, 'inv_1', 'stripe']);
    assert.deepEqual(rows[2].sale, { amount: 700, invoiceId: null, paymentProcessor: 'custom', currency: 'usd' });
    assert.deepEqual([rows[2].invoice_id, rows[2].payment_processor], ['', 'custom']);
    assert.equal(rows[1].customer.id, 'cus_1');
  });
});

describe('pagination and sorting', () => {
  test('page and limit', async () => {
    assert.deepEqual(ids(await list('limit=2')), ['c1', 'c2']);
    assert.deepEqual(ids(await list('limit=2&page=2')), ['c3', 'c7']);
    assert.deepEqual(ids(await list('limit=2&page=3')), ['c9', 'c4']);
    assert.deepEqual(await list('limit=2&page=4'), []);
  });

  test('sortOrder, and the deprecated order', async () => {
    const asc = ['c4', 'c9', 'c7', 'c3', 'c2', 'c1'];
    assert.deepEqual(ids(await list('sortOrder=asc')), asc);
    assert.deepEqual(ids(await list('order=asc')), asc);
    assert.deepEqual(ids(await list('sortOrder=asc&order=desc')), asc); // what the SDK sends for sortOrder: 'asc'
    assert.deepEqual(ids(await list('sortOrder=desc&sortBy=timestamp')), [...asc].reverse());
    assert.deepEqual(ids(await list('sortOrder=asc&limit=2&page=2')), ['c7', 'c3']);
  });
});

describe('filters', () => {
  test('the same filters as analytics', async () => {
    assert.deepEqual(ids(await list('interval=all&country=DE')), ['c3', 'c11']);
    assert.deepEqual(ids(await list('interval=all&linkId=link_off')), ['c8']);
    assert.deepEqual(ids(await list(`interval=all&event=leads&domain=go.test&key=b`)), ['l2']);
    assert.deepEqual(ids(await list("interval=all&event=sales&query=metadata['plan']:'pro'")), ['s1']);
    assert.deepEqual(ids(await list('interval=all&event=sales&saleType=recurring')), ['s2']);
    assert.deepEqual(ids(await list('interval=all&event=sales&customerId=cus_3')), ['s4']);
    assert.deepEqual(ids(await list('interval=all&customerId=cus_1')), ['c1']);
    assert.deepEqual(ids(await list('interval=all&trigger=qr')), ['c2']);
    assert.deepEqual(ids(await list('interval=mtd&timezone=America/Los_Angeles&sortOrder=asc&limit=3')), ['c11', 'c10', 'c4']);
  });

  test('events of a deleted link are dropped', async () => {
    const before = ids(await list('interval=all&limit=1000'));
    assert.ok(before.includes('c7'));
    await t.database.db.deleteFrom('links').where('id', '=', 'link_root').execute();
    const afterDelete = ids(await list('interval=all&limit=1000'));
    assert.deepEqual(afterDelete, before.filter((id) => id !== 'c7'));
  });
});

describe('access', () => {
  test('the event list needs the business plan or higher', async () => {
    for (const plan of ['pro', 'free'] as const) {
      const ws = await t.addWorkspace(plan);
      const res = await t.inject({ method: 'GET', url: '/events', headers: ws.headers });
      assert.equal(res.statusCode, 403, plan);
      assert.equal(res.json().error.code, 'forbidden');
      assert.match(res.json().error.message, /Business plan or higher/);
    }
    const business = await t.addWorkspace('business');
    assert.equal((await t.inject({ method: 'GET', url: '/events', headers: business.headers })).statusCode, 200);
  });

  test('analytics: any paid plan; free plans are refused', async () => {
    const pro = await t.addWorkspace('pro');
    assert.equal((await t.inject({ method: 'GET', url: '/analytics', headers: pro.headers })).statusCode, 200);
    const free = await t.addWorkspace('free');
    const res = await t.inject({ method: 'GET', url: '/analytics', headers: free.headers });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().error.message, 'Analytics API is only available on paid plans.');
    const longRange = await t.inject({ method: 'GET', url: '/analytics?start=2020-01-01', headers: pro.headers });
    assert.equal(longRange.statusCode, 403);
    assert.match(longRange.json().error.message, /up to 1 year on a Pro plan/);
  });

  test('a key without analytics.read is refused on both', async () => {
    const ws = await t.addWorkspace('enterprise', ['links.read']);
    for (const url of ['/analytics', '/events']) {
      const res = await t.inject({ method: 'GET', url, headers: ws.headers });
      assert.equal(res.statusCode, 403, url);
      assert.match(res.json().error.message, /analytics\.read/);
    }
  });

  test('a workspace over its click quota reads no analytics', async () => {
    const ws = await t.addWorkspace('business');
    await t.database.db.updateTable('workspaces').set({ usage: 250_001 }).where('id', '=', ws.workspaceId).execute();
    const res = await t.inject({ method: 'GET', url: '/analytics', headers: ws.headers });
    assert.equal(res.statusCode, 403);
    assert.match(res.json().error.message, /monthly limit of 250000 clicks on the Business plan/);
  });

  test('another workspace sees none of this one', async () => {
    const ws = await t.addWorkspace('enterprise');
    const res = await t.inject({ method: 'GET', url: '/analytics?interval=all&event=composite', headers: ws.headers });
    assert.deepEqual(res.json(), { clicks: 0, leads: 0, sales: 0, saleAmount: 0 });
    assert.deepEqual((await t.inject({ method: 'GET', url: '/events?interval=all', headers: ws.headers })).json(), []);
  });
});

describe('validation (422)', () => {
  const cases: [string, string, RegExp][] = [
    ['/events', 'limit=1001', /limit/],
    ['/events', 'limit=0', /limit/],
    ['/events', 'page=0', /page/],
    ['/events', 'event=composite', /Invalid event type/],
    ['/events', 'sortBy=clicks', /sortBy/],
    ['/events', `query=${'x'.repeat(10001)}`, /query/],
    ['/analytics', `query=${'x'.repeat(10001)}`, /query/],
    ['/analytics', `utm_source=${'u'.repeat(191)}`, /utm_source/],
    ['/analytics', `ref=${'r'.repeat(191)}`, /ref/],
    ['/analytics', 'groupBy=weekdays', /Invalid type value/],
    ['/analytics', 'type=weekdays', /Invalid type value/],
    ['/analytics', 'event=views', /Invalid event type/],
    ['/analytics', 'interval=2d', /interval/],
    ['/analytics', 'saleType=old', /saleType/],
    ['/analytics', 'root=maybe', /root/],
    ['/analytics', 'start=yesterday-ish', /start/],
  ];
  for (const [path, query, message] of cases) {
    test(`${path}?${query.slice(0, 40)}`, async () => {
      const res = await t.inject({ method: 'GET', url: `${path}?${query}` });
      assert.equal(res.statusCode, 422, res.body);
      assert.equal(res.json().error.code, 'unprocessable_entity');
      assert.match(res.json().error.message, message);
    });
  }
  test('limits are inclusive', async () => {
    assert.equal((await t.inject({ method: 'GET', url: '/events?limit=1000' })).statusCode, 200);
    assert.equal((await t.inject({ method: 'GET', url: `/analytics?utm_source=${'u'.repeat(190)}` })).statusCode, 200);
    assert.equal((await t.inject({ method: 'GET', url: `/analytics?query=${'x'.repeat(10000)}` })).statusCode, 200);
  });
});
