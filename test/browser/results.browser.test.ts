/**
 * Issue 42's results pages in Debian's chromium (support.ts), on seven months of history
 * (results-data.ts: made on a second Waymark whose clock starts 200 days ago, copied in with
 * `waymark import api --events`) plus today's visits to the short links (the redirect on
 * wm.localhost, each from a visitor of its own: a repeat within the hour is one click). Checked:
 * the all-time chart is monthly from the first event's month to now and adds up to every click;
 * each card's figures, revenue and rates are the API's; a custom range is daily; compare; the
 * events log pages through every click and filters by link; both pages at 390 px without
 * sideways overflow; axe finds nothing serious.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { BrowserContext, Page } from 'playwright-core';
import { DESKTOP_CHROME, describeViolations, startDashboardRun, type DashboardRun } from './support.js';
import { seedMonthsOfResults, type SeededResults } from './results-data.js';

const OWNER = { email: 'results@example.com', name: 'Rae Results', password: 'correct horse battery' };
/** Today's visits per link (spring-0 … spring-2). */
const TODAY = [3, 5, 7];

let run: DashboardRun;
let context: BrowserContext;
let page: Page;
let ws: string;
let history: SeededResults;
const linkIds: string[] = [];
let visitor = 0;

/** One visit to a short link, as a desktop browser from a visitor of its own. */
function visit(key: string, query = ''): Promise<number> {
  visitor++;
  const headers = { host: `wm.localhost:${run.port}`, 'user-agent': DESKTOP_CHROME, referer: 'https://news.example.com/', 'x-forwarded-for': `203.0.113.${visitor}` };
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: run.port, path: `/${key}${query}`, headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

const money = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
const rate = (part: number, base: number) => (base ? `${((100 * part) / base).toFixed(1)}%` : '–');
const sum = (rows: any[]) => rows.reduce((a, r) => ({ clicks: a.clicks + r.clicks, leads: a.leads + r.leads, sales: a.sales + r.sales, saleAmount: a.saleAmount + r.saleAmount }), { clicks: 0, leads: 0, sales: 0, saleAmount: 0 });

before(async () => {
  run = await startDashboardRun();
  context = await run.newContext();
  page = await context.newPage();
  ws = await run.setUpOwner(page, OWNER);
  history = await seedMonthsOfResults({ port: run.port, base: run.base, databaseUrl: run.database.url }, decodeURIComponent(ws.split('/').at(-1)!));
  const links = (await run.api('GET', '/links?sortBy=createdAt&sortOrder=asc')).json as { id: string; key: string }[];
  for (const key of history.keys) linkIds.push(links.find((l) => l.key === key)!.id);
  for (const [i, n] of TODAY.entries()) {
    for (let v = 0; v < n; v++) assert.ok([301, 302, 307].includes(await visit(history.keys[i]!, `?utm_campaign=spring-${i}&utm_term=t${v % 2}`)));
  }
});
after(async () => {
  await run?.close();
});

async function assertAccessible(url: string, name: string): Promise<void> {
  const serious = (await run.audit(url, context)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.equal(serious.length, 0, `axe on the ${name} page:\n${describeViolations(serious)}`);
}

/** Waits until the API counts `total` clicks (the redirect writes them in batches); fails if it never does. */
async function waitForClicks(total: number): Promise<void> {
  let clicks = 0;
  for (let i = 0; i < 150; i++) {
    clicks = (await run.api('GET', '/analytics?interval=all')).json?.clicks;
    if (clicks >= total) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.equal(clicks, total, 'every visit is a click');
}

test('seven months of results: all-time chart, cards with revenue and rates, a custom range, compare, events paging, phone layouts, axe (issue 42)', { timeout: 300_000 }, async () => {
  const total = history.clicks + TODAY.reduce((a, b) => a + b, 0);
  await waitForClicks(total);
  const totals = (await run.api('GET', '/analytics?interval=all&event=composite')).json;
  assert.deepEqual(totals, { clicks: total, leads: history.leads, sales: history.sales, saleAmount: history.saleAmount }, 'the history and today, every event once');
  assert.ok(history.sales >= 3 && history.leads >= 6, 'revenue to show');

  // All time: monthly (the range is over 180 days) from the first event's month to this month.
  await page.goto(`${ws}/analytics?interval=all`);
  const series = JSON.parse((await page.locator('#analytics-chart').getAttribute('data-series'))!);
  const tz = encodeURIComponent(series.timezone);
  const apiSeries = (await run.api('GET', `/analytics?interval=all&event=composite&groupBy=timeseries&timezone=${tz}`)).json as any[];
  assert.deepEqual(sum(apiSeries), totals, 'the API’s all-time series adds up to the count');
  const first = new Date(history.firstAt);
  const months = (new Date().getUTCFullYear() - first.getUTCFullYear()) * 12 + new Date().getUTCMonth() - first.getUTCMonth() + 1;
  assert.equal(apiSeries.length, months, `one point a month from ${first.toISOString()} to now`);
  if (series.timezone === 'UTC') assert.equal(apiSeries[0].start, `${first.toISOString().slice(0, 7)}-01T00:00:00.000+0000`);
  assert.deepEqual(series.clicks, apiSeries.map((p) => p.clicks), 'the chart is the API’s all-time series');
  assert.deepEqual(series.leads, apiSeries.map((p) => p.leads));
  assert.equal(series.clicks.reduce((a: number, b: number) => a + b, 0), total, 'the chart counts every click');
  assert.ok(series.x[series.x.length - 1] <= Date.now() / 1000, 'no point after now');
  assert.equal(Number(await page.locator('#totals').getAttribute('data-clicks')), total);
  assert.equal(Number(await page.locator('#totals').getAttribute('data-sale-amount')), history.saleAmount);

  // Every card: each row's figures, revenue and rates are the API's.
  for (const [group, field] of [['top_links', 'id'], ['countries', 'country'], ['devices', 'device'], ['referers', 'referer'], ['utm_campaigns', 'utm_campaign'], ['utm_terms', 'utm_term'], ['utm_contents', 'utm_content'], ['triggers', 'trigger']] as const) {
    const rows = (await run.api('GET', `/analytics?interval=all&event=composite&groupBy=${group}&timezone=${tz}`)).json as any[];
    assert.ok(rows.length > 0, group);
    assert.equal(await page.locator(`section[data-group="${group}"] tbody tr`).count(), Math.min(rows.length, 10), `${group}: a row per value`);
    for (const row of rows.slice(0, 10)) {
      const tr = page.locator(`section[data-group="${group}"] tr[data-value="${row[field]}"]`);
      const shown = ['data-clicks', 'data-leads', 'data-sales', 'data-sale-amount'].map(async (a) => Number(await tr.getAttribute(a)));
      assert.deepEqual(await Promise.all(shown), [row.clicks, row.leads, row.sales, row.saleAmount], `${group} ${row[field]}`);
      assert.equal(await tr.locator('td[data-metric="revenue"]').innerText(), money.format(row.saleAmount / 100));
      assert.equal(await tr.locator('td[data-metric="lead-rate"]').innerText(), rate(row.leads, row.clicks));
      assert.equal(await tr.locator('td[data-metric="sale-rate"]').innerText(), rate(row.sales, row.leads));
      if (group === 'top_links') assert.match(await tr.locator('td.url a').innerText(), /^Spring sale \d$/, 'top links by title');
    }
  }
  assert.ok((await run.api('GET', '/analytics?interval=all&groupBy=triggers')).json.some((r: any) => r.trigger === 'qr' && r.clicks > 0), 'QR scans among the clicks');
  await page.locator('#analytics-chart canvas').first().waitFor();
  await run.shot(page, 'analytics');
  await assertAccessible(`${ws}/analytics?interval=all`, 'analytics');

  // A custom range of 60 days: daily, the select says custom, the chart is the API's.
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const start = day(Date.now() - 59 * 86_400_000);
  const end = day(Date.now());
  await page.goto(`${ws}/analytics?start=${start}&end=${end}`);
  assert.equal(await page.locator('select[name=interval]').inputValue(), 'custom');
  const custom = JSON.parse((await page.locator('#analytics-chart').getAttribute('data-series'))!);
  const apiCustom = (await run.api('GET', `/analytics?start=${start}&end=${end}&event=composite&groupBy=timeseries&timezone=${tz}`)).json as any[];
  assert.equal(apiCustom.length, 60, 'a point a day');
  assert.deepEqual(custom.clicks, apiCustom.map((p) => p.clicks));
  assert.equal(sum(apiCustom).clicks, (await run.api('GET', `/analytics?start=${start}&end=${end}&timezone=${tz}`)).json.clicks);

  // The filter chip names the link.
  await page.goto(`${ws}/analytics?interval=all&linkId=${linkIds[0]}`);
  assert.match(await page.locator('.active-filters').innerText(), /Link: Spring sale 0/);

  // Compare two links: one chart, one table, equal to the API.
  await page.goto(`${ws}/analytics/compare?by=links&interval=all&id=${linkIds[1]}&id=${linkIds[2]}`);
  await page.locator('#analytics-chart canvas').first().waitFor();
  for (const id of [linkIds[1], linkIds[2]]) {
    const count = (await run.api('GET', `/analytics?interval=all&event=composite&linkId=${id}`)).json;
    const tr = page.locator(`table.compare tr[data-value="${id}"]`);
    assert.deepEqual([Number(await tr.getAttribute('data-clicks')), Number(await tr.getAttribute('data-sale-amount'))], [count.clicks, count.saleAmount]);
  }
  await run.shot(page, 'compare');
  await assertAccessible(page.url(), 'compare');

  // Events: every click, newest first, a page of 50 at a time (Older, then Newer back).
  await page.goto(`${ws}/events?event=clicks`);
  const seen: string[] = [];
  const firstPage: string[] = [];
  for (let n = 0; ; n++) {
    const ids = await page.locator('table.events tbody tr').evaluateAll((trs) => trs.map((tr) => `${tr.getAttribute('data-timestamp')} ${tr.getAttribute('data-event-id')}`));
    assert.ok(ids.length <= 50, 'a page holds at most 50');
    if (n === 0) firstPage.push(...ids);
    seen.push(...ids);
    const older = page.locator('nav.pager a[rel=next]');
    if ((await older.count()) === 0) break;
    assert.equal(ids.length, 50, 'only the last page is short');
    const href = (await older.getAttribute('href'))!;
    await older.click();
    // The pager is boosted (htmx): the address changes once the next page is in.
    await page.waitForURL((u) => `${u.pathname}${u.search}` === href);
    await page.waitForFunction((last) => document.querySelector('table.events tbody tr')?.getAttribute('data-event-id') !== last, ids[0]!.split(' ')[1]);
  }
  assert.equal(new Set(seen).size, total, 'every click once across the pages');
  const stamps = seen.map((s) => Date.parse(s.split(' ')[0]!));
  assert.ok(stamps.every((t, i) => i === 0 || stamps[i - 1]! >= t), 'newest first, across pages');
  assert.ok(stamps.at(-1)! < Date.now() - 150 * 86_400_000, 'the last page reaches the first months');
  const newer = (await page.locator('nav.pager a[rel=prev]').getAttribute('href'))!;
  await page.locator('nav.pager a[rel=prev]').click();
  await page.waitForURL((u) => `${u.pathname}${u.search}` === newer);
  await page.locator('table.events tbody tr').first().waitFor();
  const back = await page.locator('table.events tbody tr').evaluateAll((trs) => trs.map((tr) => `${tr.getAttribute('data-timestamp')} ${tr.getAttribute('data-event-id')}`));
  assert.deepEqual(back, seen.slice(-back.length - (seen.length % 50 || 50), -(seen.length % 50 || 50)), 'Newer goes back one page');

  // Events of one link: local times, links to the link, every click of it.
  await page.goto(`${ws}/events?event=clicks&linkId=${linkIds[2]}`);
  const ofLink = (await run.api('GET', `/analytics?interval=all&linkId=${linkIds[2]}`)).json.clicks;
  assert.ok(ofLink > TODAY[2]! && ofLink <= 50, `${ofLink} clicks of spring-2: history and today, on one page`);
  assert.equal(await page.locator('table.events tbody tr').count(), ofLink, 'one row per click of the link');
  const time = await page.locator('table.events time').first().innerText();
  assert.match(time, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/, 'rewritten in the viewer’s zone');
  assert.match((await page.locator('table.events td.url a').first().getAttribute('href'))!, new RegExp(`/links/${linkIds[2]}/edit$`));
  await assertAccessible(page.url(), 'events');

  // Phones: nothing wider than the screen; the events log a readable list.
  const phone = await run.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  await phone.addCookies(await context.cookies());
  const p = await phone.newPage();
  for (const path of ['/analytics?interval=all', '/events?event=clicks', '/analytics/compare?by=links&interval=all&id=' + linkIds[1] + '&id=' + linkIds[2]]) {
    await p.goto(`${ws}${path}`);
    const width = await p.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `${path}: ${width} px wide on a 390 px screen`);
  }
  await p.goto(`${ws}/events?event=clicks`);
  const height = await p.evaluate(() => document.documentElement.scrollHeight);
  assert.ok(height < 50 * 844, `a page of 50 events fits in fewer than 50 screens (${height} px)`);
  await run.shot(p, 'events-phone');
  await phone.close();
});
