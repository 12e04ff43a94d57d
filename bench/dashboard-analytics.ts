/**
 * Dashboard analytics page (issue 17): server time of `GET /dashboard/w/<slug>/analytics` (the
 * totals, the time series and ten breakdown cards: 12 analytics queries) and of a public stats
 * page, over EVENTS clicks (default 100,000) spread over 1,000 links and 90 days, on the engine
 * chosen by DATABASE_URL; and, for scale, one `GET /analytics?groupBy=countries` call.
 *
 * Prints the median and the slowest of 15 runs each (after 2 warm-ups); asserts nothing.
 *
 * Run: npm run bench -- dashboard-analytics
 *      DATABASE_URL=postgres://postgres@127.0.0.1:54329/waymark_test npm run bench -- dashboard-analytics
 */
import { performance } from 'node:perf_hooks';
import { createTestApp, TEST_ENGINE } from '../src/test-support/harness.js';
import { insertLink } from '../src/analytics/testing.js';
import type { StoredEvent } from '../src/events/event-store.js';
import { addUser, logIn, slugOf } from '../src/dashboard/testing.js';

const EVENTS = Number(process.env.EVENTS ?? 100_000);
const LINKS = 1000;
const RUNS = 15;
const DAY = 86_400_000;

const COUNTRIES = ['US', 'DE', 'FR', 'GB', 'JP', 'BR', 'IN', 'CA'];
const DEVICES = [['Desktop', 'Chrome', 'Mac OS'], ['Mobile', 'Mobile Safari', 'iOS'], ['Mobile', 'Chrome', 'Android'], ['Desktop', 'Firefox', 'Windows']];
const REFERERS = ['(direct)', 'google.com', 'twitter.com', 'news.ycombinator.com'];

async function main() {
  const now = Date.now();
  const t = await createTestApp({ now: () => now });
  const db = t.database.db;
  const browser = await logIn(t, await addUser(t, 'viewer'));
  for (let i = 0; i < LINKS; i++) {
    await insertLink(db, { id: `link_b${i}`, workspace_id: t.workspaceId, domain: 'go.bench', key: `k${i}`, url: `https://example.com/${i}`, public_stats: i === 0 ? 1 : 0, created_at: now - 100 * DAY });
  }
  for (let i = 0; i < EVENTS; i += 5000) {
    const batch: StoredEvent[] = [];
    for (let j = i; j < Math.min(EVENTS, i + 5000); j++) {
      const link = j % 7 === 0 ? 0 : j % LINKS;
      const [device, browserName, os] = DEVICES[j % DEVICES.length]!;
      const country = COUNTRIES[j % COUNTRIES.length]!;
      batch.push({
        workspace_id: t.workspaceId, timestamp: now - ((j * 7919) % (90 * DAY)), id: `cb${j}`, kind: 'click', click_id: `cb${j}`,
        link_id: `link_b${link}`, domain: 'go.bench', key: `k${link}`, url: `https://example.com/${link}?utm_source=s${j % 5}`,
        country, city: `${country}-city${j % 3}`, region: `${country}-R`, continent: 'NA', device: device!, browser: browserName!, os: os!,
        referer: REFERERS[j % REFERERS.length]!, referer_url: '(direct)', trigger: 'link', ip: '203.0.113.9', ua: 'Mozilla/5.0',
        utm_source: `s${j % 5}`, utm_medium: null, utm_campaign: null, utm_term: null, utm_content: null,
        customer_id: null, event_name: null, amount: 0, currency: null, original_amount: null, payment_processor: null, invoice_id: null, sale_type: null, metadata: null,
      });
    }
    await t.ctx.events.append(batch);
  }
  const slug = await slugOf(t);
  console.log(`${TEST_ENGINE}: ${EVENTS} clicks over ${LINKS} links and 90 days; ${RUNS} runs each`);

  const pages: [string, () => Promise<{ statusCode: number; body: string }>][] = [
    ['analytics page, 30d', () => browser.get(`/dashboard/w/${slug}/analytics?interval=30d`)],
    ['analytics page, 90d, country=US', () => browser.get(`/dashboard/w/${slug}/analytics?interval=90d&country=US`)],
    ['analytics page, all time, one link', () => browser.get(`/dashboard/w/${slug}/analytics?interval=all&linkId=link_b0`)],
    ['public stats page, 30d', () => browser.get('/stats/go.bench/k0?interval=30d')],
    ['GET /analytics?groupBy=countries, 30d', () => t.inject({ method: 'GET', url: '/analytics?interval=30d&groupBy=countries' })],
  ];
  for (const [label, call] of pages) {
    const times: number[] = [];
    for (let i = 0; i < RUNS + 2; i++) {
      const started = performance.now();
      const res = await call();
      const ms = performance.now() - started;
      if (res.statusCode !== 200) throw new Error(`${label}: ${res.statusCode} ${res.body.slice(0, 200)}`);
      if (i >= 2) times.push(ms);
    }
    times.sort((a, b) => a - b);
    console.log(`  ${label.padEnd(40)} median ${times[Math.floor(times.length / 2)]!.toFixed(1)} ms, slowest ${times.at(-1)!.toFixed(1)} ms`);
  }
  await t.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
