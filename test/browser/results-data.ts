/**
 * Months of campaign results for the results pages' browser test, made the way a user would have
 * them: a second Waymark (an in-process test app whose clock starts seven months ago) receives
 * real visits through its redirect and real `POST /track/lead` and `/track/sale` calls while its
 * clock moves forward, and `waymark import api --events` then copies its links, customers and
 * events, with their times, into the served workspace. No endpoint takes an event's time (the
 * spec's track bodies have none) and the import is the product's own path for history, so the
 * events arrive as a user's migrated history does: through the event store, counters and rollups.
 *
 * @example
 * const made = await seedMonthsOfResults({ port: run.port, base: run.base, databaseUrl: run.database.url }, slug); // before any page reads analytics
 * made.clicks; // 80: every visit of the history, none repeated
 */
import assert from 'node:assert/strict';
import { runCli } from '../../src/cli/index.js';
import { hit } from '../../src/redirect/testing.js';
import { createTestApp } from '../../src/test-support/harness.js';
import { DESKTOP_CHROME } from './support.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;
/** How far back the history starts: more than 180 days, so an all-time series is monthly. */
export const HISTORY_DAYS = 200;
/** The source's short domain (a test app answers on `localhost:3999`). */
const SOURCE_DOMAIN = 'wm.localhost:3999';
const COUNTRIES = ['US', 'DE', 'FR', 'GB', 'BR'];
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

/** The served instance the history goes into (the browser tests' run, or scripts/screenshot.mjs's server). */
export interface SeedTarget {
  port: number;
  /** Its BASE_URL. */
  base: string;
  /** Its DATABASE_URL (the import writes there, as `waymark import api` does); it runs the SQL event store (EVENTS_URL=sql). */
  databaseUrl: string;
}

export interface SeededResults {
  /** Keys of the links, `spring-0` … `spring-2` (titles `Spring sale 0` …). */
  keys: string[];
  clicks: number;
  leads: number;
  sales: number;
  /** Sum of the sales in cents (USD). */
  saleAmount: number;
  /** The first visit's time, ms. */
  firstAt: number;
}

/**
 * Generates the history on a source app and imports it into the workspace `slug` of `target`
 * (which must not hold links with these keys yet).
 */
export async function seedMonthsOfResults(target: SeedTarget, slug: string): Promise<SeededResults> {
  let clock = Date.now() - HISTORY_DAYS * DAY;
  const source = await createTestApp({ now: () => clock, env: { TRUST_PROXY: 'true', TRUST_GEO_HEADERS: 'true' } });
  try {
    const base = await source.listen();
    const keys = [0, 1, 2].map((i) => `spring-${i}`);
    for (const [i, key] of keys.entries()) {
      const res = await source.inject({ method: 'POST', url: '/links', payload: { url: `https://shop.example.com/p${i}`, key, title: `Spring sale ${i}`, trackConversion: true } });
      assert.equal(res.statusCode, 200, res.body);
    }
    const made: SeededResults = { keys, clicks: 0, leads: 0, sales: 0, saleAmount: 0, firstAt: clock };
    // Every fourth day: a visit or two to one of the links (a different visitor each, so none is a
    // repeat), some from QR codes and phones; every fifth visitor signs up, every tenth buys.
    for (let step = 0; step < HISTORY_DAYS / 4 - 1; step++) {
      clock = made.firstAt + step * 4 * DAY + (step % 9) * HOUR;
      const key = keys[step % 3]!;
      for (let v = 0; v < 1 + (step % 2) + (step % 3 === 2 ? 1 : 0); v++) {
        const n = made.clicks;
        const query = `?utm_campaign=spring-${step % 3}&utm_term=t${n % 2}&utm_content=v${n % 3}${n % 4 === 0 ? '&qr=1' : ''}`;
        const res = await hit(base, `/${key}${query}`, {
          host: SOURCE_DOMAIN,
          headers: { 'user-agent': n % 3 ? DESKTOP_CHROME : IPHONE, 'x-forwarded-for': `198.51.${100 + (n >> 8)}.${n & 255}`, 'cf-ipcountry': COUNTRIES[n % COUNTRIES.length]!, referer: n % 2 ? 'https://news.example.com/' : 'https://social.example.org/' },
        });
        assert.equal(res.status, 302, res.body);
        made.clicks++;
        if (n % 5 !== 0) continue;
        await source.modules.redirect.flushClicks();
        const clickId = new URL(res.location!).searchParams.get('waymark_id')!;
        clock += HOUR;
        const lead = await source.inject({ method: 'POST', url: '/track/lead', payload: { clickId, eventName: 'Sign up', customerExternalId: `buyer-${n}`, customerName: `Buyer ${n}`, mode: 'wait' } });
        assert.equal(lead.statusCode, 200, lead.body);
        made.leads++;
        if (n % 10 !== 0) continue;
        clock += HOUR;
        const amount = 1900 + n * 25;
        const sale = await source.inject({ method: 'POST', url: '/track/sale', payload: { customerExternalId: `buyer-${n}`, amount, currency: 'usd', paymentProcessor: 'stripe', invoiceId: `inv-${n}` } });
        assert.equal(sale.statusCode, 200, sale.body);
        made.sales++;
        made.saleAmount += amount;
      }
    }
    await source.modules.redirect.flushClicks();
    clock = Date.now();
    const out: string[] = [];
    const code = await runCli(
      ['import', 'api', '--from', base, '--token', source.key, '--workspace', slug, '--events', '--domain-map', `${SOURCE_DOMAIN}=wm.localhost:${target.port}`],
      (line) => out.push(line),
      { DATABASE_URL: target.databaseUrl, PORT: String(target.port), BASE_URL: target.base, EVENTS_URL: 'sql', LOG_LEVEL: 'silent' },
    );
    assert.equal(code, 0, out.join('\n'));
    assert.ok(out.includes(`clicks: ${made.clicks} copied, 0 already there, 0 rejected`), out.join('\n'));
    return made;
  } finally {
    await source.close();
  }
}
