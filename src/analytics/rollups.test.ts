/**
 * The rollup path and the raw-scan path give identical answers: every grouping, every event,
 * a spread of filters, intervals and zones, on the fixture and on a random data set with many
 * disabled and foldered links (so both the inline-id and the subquery forms of the left-out links
 * are exercised). Also: rollups commit or roll back with the caller's transaction.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Insertable } from 'kysely';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import type { LinksTable } from '../db/tables.js';
import type { AuthContext } from '../workspaces/service.js';
import { SEED_NOW, insertLink, seedAnalytics } from './testing.js';
import { createAnalyticsService, type AnalyticsService } from './service.js';
import { createSqlEventStore, createSqlRunner, type StoredEvent } from '../events/index.js';
import { AnalyticsQuery, GROUP_BYS } from './schema.js';
import { seededRandom } from '../test-support/seeded-random.js';

let t: TestApp;
let rollups: AnalyticsService;
let raw: AnalyticsService;
let auth: AuthContext;
let randomAuth: AuthContext;
/** Aggregates run by the rollup service, and how many of them read a rollup table. */
const used = { aggregates: 0, rollup: 0 };

/** A small deterministic PRNG (mulberry32), so a failure can be replayed. */

async function seedRandom(workspaceId: string): Promise<void> {
  const rnd = seededRandom(42);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const db = t.database.db;
  const links: Insertable<LinksTable>[] = [];
  // 1,030 links: 1,005 disabled (more than the 1,000 ids inlined), 10 in a folder, 15 plain.
  const rows: Parameters<typeof insertLink>[1][] = [];
  for (let i = 0; i < 1030; i++) {
    rows.push({
      id: `rl_${i}`, workspace_id: workspaceId, domain: i % 3 ? 'r.test' : 's.test', key: `k${i}`, url: `https://shop.example/p${i % 7}?utm_source=${pick(['ads', 'mail', ''])}`,
      disabled_at: i < 1005 ? SEED_NOW - 86_400_000 : null, folder_id: i >= 1005 && i < 1015 ? 'fold_r' : null, tenant_id: i % 2 ? 'even' : 'odd',
    });
  }
  for (const r of rows) links.push(await insertLink(db, r));
  const live = links.slice(990); // 15 disabled with traffic, 10 foldered, 15 plain
  const events: StoredEvent[] = [];
  const start = SEED_NOW - 70 * 86_400_000;
  for (let i = 0; i < 2500; i++) {
    const link = pick(live);
    const ts = start + Math.floor(rnd() * 70 * 86_400_000);
    const country = pick(['US', 'DE', 'IN', 'BR', 'Unknown']);
    const base: StoredEvent = {
      workspace_id: workspaceId, timestamp: ts, id: `r${i}`, kind: 'click', click_id: `r${i}`, link_id: link.id, domain: link.domain, key: link.key,
      url: rnd() < 0.2 ? `${link.url}&x=${i % 5}` : link.url, country, city: `${country}-city${Math.floor(rnd() * 3)}`, region: `${country}-R${Math.floor(rnd() * 2)}`,
      continent: { US: 'NA', DE: 'EU', IN: 'AS', BR: 'SA', Unknown: 'Unknown' }[country]!, device: pick(['Desktop', 'Mobile', 'Tablet']),
      browser: pick(['Chrome', 'Safari', 'Firefox']), os: pick(['Windows', 'iOS', 'Android', 'Mac OS']), referer: pick(['(direct)', 'google.com', 'news.ycombinator.com']),
      referer_url: pick(['(direct)', 'https://google.com/?q=1', 'https://google.com/', 'https://news.ycombinator.com/item?id=3']), trigger: rnd() < 0.1 ? 'qr' : 'link',
      ip: '198.51.100.1', ua: 'ua', utm_source: new URL(link.url).searchParams.get('utm_source') || null, utm_medium: null, utm_campaign: rnd() < 0.3 ? 'spring' : null,
      utm_term: null, utm_content: null, customer_id: null, event_name: null, amount: 0, currency: null, original_amount: null, payment_processor: null,
      invoice_id: null, sale_type: null, metadata: null,
    };
    events.push(base);
    if (rnd() < 0.15) {
      const lead: StoredEvent = { ...base, id: `rl${i}`, kind: 'lead', timestamp: ts + 60_000, customer_id: `rc${i % 40}`, event_name: 'Sign up', metadata: JSON.stringify({ tier: pick(['a', 'b']) }) };
      events.push(lead);
      if (rnd() < 0.5) events.push({ ...lead, id: `rs${i}`, kind: 'sale', timestamp: ts + 120_000, amount: 100 + Math.floor(rnd() * 5000), sale_type: pick(['new', 'recurring']) });
    }
  }
  events.sort((a, b) => Number(a.timestamp) - Number(b.timestamp));
  // Batches of varying size, as flushes and track calls would write them.
  for (let i = 0; i < events.length; ) {
    const n = 1 + Math.floor(rnd() * 400);
    await t.ctx.events.append(events.slice(i, i + n));
    i += n;
  }
}

before(async () => {
  t = await createTestApp({ now: () => SEED_NOW });
  const other = await t.addWorkspace();
  await seedAnalytics(t.database.db, t.ctx.events, t.workspaceId, other.workspaceId);
  const randomWs = await t.addWorkspace();
  await seedRandom(randomWs.workspaceId);
  // Both services on this thread, over runners of their own (the app's event store reads on the
  // event log's thread): one with rollups, whose statements are counted, one scanning raw events.
  const runner = createSqlRunner(t.database, { inProcess: true });
  const run = runner.run.bind(runner);
  runner.run = (queries) => {
    if (queries.some((q) => q.sql.includes(' as sale_amount'))) used.aggregates++;
    if (queries.some((q) => /analytics_(daily|hourly)/.test(q.sql))) used.rollup++;
    return run(queries);
  };
  rollups = createAnalyticsService({
    db: t.database.db,
    reader: runner,
    events: createSqlEventStore({ database: t.database, runner }),
    now: () => SEED_NOW,
    linkSettings: t.config,
  });
  const rawReader = createSqlRunner(t.database, { inProcess: true });
  raw = createAnalyticsService({
    db: t.database.db,
    reader: rawReader,
    events: createSqlEventStore({ database: t.database, runner: rawReader, useRollups: false }),
    now: () => SEED_NOW,
    linkSettings: t.config,
  });
  auth = await t.ctx.workspaces.authenticate(t.key);
  randomAuth = await t.ctx.workspaces.authenticate(randomWs.key);
});
after(() => t.close());

async function compare(who: AuthContext, params: Record<string, string | undefined>): Promise<void> {
  const q = AnalyticsQuery.parse(params);
  const [a, b] = await Promise.all([rollups.retrieve(who, q), raw.retrieve(who, q)]);
  assert.deepEqual(a, b, JSON.stringify(params));
}

const INTERVALS: Record<string, string>[] = [
  { interval: '24h' },
  { interval: '30d' },
  { interval: 'all' },
  { interval: 'mtd', timezone: 'America/Los_Angeles' },
  { interval: 'ytd', timezone: 'Asia/Kolkata' },
  { start: '2024-03-10', end: '2024-04-20', timezone: 'Europe/Berlin' },
];

describe('rollups and raw scans agree', () => {
  test('fixture: every grouping × every event × intervals and zones', async () => {
    for (const groupBy of GROUP_BYS) {
      for (const event of ['clicks', 'leads', 'sales', 'composite']) {
        for (const range of INTERVALS) await compare(auth, { groupBy, event, ...range });
      }
    }
  });

  const FILTERS: Record<string, string>[] = [
    { country: 'US' },
    { country: '-US,DE' },
    { region: 'CA' },
    { continent: 'EU', device: 'desktop' },
    { device: 'Mobile' },
    { device: 'Mobile', trigger: 'link' },
    { browser: 'chrome', os: 'Mac OS' },
    { referer: 'google.com' },
    { refererUrl: 'https://google.com/' },
    { url: 'https://example.com/c' },
    { utm_source: 'news' },
    { domain: 'go.test' },
    { linkId: 'link_a' },
    { linkId: 'link_off' },
    { tenantId: '-acme' },
    { root: 'false' },
    { qr: 'true' },
    { saleType: 'new' },
  ];
  test('fixture: filters × groupings', async () => {
    for (const f of FILTERS) {
      for (const groupBy of ['count', 'timeseries', 'countries', 'cities', 'devices', 'referers', 'referer_urls', 'top_links', 'top_link_tags', 'utm_sources']) {
        for (const range of [{ interval: 'all' }, { interval: '7d' }, { interval: 'qtd', timezone: 'America/New_York' }]) {
          await compare(auth, { groupBy, event: 'composite', ...f, ...range });
        }
      }
    }
  });

  test('random data with 1,005 disabled links and a folder: groupings, filters, zones', async () => {
    const filters: Record<string, string>[] = [{}, { country: 'US' }, { device: 'Mobile' }, { folderId: 'fold_r' }, { tenantId: 'even' }, { domain: 's.test' }, { linkId: 'rl_995' }, { utm_campaign: 'spring' }, { referer: '-(direct)' }];
    for (const f of filters) {
      for (const groupBy of ['count', 'timeseries', 'countries', 'regions', 'browsers', 'os', 'triggers', 'referer_urls', 'top_links', 'top_urls', 'top_base_urls', 'top_domains', 'utm_sources', 'utm_campaigns', 'top_folders']) {
        for (const event of ['clicks', 'composite', 'sales']) {
          for (const range of [{ interval: '30d' }, { interval: '90d', timezone: 'America/Los_Angeles' }, { interval: 'all' }]) {
            await compare(randomAuth, { groupBy, event, ...f, ...range });
          }
        }
      }
    }
    // Sanity: the data set really has traffic, including on disabled links that must not count.
    const all = await rollups.retrieve(randomAuth, AnalyticsQuery.parse({ interval: 'all', event: 'composite' }));
    const off = await rollups.retrieve(randomAuth, AnalyticsQuery.parse({ interval: 'all', event: 'composite', linkId: 'rl_995' }));
    assert.ok((all as { clicks: number }).clicks > 500);
    assert.ok((off as { clicks: number }).clicks > 10);
  });
});

test('the sweeps above did read rollups (not only raw scans)', () => {
  assert.ok(used.rollup > used.aggregates / 2, JSON.stringify(used));
  console.log(`aggregates: ${used.aggregates}, read from rollups: ${used.rollup}`);
});

describe('the writer', () => {
  test('rollups roll back with the caller’s transaction', async () => {
    const ws = await t.addWorkspace();
    const link = await insertLink(t.database.db, { id: 'link_tx', workspace_id: ws.workspaceId, domain: 'tx.test', key: 'a', url: 'https://example.com' });
    const event: StoredEvent = {
      workspace_id: ws.workspaceId, timestamp: SEED_NOW - 1000, id: 'tx1', kind: 'lead', click_id: 'tx1', link_id: link.id, domain: 'tx.test', key: 'a', event_name: 'Sign up', customer_id: 'cus_tx',
      url: 'https://example.com', country: 'US', city: 'X', region: 'US-CA', continent: 'NA', device: 'Desktop', browser: 'Chrome', os: 'Linux',
      referer: '(direct)', referer_url: '(direct)', trigger: 'link', ip: '', ua: '', amount: 0,
    };
    await assert.rejects(
      t.database.db.transaction().execute(async (trx) => {
        await t.ctx.conversions.append([event], trx);
        throw new Error('abort');
      }),
      /abort/,
    );
    const count = async (table: 'analytics_hourly' | 'analytics_daily') =>
      (await t.database.db.withTables<Record<typeof table, { workspace_id: string }>>().selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).where('workspace_id', '=', ws.workspaceId).executeTakeFirstOrThrow()).n;
    assert.equal(Number(await count('analytics_hourly')), 0);
    assert.equal(Number(await count('analytics_daily')), 0);
    await t.ctx.events.append([event]);
    assert.equal(Number(await count('analytics_hourly')), 1);
    assert.equal(Number(await count('analytics_daily')), 5); // one row per tuple
  });

  test('forgetLinks removes a link’s events and takes them out of the rollups', async () => {
    const before = await rollups.retrieve(auth, AnalyticsQuery.parse({ interval: 'all', event: 'composite' }));
    assert.deepEqual(before, { clicks: 12, leads: 3, sales: 3, saleAmount: 8200 });
    const removed = await t.ctx.events.forgetLinks(t.workspaceId, ['link_a']);
    assert.equal(removed, 9 + 2 + 2); // link_a: 9 clicks, 2 leads, 2 sales
    for (const groupBy of ['count', 'countries', 'top_links', 'timeseries', 'referer_urls']) {
      for (const range of [{ interval: 'all' }, { interval: 'mtd', timezone: 'America/Los_Angeles' }, { interval: '30d' }]) {
        await compare(auth, { groupBy, event: 'composite', ...range });
      }
    }
    assert.deepEqual(await rollups.retrieve(auth, AnalyticsQuery.parse({ interval: 'all', event: 'composite' })), { clicks: 3, leads: 1, sales: 1, saleAmount: 700 });
  });
});
