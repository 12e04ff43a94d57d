/**
 * Every analytics and event-list response passes the official SDK's validation (dub 0.73.5),
 * over real HTTP. The SDK's response union has models for these groupings only; `top_domains`,
 * `top_folders`, `top_link_tags`, `top_partners` and `utm_*` rows have published shapes that no
 * model in the union accepts (the SDK rejects them from the published service too), so they are
 * checked in analytics.test.ts instead.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Dub } from 'dub';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { SEED_NOW, seedAnalytics } from './testing.js';

let t: TestApp;
let dub: Dub;

before(async () => {
  t = await createTestApp({ now: () => SEED_NOW });
  const other = await t.addWorkspace();
  await seedAnalytics(t.database.db, t.ctx.events, t.workspaceId, other.workspaceId);
  dub = new Dub({ token: t.key, serverURL: await t.listen() });
});
after(() => t.close());

const SDK_GROUPINGS = [
  'count', 'timeseries', 'continents', 'regions', 'countries', 'cities', 'devices', 'browsers', 'os', 'trigger', 'triggers',
  'referers', 'referer_urls', 'top_links', 'top_urls', 'top_base_urls', 'top_groups', 'top_partner_tags',
] as const;

test('analytics.retrieve: every modelled grouping, every event, with and without a time zone', async () => {
  for (const groupBy of SDK_GROUPINGS) {
    for (const event of ['clicks', 'leads', 'sales', 'composite'] as const) {
      for (const timezone of ['UTC', 'America/Los_Angeles']) {
        const res = await dub.analytics.retrieve({ groupBy, event, interval: 'ytd', timezone });
        if (groupBy === 'count') assert.equal(Array.isArray(res), false);
        else assert.ok(Array.isArray(res), `${groupBy} ${event}`);
      }
    }
  }
  assert.deepEqual(await dub.analytics.retrieve({ event: 'composite', interval: 'all' }), { clicks: 12, leads: 3, sales: 3, saleAmount: 8200 });
  const countries = (await dub.analytics.retrieve({ groupBy: 'countries', interval: 'all', country: 'US,DE' })) as { country: string; clicks: number }[];
  assert.deepEqual(countries.map((c) => [c.country, c.clicks]), [['US', 7], ['DE', 2]]);
  const links = (await dub.analytics.retrieve({ groupBy: 'top_links', interval: 'all', root: false, tagIds: undefined })) as { id: string }[];
  assert.deepEqual(links.map((l) => l.id), ['link_a', 'link_c']);
  const qr = await dub.analytics.retrieve({ interval: 'all', qr: true });
  assert.deepEqual(qr, { clicks: 1, leads: 0, sales: 0, saleAmount: 0 });
});

test('events.list: clicks, leads and sales records, with paging and the SDK’s default order parameters', async () => {
  const clicks = await dub.events.list({ interval: 'all', limit: 5 });
  assert.equal(clicks.length, 5);
  assert.equal(clicks[0]!.event, 'click');
  const asc = await dub.events.list({ interval: 'all', sortOrder: 'asc', limit: 2 });
  assert.deepEqual(asc.map((e) => ('click' in e ? e.click.id : '')), ['c15', 'c13']);
  const leads = await dub.events.list({ event: 'leads', interval: 'all' });
  assert.deepEqual(leads.map((e) => e.event), ['lead', 'lead', 'lead']);
  const sales = await dub.events.list({ event: 'sales', interval: 'all', saleType: 'new' });
  assert.deepEqual(sales.map((e) => (e.event === 'sale' ? e.sale.amount : 0)), [5000, 700]);
  const filtered = await dub.events.list({ interval: 'all', country: 'DE', device: 'Mobile' });
  assert.deepEqual(filtered.map((e) => ('click' in e ? e.click.id : '')), ['c3']);
});
