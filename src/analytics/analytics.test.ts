/**
 * GET /analytics against the seeded fixture (testing.ts), on the engine under test: the exact
 * figures of every grouping, every filter and the interval edges. Default scope: unsorted links
 * that are not disabled (link_a, link_root, link_c); link_b sits in a folder, link_off is disabled.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { SEED_NOW, seedAnalytics, type Seed } from './testing.js';

let t: TestApp;
let seed: Seed;

before(async () => {
  t = await createTestApp({ now: () => SEED_NOW });
  const other = await t.addWorkspace();
  seed = await seedAnalytics(t.database.db, t.ctx.events, t.workspaceId, other.workspaceId);
});
after(() => t.close());

async function get(query: string): Promise<any> {
  const res = await t.inject({ method: 'GET', url: `/analytics?${query}` });
  assert.equal(res.statusCode, 200, `${query}: ${res.body}`);
  return res.json();
}
const m = (clicks: number, leads = 0, sales = 0, saleAmount = 0) => ({ clicks, leads, sales, saleAmount });
const strip = (rows: any[], key: string) => rows.map((r) => [r[key], r.clicks, r.leads, r.sales, r.saleAmount]);

describe('count', () => {
  test('each event reports its own metrics, the others are 0; default interval is 24h', async () => {
    assert.deepEqual(await get(''), m(6));
    assert.deepEqual(await get('event=leads'), m(0, 3));
    assert.deepEqual(await get('event=sales'), m(0, 0, 3, 8200));
    assert.deepEqual(await get('event=composite'), m(6, 3, 3, 8200));
    assert.deepEqual(await get('event=composite&interval=all'), m(12, 3, 3, 8200));
  });
});

describe('every grouping (event=composite, interval=all)', () => {
  const q = (g: string) => get(`event=composite&interval=all&groupBy=${g}`);

  test('geography', async () => {
    assert.deepEqual(await q('countries'), [
      { country: 'US', region: '*', city: '*', ...m(7, 2, 2, 7500) },
      { country: 'DE', region: '*', city: '*', ...m(2) },
      { country: 'FR', region: '*', city: '*', ...m(1) },
      { country: 'GB', region: '*', city: '*', ...m(1, 1, 1, 700) },
    ]);
    assert.deepEqual(await q('continents'), [{ continent: 'NA', ...m(7, 2, 2, 7500) }, { continent: 'EU', ...m(4, 1, 1, 700) }]);
    assert.deepEqual(await q('regions'), [
      { country: 'US', region: 'US-NY', city: '*', ...m(4, 1) },
      { country: 'US', region: 'US-CA', city: '*', ...m(3, 1, 2, 7500) },
      { country: 'DE', region: 'DE-BE', city: '*', ...m(2) },
      { country: 'FR', region: 'FR-IDF', city: '*', ...m(1) },
      { country: 'GB', region: 'GB-ENG', city: '*', ...m(1, 1, 1, 700) },
    ]);
    assert.deepEqual((await q('cities')).map((r: any) => [r.city, r.region, r.country, r.clicks, r.leads, r.sales, r.saleAmount]), [
      ['New York', 'US-NY', 'US', 4, 1, 0, 0],
      ['San Francisco', 'US-CA', 'US', 3, 1, 2, 7500],
      ['Berlin', 'DE-BE', 'DE', 2, 0, 0, 0],
      ['Paris', 'FR-IDF', 'FR', 1, 0, 0, 0],
      ['London', 'GB-ENG', 'GB', 1, 1, 1, 700],
    ]);
  });

  test('devices, browsers, os, triggers', async () => {
    assert.deepEqual(strip(await q('devices'), 'device'), [['Desktop', 9, 2, 3, 8200], ['Mobile', 3, 1, 0, 0]]);
    assert.deepEqual(strip(await q('browsers'), 'browser'), [
      ['Chrome', 8, 1, 2, 7500],
      ['Mobile Safari', 2, 1, 0, 0],
      ['Edge', 1, 1, 1, 700],
      ['Firefox', 1, 0, 0, 0],
    ]);
    assert.deepEqual(strip(await q('os'), 'os'), [
      ['Mac OS', 5, 1, 2, 7500],
      ['Windows', 3, 1, 1, 700],
      ['iOS', 2, 1, 0, 0],
      ['Android', 1, 0, 0, 0],
      ['Linux', 1, 0, 0, 0],
    ]);
    const triggers = [['link', 11, 2, 3, 8200], ['qr', 1, 1, 0, 0]];
    assert.deepEqual(strip(await q('triggers'), 'trigger'), triggers);
    assert.deepEqual(strip(await q('trigger'), 'trigger'), triggers);
  });

  test('referers and referer URLs (without their query)', async () => {
    assert.deepEqual(strip(await q('referers'), 'referer'), [
      ['(direct)', 6, 1, 0, 0],
      ['google.com', 3, 1, 2, 7500],
      ['twitter.com', 2, 0, 0, 0],
      ['bing.com', 1, 1, 1, 700],
    ]);
    assert.deepEqual(strip(await q('referer_urls'), 'refererUrl'), [
      ['(direct)', 6, 1, 0, 0],
      ['https://google.com/', 2, 0, 0, 0],
      ['https://twitter.com/x', 2, 0, 0, 0],
      ['https://bing.com/', 1, 1, 1, 700],
      ['https://google.com/search', 1, 1, 2, 7500],
    ]);
  });

  test('links, domains, URLs and UTM values', async () => {
    const links = await q('top_links');
    assert.deepEqual(strip(links, 'id'), [['link_a', 9, 2, 2, 7500], ['link_c', 2, 0, 0, 0], ['link_root', 1, 1, 1, 700]]);
    assert.deepEqual(links[0], {
      link: 'link_a', id: 'link_a', domain: 'go.test', key: 'a', shortLink: 'https://go.test/a', url: 'https://example.com/a?utm_source=news',
      title: 'A', comments: null, folderId: null, partnerId: null, createdAt: new Date(SEED_NOW - 100 * 86_400_000).toISOString(), ...m(9, 2, 2, 7500),
    });
    assert.deepEqual(strip(await q('top_domains'), 'domain'), [['go.test', 11, 2, 2, 7500], ['other.test', 1, 1, 1, 700]]);
    assert.deepEqual(strip(await q('top_urls'), 'url'), [
      ['https://example.com/a?utm_source=news', 8, 2, 2, 7500],
      ['https://example.com/c', 2, 0, 0, 0],
      ['https://example.com/a?utm_source=news&ref=spring', 1, 0, 0, 0],
      ['https://other.example/', 1, 1, 1, 700],
    ]);
    assert.deepEqual(strip(await q('top_base_urls'), 'url'), [
      ['https://example.com/a', 9, 2, 2, 7500],
      ['https://example.com/c', 2, 0, 0, 0],
      ['https://other.example/', 1, 1, 1, 700],
    ]);
    assert.deepEqual(strip(await q('utm_sources'), 'utm_source'), [['news', 9, 2, 2, 7500]]);
    for (const g of ['utm_mediums', 'utm_campaigns', 'utm_terms', 'utm_contents']) assert.deepEqual(await q(g), []);
  });

  test('link attributes: tags, folders, partners; groups and partner tags hold nothing', async () => {
    assert.deepEqual(await q('top_link_tags'), [
      { tagId: seed.tags.t1, tag: { id: seed.tags.t1, name: 'Newsletter', color: 'blue' }, ...m(9, 2, 2, 7500) },
      { tagId: seed.tags.t2, tag: { id: seed.tags.t2, name: 'Partners', color: 'green' }, ...m(2) },
    ]);
    assert.deepEqual(strip(await q('top_partners'), 'partnerId'), [['pn_2', 2, 0, 0, 0]]);
    // Folders: the default scope is unsorted links, so a folder shows up only when asked for.
    assert.deepEqual(await q('top_folders'), []);
    assert.deepEqual(await get(`event=composite&interval=all&groupBy=top_folders&folderId=${seed.folder}`), [
      { folderId: seed.folder, folder: { id: seed.folder, name: 'Campaigns', accessLevel: 'write' }, ...m(2, 1, 1, 10000) },
    ]);
    assert.deepEqual(await q('top_groups'), []);
    assert.deepEqual(await q('top_partner_tags'), []);
  });

  test('ordering follows the event: leads by leads, sales by sale amount; rows without the event are dropped', async () => {
    assert.deepEqual(strip(await get('event=leads&interval=all&groupBy=countries'), 'country'), [['US', 0, 2, 0, 0], ['GB', 0, 1, 0, 0]]);
    assert.deepEqual(strip(await get('event=sales&interval=all&groupBy=countries'), 'country'), [['US', 0, 0, 2, 7500], ['GB', 0, 0, 1, 700]]);
    assert.deepEqual(strip(await get('event=clicks&interval=all&groupBy=countries'), 'country').slice(0, 2), [['US', 7, 0, 0, 0], ['DE', 2, 0, 0, 0]]);
  });

  test('`type` (spec) and `groupBy` (published) are the same parameter', async () => {
    assert.deepEqual(await get('event=composite&interval=all&type=devices'), await q('devices'));
  });
});

describe('every filter (count, event=composite, interval=all)', () => {
  const cases: [string, ReturnType<typeof m>][] = [
    ['domain=go.test', m(11, 2, 2, 7500)],
    ['domain=-go.test', m(1, 1, 1, 700)],
    ['domain=go.test&key=b', m(2, 1, 1, 10000)], // named: its folder does not matter
    ['domain=go.test&key=OFF', m(1, 1, 1, 999)], // named: a disabled link's own stats stay readable
    ['linkId=link_off', m(1, 1, 1, 999)],
    ['linkId=link_a,link_root', m(10, 3, 3, 8200)],
    ['linkId=-link_a', m(3, 1, 1, 700)],
    ['externalId=ext_crm-c', m(2)],
    ['externalId=crm-c', m(2)],
    ['tenantId=acme', m(9, 2, 2, 7500)],
    ['programId=prog_1', m(2)],
    ['partnerId=pn_2', m(2)],
    ['partnerId=pn_1', m(0)], // link_b is in a folder
    ['folderId=FOLDER', m(2, 1, 1, 10000)],
    ['folderId=-FOLDER', m(12, 3, 3, 8200)],
    ['partnerId=pn_1&folderId=FOLDER', m(2, 1, 1, 10000)],
    ['tagIds=T1', m(9, 2, 2, 7500)],
    ['tagId=T2', m(2)],
    ['tagIds=T1,T2', m(11, 2, 2, 7500)],
    ['tagIds=T1&tagIds=T2', m(11, 2, 2, 7500)],
    ['tagIds=-T1', m(3, 1, 1, 700)],
    ['root=true', m(1, 1, 1, 700)],
    ['root=false', m(11, 2, 2, 7500)],
    ['groupId=grp_1', m(0)],
    ['partnerTagId=ptag_1', m(0)],
    ['country=US', m(7, 2, 2, 7500)],
    ['country=us', m(7, 2, 2, 7500)],
    ['country=-US', m(5, 1, 1, 700)],
    ['city=Berlin', m(2)],
    ['region=US-CA', m(3, 1, 2, 7500)],
    ['region=CA', m(3, 1, 2, 7500)],
    ['region=US-CA,US-NY', m(7, 2, 2, 7500)],
    ['continent=EU', m(4, 1, 1, 700)],
    ['device=mobile', m(3, 1)],
    ['device=-Mobile', m(9, 2, 3, 8200)],
    ['browser=Chrome', m(8, 1, 2, 7500)],
    ['os=iOS', m(2, 1)],
    ['os=ios', m(2, 1)],
    ['trigger=qr', m(1, 1)],
    ['trigger=-qr', m(11, 2, 3, 8200)],
    ['qr=true', m(1, 1)],
    ['qr=false', m(11, 2, 3, 8200)],
    ['referer=google.com', m(3, 1, 2, 7500)],
    ['refererUrl=https://google.com/search', m(1, 1, 2, 7500)],
    ['refererUrl=https://google.com/search?q=9', m(1, 1, 2, 7500)],
    ['url=https://example.com/c', m(2)],
    ['utm_source=news', m(9, 2, 2, 7500)],
    ['utm_source=-news', m(3, 1, 1, 700)],
    ['saleType=new', m(12, 3, 2, 5700)],
    ['saleType=recurring', m(12, 3, 1, 2500)],
    ['customerId=cus_1', m(1, 1, 2, 7500)],
    ["query=metadata['plan']:'pro'", m(12, 1, 1, 5000)],
    ['query=metadata.seats:3', m(12, 1, 0, 0)],
    ['query=free', m(12, 1, 0, 0)],
    ['ref=spring', m(1)],
    ['country=US&device=Desktop&browser=Chrome', m(5, 1, 2, 7500)],
  ];
  for (const [filter, expected] of cases) {
    test(filter, async () => {
      // One pass: a random id put in for FOLDER may itself contain "T1" or "T2".
      const ids: Record<string, string> = { FOLDER: seed.folder, T1: seed.tags.t1, T2: seed.tags.t2 };
      const query = filter.replace(/FOLDER|T1|T2/g, (name) => ids[name]!);
      assert.deepEqual(await get(`event=composite&interval=all&${encodeURI(query)}`), expected);
    });
  }

  test('link lookups that fail', async () => {
    const res = (q: string) => t.inject({ method: 'GET', url: `/analytics?${q}` });
    assert.equal((await res('externalId=nope')).statusCode, 400);
    assert.match((await res('externalId=nope')).json().error.message, /prefix it with `ext_`/);
    assert.equal((await res('externalId=ext_nope')).statusCode, 404);
    assert.equal((await res('domain=go.test&key=missing')).statusCode, 404);
    // Another workspace's link answers like a missing one (no existence oracle, issue 13).
    const foreign = await res('domain=far.test&key=x');
    const missing = await res('domain=far.test&key=nothing-here');
    assert.equal(foreign.statusCode, 404);
    assert.deepEqual(foreign.json(), missing.json());
  });
});

describe('intervals and time zones', () => {
  const clicks = async (q: string) => (await get(q)).clicks;
  test('presets in UTC', async () => {
    const expected = { '24h': 6, '7d': 7, '30d': 9, '90d': 11, '1y': 12, mtd: 9, qtd: 11, ytd: 12, all: 12 };
    for (const [interval, n] of Object.entries(expected)) assert.equal(await clicks(`interval=${interval}`), n, interval);
  });

  test('mtd, qtd and ytd in Los Angeles leave out what is still last month, quarter or year there', async () => {
    const tz = 'timezone=America/Los_Angeles';
    assert.equal(await clicks(`interval=mtd&${tz}`), 8);
    assert.equal(await clicks(`interval=qtd&${tz}`), 10);
    assert.equal(await clicks(`interval=ytd&${tz}`), 11);
  });

  test('start/end take precedence and cover whole days', async () => {
    assert.equal(await clicks('start=2024-05-14&end=2024-05-14&interval=all'), 3);
    assert.equal(await clicks('start=2024-05-14&end=2024-05-01'), 6);
  });

  test('timeseries: buckets in the zone, zero-filled, labelled with the offset', async () => {
    const days = await get('groupBy=timeseries&interval=mtd&timezone=America/Los_Angeles');
    assert.equal(days.length, 14);
    assert.deepEqual(days[0], { start: '2024-05-01T00:00:00.000-0700', ...m(0) });
    const nonZero = days.filter((d: any) => d.clicks).map((d: any) => [d.start, d.clicks]);
    assert.deepEqual(nonZero, [
      ['2024-05-04T00:00:00.000-0700', 1],
      ['2024-05-13T00:00:00.000-0700', 2],
      ['2024-05-14T00:00:00.000-0700', 5],
    ]);
    const months = await get('groupBy=timeseries&interval=ytd&timezone=America/Los_Angeles&event=composite');
    assert.deepEqual(months.map((x: any) => [x.start, x.clicks, x.sales]), [
      ['2024-01-01T00:00:00.000-0800', 0, 0],
      ['2024-02-01T00:00:00.000-0800', 0, 0],
      ['2024-03-01T00:00:00.000-0800', 1, 0],
      ['2024-04-01T00:00:00.000-0700', 2, 0],
      ['2024-05-01T00:00:00.000-0700', 8, 3],
    ]);
    const hours = await get('groupBy=timeseries&event=sales');
    assert.equal(hours.length, 25);
    assert.deepEqual(hours.filter((h: any) => h.sales).map((h: any) => [h.start, h.sales, h.saleAmount]), [
      ['2024-05-15T02:00:00.000+0000', 3, 8200],
    ]);
    const usDays = await get('groupBy=timeseries&interval=7d&country=US');
    assert.deepEqual(usDays.filter((d: any) => d.clicks).map((d: any) => [d.start, d.clicks]), [
      ['2024-05-13T00:00:00.000+0000', 1],
      ['2024-05-14T00:00:00.000+0000', 1],
      ['2024-05-15T00:00:00.000+0000', 2],
    ]);
  });
});
