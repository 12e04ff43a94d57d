/**
 * Issue 42's results pages in Debian's chromium (support.ts): the analytics page's cards show
 * the API's figures with revenue and rates; the all-time chart covers the whole range; compare;
 * the events log; both pages at 390 px without sideways overflow; axe finds nothing serious.
 * Clicks are real visits to the short links (the redirect on wm.localhost), so the events store
 * and the analytics read what a visitor made.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { BrowserContext, Page } from 'playwright-core';
import { DESKTOP_CHROME, describeViolations, startDashboardRun, type DashboardRun } from './support.js';

const OWNER = { email: 'results@example.com', name: 'Rae Results', password: 'correct horse battery' };

let run: DashboardRun;
let context: BrowserContext;
let page: Page;
let ws: string;
const linkIds: string[] = [];

/** One visit to a short link, as a desktop browser from `referer`. */
function visit(key: string, query = ''): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: run.port, path: `/${key}${query}`, headers: { host: `wm.localhost:${run.port}`, 'user-agent': DESKTOP_CHROME, referer: 'https://news.example.com/' } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

before(async () => {
  run = await startDashboardRun();
  context = await run.newContext();
  page = await context.newPage();
  ws = await run.setUpOwner(page, OWNER);
  for (let i = 0; i < 3; i++) {
    const created = await run.api('POST', '/links', { url: `https://shop.example.com/p${i}`, key: `spring-${i}`, title: `Spring sale ${i}`, domain: `wm.localhost:${run.port}` });
    assert.ok(created.status < 300, JSON.stringify(created.json));
    linkIds.push(created.json.id);
    for (let n = 0; n < 3 + i * 2; n++) assert.ok([301, 302, 307].includes(await visit(`spring-${i}`, `?utm_campaign=c${i}&utm_term=t${n % 2}`)));
  }
});
after(async () => {
  await run?.close();
});

async function assertAccessible(url: string, name: string): Promise<void> {
  const serious = (await run.audit(url, context)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.equal(serious.length, 0, `axe on the ${name} page:\n${describeViolations(serious)}`);
}

async function waitForClicks(total: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await run.api('GET', '/analytics?interval=all')).json?.clicks >= total) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

test('cards show the API figures with revenue and rates; the all-time chart spans the range; compare; events; phone layouts; axe (issue 42)', { timeout: 300_000 }, async () => {
  await waitForClicks(3 + 5 + 7);
  await page.goto(`${ws}/analytics?interval=all`);
  const api = (await run.api('GET', '/analytics?interval=all&event=composite&groupBy=top_links')).json as any[];
  assert.equal(api.length, 3);
  for (const row of api) {
    const tr = page.locator(`section[data-group="top_links"] tr[data-value="${row.id}"]`);
    assert.equal(await tr.locator('td.url a').innerText(), row.title, 'top links by title');
    assert.equal(Number(await tr.getAttribute('data-clicks')), row.clicks);
    assert.equal(await tr.locator('td[data-metric="revenue"]').innerText(), `$${(row.saleAmount / 100).toFixed(2)}`);
    assert.equal(await tr.locator('td[data-metric="lead-rate"]').innerText(), row.clicks ? `${((100 * row.leads) / row.clicks).toFixed(1)}%` : '–');
  }
  for (const group of ['utm_terms', 'utm_contents', 'triggers', 'top_urls']) assert.equal(await page.locator(`section[data-group="${group}"]`).count(), 1, group);

  // All time: from the first event's day to now, not today's hours.
  const series = JSON.parse((await page.locator('#analytics-chart').getAttribute('data-series'))!);
  const now = Date.now() / 1000;
  assert.ok(series.x[0] <= now - 1 && series.x[series.x.length - 1] <= now, 'the points end now');
  const apiSeries = (await run.api('GET', '/analytics?interval=all&event=composite&groupBy=timeseries')).json as any[];
  assert.deepEqual(series.clicks, apiSeries.map((p) => p.clicks), 'the chart is the API’s all-time series');
  await page.locator('#analytics-chart canvas').first().waitFor();
  await run.shot(page, 'analytics');
  await assertAccessible(`${ws}/analytics?interval=all`, 'analytics');

  // Custom dates: the select says so.
  await page.goto(`${ws}/analytics?start=2026-01-01&end=2026-12-31`);
  assert.equal(await page.locator('select[name=interval]').inputValue(), 'custom');

  // The filter chip names the link.
  await page.goto(`${ws}/analytics?interval=all&linkId=${linkIds[0]}`);
  assert.match(await page.locator('.active-filters').innerText(), /Link: Spring sale 0/);

  // Compare two links: one chart, one table, equal to the API.
  await page.goto(`${ws}/analytics/compare?by=links&interval=all&id=${linkIds[1]}&id=${linkIds[2]}`);
  await page.locator('#analytics-chart canvas').first().waitFor();
  for (const id of [linkIds[1], linkIds[2]]) {
    const count = (await run.api('GET', `/analytics?interval=all&event=composite&linkId=${id}`)).json;
    assert.equal(Number(await page.locator(`table.compare tr[data-value="${id}"]`).getAttribute('data-clicks')), count.clicks);
  }
  await run.shot(page, 'compare');
  await assertAccessible(page.url(), 'compare');

  // Events: local times, links to the link, a link filter.
  await page.goto(`${ws}/events?event=clicks&linkId=${linkIds[2]}`);
  const listed = (await run.api('GET', `/events?event=clicks&interval=all&linkId=${linkIds[2]}`)).json as any[];
  assert.ok(listed.length > 0);
  assert.equal(await page.locator('table.events tbody tr').count(), listed.length, 'the rows GET /events lists for the link');
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
  assert.ok(height < 15 * 844, `15 events fit in a few screens (${height} px)`);
  await run.shot(p, 'events-phone');
  await phone.close();
});
