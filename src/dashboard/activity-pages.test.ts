/**
 * Events and customers pages on the engine under test: the events page lists what `GET /events`
 * answers page by page; a customer's page shows their link, country and events; other
 * workspaces' customers are 404; names are escaped.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { SEED_NOW, seedAnalytics, type Seed } from '../analytics/testing.js';
import { EVENTS_PAGE_SIZE } from './routes/events.js';
import { addUser, logIn, slugOf, type Browser } from './testing.js';

let t: TestApp;
let seed: Seed;
let viewer: Browser;
let slug: string;
let otherKey: Record<string, string>;

before(async () => {
  t = await createTestApp({ now: () => SEED_NOW });
  const other = await t.addWorkspace();
  otherKey = other.headers;
  seed = await seedAnalytics(t.database.db, t.ctx.events, t.workspaceId, other.workspaceId);
  // Enough clicks for more than one page.
  const c1 = seed.events.find((e) => e.id === 'c1')!;
  await t.ctx.events.append(Array.from({ length: EVENTS_PAGE_SIZE + 5 }, (_, i) => ({ ...c1, id: `cx${i}`, click_id: `cx${i}`, timestamp: SEED_NOW - 5 * 86_400_000 - i * 60_000 })));
  await t.database.db.updateTable('customers').set({ name: '<i>Ada</i>', link_id: 'link_a' }).where('id', '=', 'cus_1').execute();
  viewer = await logIn(t, await addUser(t, 'viewer'));
  slug = await slugOf(t);
});
after(() => t.close());

const idsIn = (html: string) => [...html.matchAll(/data-event-id="([^"]+)"/g)].map((m) => m[1]);

test('the events page and its export count links in every folder unless "Outside folders" is chosen', async () => {
  const apiIds = async (q: string) => ((await t.inject({ method: 'GET', url: `/events?interval=all&limit=100&${q}` })).json() as any[]).map((e) => (e.event === 'click' ? e.click.id : e.eventId));
  for (const event of ['leads', 'sales']) {
    const outside = await apiIds(`event=${event}`);
    const inFolder = await apiIds(`event=${event}&folderId=${seed.folder}`);
    assert.ok(inFolder.length > 0, `the fixture has ${event} in the folder`);
    const res = await viewer.get(`/dashboard/w/${slug}/events?event=${event}`);
    assert.deepEqual(new Set(idsIn(res.body)), new Set([...outside, ...inFolder]), event);
    assert.match(res.body, /<option value="unsorted">Outside folders<\/option>/);
    const folder = await viewer.get(`/dashboard/w/${slug}/events?event=${event}&folderId=${seed.folder}`);
    assert.deepEqual(new Set(idsIn(folder.body)), new Set(inFolder));
    assert.match(folder.body, new RegExp(`events/export\\?event=${event}&(amp;)?folderId=${seed.folder}`));
  }
  const csv = async (q: string) => (await viewer.get(`/dashboard/w/${slug}/events/export?event=sales${q}`)).body;
  assert.match(await csv(''), /go\.test\/b/);
  assert.doesNotMatch(await csv('&folderId=unsorted'), /go\.test\/b/);
});

test('the events page walks what GET /events answers by keyset: Older, then Newer back, for each tab (issue 42)', async () => {
  const pageLink = (html: string, rel: 'next' | 'prev') => {
    const m = new RegExp(`href="([^"]*)" rel="${rel}"`).exec(html);
    return m ? m[1]!.replace(/&amp;/g, '&') : undefined;
  };
  for (const event of ['clicks', 'leads', 'sales']) {
    // "Outside folders" is the API's default; the every-folder view is tested above.
    const api = await t.inject({ method: 'GET', url: `/events?event=${event}&limit=1000&interval=all` });
    const all = (api.json() as any[]).map((e) => (e.event === 'click' ? e.click.id : e.eventId));
    const first = await viewer.get(`/dashboard/w/${slug}/events?event=${event}&folderId=unsorted`);
    assert.equal(first.statusCode, 200, first.body.slice(0, 300));
    assert.deepEqual(idsIn(first.body), all.slice(0, EVENTS_PAGE_SIZE), `${event} first page`);
    assert.equal(pageLink(first.body, 'prev'), undefined, 'the newest page has no Newer');
    if (all.length <= EVENTS_PAGE_SIZE) {
      assert.equal(pageLink(first.body, 'next'), undefined, `${event}: one page, no Older`);
      continue;
    }
    const olderHref = pageLink(first.body, 'next')!;
    assert.match(olderHref, /events\?event=clicks&folderId=unsorted&older=\d+\.[\w-]+$/);
    const second = await viewer.get(olderHref);
    assert.deepEqual(idsIn(second.body), all.slice(EVENTS_PAGE_SIZE, 2 * EVENTS_PAGE_SIZE), `${event} second page`);
    assert.equal(pageLink(second.body, 'next'), undefined, 'the last page has no Older');
    const back = await viewer.get(pageLink(second.body, 'prev')!);
    assert.deepEqual(idsIn(back.body), all.slice(0, EVENTS_PAGE_SIZE), 'Newer from the second page is the first page again');
    assert.equal(pageLink(back.body, 'prev'), undefined, 'and it knows it is the newest');
  }
  assert.ok((await viewer.get(`/dashboard/w/${slug}/events?event=clicks`)).body.includes('<time datetime='), 'times carry their ISO for the local rewrite');
  assert.equal((await viewer.get(`/dashboard/w/${slug}/events?event=pageviews`)).statusCode, 422);
  assert.equal((await viewer.get(`/dashboard/w/${slug}/events?older=12;drop`)).statusCode, 422);
});

test('the events page filters by link, and names the link in its chip', async () => {
  const api = await t.inject({ method: 'GET', url: `/events?event=clicks&limit=1000&interval=all&linkId=link_a` });
  const expected = (api.json() as any[]).map((e) => e.click.id);
  assert.ok(expected.length > 0, 'the fixture has clicks on link_a');
  const res = await viewer.get(`/dashboard/w/${slug}/events?event=clicks&folderId=unsorted&linkId=link_a`);
  assert.deepEqual(idsIn(res.body), expected.slice(0, EVENTS_PAGE_SIZE));
  assert.match(res.body, /<span>Link: [^<]*go\.test\/a/);
  assert.match(res.body, /events\/export\?event=clicks&(amp;)?folderId=unsorted&(amp;)?linkId=link_a/);
});

test("a customer's page: their link, country and events; escaped; another workspace's customer is 404", async () => {
  const list = await viewer.get(`/dashboard/w/${slug}/customers`);
  assert.equal(list.statusCode, 200);
  assert.match(list.body, /data-customer-id="cus_1"/);
  assert.match(list.body, /&lt;i>Ada&lt;\/i>/);
  assert.doesNotMatch(list.body, /<i>Ada/);
  const searched = await viewer.get(`/dashboard/w/${slug}/customers?search=cy%40example.com`);
  assert.match(searched.body, /data-customer-id="cus_3"/);
  assert.doesNotMatch(searched.body, /data-customer-id="cus_1"/);

  const res = await viewer.get(`/dashboard/w/${slug}/customers/cus_1`);
  assert.equal(res.statusCode, 200);
  assert.match(res.body, /go\.test\/a/, 'the link');
  assert.match(res.body, /<dd>\u{1F1FA}\u{1F1F8} United States<\/dd>/u, 'the country, by name with its flag');
  assert.deepEqual(idsIn(res.body).sort(), ['l1', 's1', 's2']);

  const foreign = await t.inject({ method: 'POST', url: '/track/lead', headers: otherKey, payload: { clickId: 'x1', eventName: 'Sign up', customerExternalId: 'far-1' } });
  const customers = await t.inject({ method: 'GET', url: '/customers', headers: otherKey });
  const farId = (customers.json() as any[])[0]?.id ?? 'cus_missing';
  void foreign;
  assert.equal((await viewer.get(`/dashboard/w/${slug}/customers/${farId}`)).statusCode, 404);
  assert.equal((await viewer.get(`/dashboard/w/${slug}/customers/cus_nope`)).statusCode, 404);
});

test("another workspace's events and customers pages are 404 for a non-member", async () => {
  const other = await t.addWorkspace();
  const otherSlug = await slugOf(t, other.workspaceId);
  assert.equal((await viewer.get(`/dashboard/w/${otherSlug}/events`)).statusCode, 404);
  assert.equal((await viewer.get(`/dashboard/w/${otherSlug}/customers`)).statusCode, 404);
});
