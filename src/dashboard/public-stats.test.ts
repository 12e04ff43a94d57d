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
