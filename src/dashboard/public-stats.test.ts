/**
 * Public stats pages on the engine under test: open without login for links with
 * `publicStats: true`, 404 for any other link (or none), only that link's figures (equal to
 * `GET /analytics?linkId=…`), and no trace of the workspace's other links.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { SEED_NOW, seedAnalytics } from '../analytics/testing.js';
import { readAnalyticsPage } from './page-parsing.js';

let t: TestApp;

before(async () => {
  t = await createTestApp({ now: () => SEED_NOW });
  const other = await t.addWorkspace();
  await seedAnalytics(t.database.db, t.ctx.events, t.workspaceId, other.workspaceId);
  await t.database.db.updateTable('links').set({ public_stats: 1 }).where('id', 'in', ['link_b', 'link_foreign']).execute();
  // link_b's owner chose to show conversions too; link_foreign's did not.
  await t.database.db.updateTable('links').set({ public_stats_conversions: 1 }).where('id', '=', 'link_b').execute();
});
after(() => t.close());

const get = (url: string) => t.app.inject({ method: 'GET', url });

test("a public link's stats: no login, only its figures, equal to GET /analytics?linkId=", async () => {
  const res = await get('/stats/go.test/b?interval=all');
  assert.equal(res.statusCode, 200, res.body.slice(0, 300));
  assert.equal(res.headers['content-security-policy']?.includes("script-src 'self'"), true);
  const page = readAnalyticsPage(res.body);
  const api = (q: string) => t.inject({ method: 'GET', url: `/analytics?interval=all&event=composite&linkId=link_b${q}` }).then((r) => r.json());
  assert.deepEqual(page.totals, await api(''));
  assert.ok(page.totals.clicks > 0);
  assert.deepEqual(
    page.cards.get('countries'),
    ((await api('&groupBy=countries')) as any[]).map((r) => ({ value: r.country, clicks: r.clicks, leads: r.leads, sales: r.sales, saleAmount: r.saleAmount })),
  );
  assert.deepEqual(page.series!.clicks, ((await api('&groupBy=timeseries')) as any[]).map((r) => r.clicks));
  // Nothing of the workspace's other links, no workspace navigation, no filter links.
  assert.doesNotMatch(res.body, /go\.test\/a|go\.test\/c|other\.test|Test workspace|\/dashboard\/w\//);
  assert.equal(page.links.get('countries')!.length, 0);
  // Keys are case-insensitive, as the redirect's.
  assert.equal((await get('/stats/GO.TEST/B')).statusCode, 200);
});

test('links without publicStats, unknown links and bad intervals: 404 / 422 pages', async () => {
  for (const url of ['/stats/go.test/a', '/stats/go.test/nope', '/stats/nowhere.test/b', `/stats/go.test/${'x'.repeat(300)}`]) {
    const res = await get(url);
    assert.equal(res.statusCode, 404, url);
    assert.match(String(res.headers['content-type']), /text\/html/);
    assert.doesNotMatch(res.body, /go\.test\/a/);
  }
  assert.equal((await get('/stats/go.test/b?interval=forever')).statusCode, 422);
});

test("another workspace's public link shows only its own figures", async () => {
  const res = await get('/stats/far.test/x?interval=all');
  assert.equal(res.statusCode, 200);
  const page = readAnalyticsPage(res.body);
  assert.equal(page.totals.clicks, 1);
  assert.doesNotMatch(res.body, /go\.test/);
});

test('conversions and revenue stay off the public page unless the owner turned them on', async () => {
  const db = t.database.db;
  await db.updateTable('links').set({ public_stats_conversions: 0 }).where('id', '=', 'link_b').execute();
  try {
    const res = await get('/stats/go.test/b?interval=all');
    assert.equal(res.statusCode, 200);
    const api = await t.inject({ method: 'GET', url: '/analytics?interval=all&event=composite&linkId=link_b' }).then((r) => r.json());
    assert.ok(api.leads > 0 && api.saleAmount > 0, 'the link has conversions to hide');
    const page = readAnalyticsPage(res.body);
    assert.equal(page.totals.clicks, api.clicks);
    assert.doesNotMatch(res.body, /data-leads|data-sales|data-sale-amount|>Leads<|>Sales<|>Revenue<|"leads"|"sales"/);
    assert.ok(page.series!.clicks.length > 0);
    assert.equal(page.series!.leads, undefined, 'the chart gets clicks only');
  } finally {
    await db.updateTable('links').set({ public_stats_conversions: 1 }).where('id', '=', 'link_b').execute();
  }
  assert.match((await get('/stats/go.test/b?interval=all')).body, />Revenue</);
});
