/**
 * The analytics page shows exactly what `GET /analytics` answers for the same query: totals,
 * time series and every breakdown card, for several ranges and filters, on the engine under test.
 * A click on a card's row is a link that adds that filter.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { SEED_NOW, seedAnalytics, type Seed } from '../analytics/testing.js';
import { CARDS, CARD_ROWS } from './analytics/query.js';
import { readAnalyticsPage, unescapeHtml } from './page-parsing.js';
import { addUser, logIn, slugOf, type Browser } from './testing.js';

let t: TestApp;
let seed: Seed;
let viewer: Browser;
let slug: string;

before(async () => {
  t = await createTestApp({ now: () => SEED_NOW });
  const other = await t.addWorkspace();
  seed = await seedAnalytics(t.database.db, t.ctx.events, t.workspaceId, other.workspaceId);
  viewer = await logIn(t, await addUser(t, 'viewer'));
  slug = await slugOf(t);
});
after(() => t.close());

async function api(query: string): Promise<any> {
  const res = await t.inject({ method: 'GET', url: `/analytics?${query}` });
  assert.equal(res.statusCode, 200, `${query}: ${res.body}`);
  return res.json();
}

async function page(query: string) {
  const res = await viewer.get(`/dashboard/w/${slug}/analytics?${query}`);
  assert.equal(res.statusCode, 200, `${query}: ${res.body.slice(0, 500)}`);
  return { res, ...readAnalyticsPage(res.body) };
}

/**
 * The page with `query` against the API with the same query. Without a folder the API counts only
 * links outside folders and the page every folder, so the page is asked for "Outside folders"
 * (`folderId=unsorted`) then; the every-folder view has its own test below.
 */
async function assertPageEqualsApi(query: string) {
  const shown = await page(/folderId=/.test(query) ? query : `${query}&folderId=unsorted`);
  const composite = `${query}&event=composite`;
  assert.deepEqual(shown.totals, await api(composite), `totals of ${query}`);
  const series = (await api(`${composite}&groupBy=timeseries`)) as any[];
  assert.deepEqual(shown.series!.clicks, series.map((p) => p.clicks), `series of ${query}`);
  assert.deepEqual(shown.series!.leads, series.map((p) => p.leads));
  assert.deepEqual(shown.series!.sales, series.map((p) => p.sales));
  assert.deepEqual(shown.series!.x, series.map((p) => Date.parse(p.start.replace(/(\d\d)(\d\d)$/, '$1:$2')) / 1000));
  for (const card of CARDS) {
    const rows = ((await api(`${composite}&groupBy=${card.groupBy}`)) as any[]).slice(0, CARD_ROWS);
    const expected = rows.map((r) => ({ value: String(r[card.field]), clicks: r.clicks, leads: r.leads, sales: r.sales, saleAmount: r.saleAmount }));
    assert.deepEqual(shown.cards.get(card.groupBy), expected, `${card.groupBy} of ${query}`);
  }
  return shown;
}

describe('analytics page = GET /analytics for the same query', () => {
  test('all time, every card', async () => {
    const shown = await assertPageEqualsApi('interval=all');
    assert.ok(shown.totals.clicks > 0 && shown.totals.sales > 0, 'the fixture has figures');
    assert.ok(shown.cards.get('countries')!.length > 1);
  });

  test('presets and a custom range with a time zone', async () => {
    await assertPageEqualsApi('interval=24h');
    await assertPageEqualsApi('interval=30d&timezone=America/Los_Angeles');
    const custom = await assertPageEqualsApi('start=2024-03-01&end=2024-05-14&timezone=America/Los_Angeles&country=US');
    // The preset links leave the custom dates and keep the time zone and filters.
    const preset = /<nav class="tabs presets"[\s\S]*?<a href="([^"]*interval=7d[^"]*)"/.exec(custom.res.body)![1]!.replace(/&amp;/g, '&');
    const q = new URL(preset, 'http://x').searchParams;
    assert.equal(q.get('start'), null);
    assert.equal(q.get('timezone'), 'America/Los_Angeles');
    assert.equal(q.get('country'), 'US');
  });

  test('filters: country, device, link, tag, folder, domain, referer, UTM', async () => {
    await assertPageEqualsApi('interval=all&country=US');
    await assertPageEqualsApi('interval=all&device=Mobile&browser=Chrome');
    await assertPageEqualsApi('interval=all&linkId=link_b');
    await assertPageEqualsApi(`interval=all&tagIds=${seed.tags.t1}`);
    await assertPageEqualsApi(`interval=all&folderId=${seed.folder}`);
    await assertPageEqualsApi('interval=all&domain=go.test&referer=google.com');
    await assertPageEqualsApi('interval=all&utm_source=news');
  });

  test('no folder chosen counts links in every folder; "Outside folders" is the API\'s default', async () => {
    const all = await page('interval=all');
    const outside = await api('interval=all&event=composite');
    const inFolder = await api(`interval=all&event=composite&folderId=${seed.folder}`);
    assert.ok(inFolder.clicks > 0 && outside.clicks > 0, 'the fixture has clicks inside and outside the folder');
    for (const k of ['clicks', 'leads', 'sales', 'saleAmount'] as const) assert.equal(all.totals[k], outside[k] + inFolder[k], k);
    const outsideSeries = (await api('interval=all&event=composite&groupBy=timeseries')) as any[];
    const folderSeries = (await api(`interval=all&event=composite&groupBy=timeseries&folderId=${seed.folder}`)) as any[];
    assert.deepEqual(all.series!.clicks, outsideSeries.map((p, i) => p.clicks + folderSeries[i].clicks), 'the chart counts every folder too');
    const top = all.cards.get('top_links')!.map((r) => r.value);
    assert.ok(top.includes('link_b'), `the folder's link is in Top links: ${top}`);
    assert.ok(!(await page('interval=all&folderId=unsorted')).cards.get('top_links')!.some((r) => r.value === 'link_b'));
    // The choice is explicit in the form, and the export link carries it.
    assert.match(all.res.body, /<option value="" selected>All folders<\/option>|<option value="">All folders<\/option>/);
    const unsorted = await page('interval=all&folderId=unsorted');
    assert.match(unsorted.res.body, /<option value="unsorted" selected>Outside folders<\/option>/);
    assert.match(unsorted.res.body, /\/analytics\/export\?[^"]*folderId=unsorted/);
    // The export of the page's figures: every folder by default, the API's default for "unsorted".
    const csv = async (q: string) => (await viewer.get(`/dashboard/w/${slug}/analytics/export?interval=all&event=composite&groupBy=top_links${q}`)).body;
    assert.match(await csv(''), /link_b/);
    assert.doesNotMatch(await csv('&folderId=unsorted'), /link_b/);
    // The API keeps its published behaviour.
    assert.ok(!((await api('interval=all&event=composite&groupBy=top_links')) as any[]).some((r) => r.id === 'link_b'));
  });

  test("a card's row links to the page with that filter added; the filter's ✕ removes it", async () => {
    const shown = await page('interval=all&device=Desktop');
    const href = shown.links.get('countries')![0]!;
    const url = new URL(href, 'http://x');
    assert.equal(url.pathname, `/dashboard/w/${slug}/analytics`);
    assert.equal(url.searchParams.get('device'), 'Desktop');
    assert.equal(url.searchParams.get('country'), shown.cards.get('countries')![0]!.value);
    const filtered = await page(url.search.slice(1));
    assert.deepEqual(filtered.totals, await api(`${url.search.slice(1)}&event=composite`));
    assert.ok(filtered.totals.clicks <= shown.totals.clicks);
    assert.match(filtered.res.body, /aria-label="Remove the filter Country"/);
  });

  test('no data of another workspace; unknown filters are ignored, invalid ones answer 422', async () => {
    const shown = await page('interval=all&linkId=link_foreign');
    assert.equal(shown.totals.clicks, 0);
    assert.doesNotMatch(shown.res.body, /far\.test/);
    assert.equal((await viewer.get(`/dashboard/w/${slug}/analytics?interval=forever`)).statusCode, 422);
    assert.equal((await viewer.get(`/dashboard/w/${slug}/analytics?interval=all&nonsense=1`)).statusCode, 200);
  });

  test('the chart is drawn by our script from a data attribute; uPlot is served by this server', async () => {
    const shown = await page('interval=7d');
    assert.match(shown.res.body, /<script src="\/dashboard\/assets\/uplot\.min\.js\?v=\w+" defer><\/script>/);
    assert.match(shown.res.body, /<script src="\/dashboard\/assets\/chart\.js\?v=\w+" defer><\/script>/);
    // No inline executable script: every <script> either has src or is JSON data.
    for (const tag of shown.res.body.match(/<script[^>]*>/g) ?? []) assert.match(tag, /src=/);
    for (const name of ['uplot.min.js', 'uplot.min.css', 'chart.js']) {
      const res = await t.app.inject({ method: 'GET', url: `/dashboard/assets/${name}` });
      assert.equal(res.statusCode, 200, name);
    }
  });
});

test('a link title with markup is escaped on the analytics page', async () => {
  const t2 = await createTestApp();
  try {
    const res = await t2.app.inject({ method: 'POST', url: '/links', headers: t2.headers, payload: { url: 'https://example.com/', key: 'x', title: '<b>t</b>' } });
    assert.equal(res.statusCode, 200, res.body);
    const owner = await logIn(t2, await addUser(t2, 'owner'));
    const html = (await owner.get(`/dashboard/w/${await slugOf(t2)}/analytics?interval=all&utm_source=${encodeURIComponent('"><script>x</script>')}`)).body;
    // Inside quoted attributes the quote is escaped; in text the `<` is.
    assert.doesNotMatch(html, /"><script>x/);
    assert.match(html, /&lt;script>x/);
    assert.doesNotMatch(html, /<b>t<\/b>/);
  } finally {
    await t2.close();
  }
});

describe('finding a link and seeing a whole card', () => {
  const options = (html: string) => [...html.matchAll(/<option value="([^"]*)"[^>]*>/g)].map((m) => m[1]);

  test('the link picker searches as it is typed (htmx fragment) and on Apply without JavaScript', async () => {
    const shown = await page('interval=all');
    assert.match(shown.res.body, /<input type="search" name="linkSearch"[^>]*hx-get="\/dashboard\/w\/[^"]+\/analytics\/link-options"[^>]*hx-target="#link-choices"/);
    const fragment = async (q: string) => {
      const res = await viewer.get(`/dashboard/w/${slug}/analytics/link-options?${q}`, { 'hx-request': 'true' });
      assert.equal(res.statusCode, 200, res.body);
      assert.doesNotMatch(res.body, /<html/);
      return options(res.body);
    };
    assert.deepEqual(await fragment('linkSearch=go.test/b'), ['', 'link_b'], 'a link in a folder is found');
    assert.deepEqual(await fragment('linkSearch=EXAMPLE.COM/C'), ['', 'link_c'], 'by destination, any case');
    assert.ok((await fragment('linkSearch=')).includes('link_root'), 'empty: the newest links');
    // The chosen link stays listed (and selected) whatever is typed; another workspace's link never shows.
    assert.deepEqual(await fragment('linkSearch=nothing-matches&linkId=link_a'), ['', 'link_a']);
    assert.deepEqual(await fragment('linkSearch=nothing-matches&linkId=link_foreign'), ['']);
    // Without JavaScript, Apply sends the search with the form: the select lists the matches.
    const applied = await page('interval=all&linkSearch=go.test/c');
    const select = /<select name="linkId" id="link-choices">([\s\S]*?)<\/select>/.exec(applied.res.body)![1]!;
    assert.deepEqual(options(select), ['', 'link_c']);
    assert.match(applied.res.body, /name="linkSearch" value="go.test\/c"/);
    assert.equal((await viewer.get(`/dashboard/w/${slug}/analytics/link-options?linkSearch=${'x'.repeat(201)}`)).statusCode, 422);
  });

  test('the same picker with checkboxes (the webhook form): matches of the search, the ticked links kept ticked', async () => {
    const boxes = async (q: string) => {
      const res = await viewer.get(`/dashboard/w/${slug}/analytics/link-options?as=checkboxes&${q}`, { 'hx-request': 'true' });
      assert.equal(res.statusCode, 200, res.body);
      assert.doesNotMatch(res.body, /<option|<html/);
      return [...res.body.matchAll(/<input type="checkbox" name="link_([^"]+)" value="on"( checked)?\/>/g)].map((m) => `${m[1]}${m[2] ? ' ✓' : ''}`);
    };
    assert.deepEqual(await boxes('linkSearch=go.test/b'), ['link_b']);
    assert.deepEqual(await boxes('linkSearch=go.test/b&link_link_a=on'), ['link_a ✓', 'link_b'], 'a ticked link stays, ticked, beside the matches');
    assert.deepEqual(await boxes('linkSearch=nothing-matches&link_link_a=on&link_link_foreign=on'), ['link_a ✓'], "another workspace's link never shows");
    assert.match((await viewer.get(`/dashboard/w/${slug}/analytics/link-options?as=checkboxes&linkSearch=nothing-matches`)).body, /No link found\./);
    assert.equal((await viewer.get(`/dashboard/w/${slug}/analytics/link-options?as=table`)).statusCode, 422);
  });

  test('a card with more rows than it shows gets "Show all", which shows every row and back', async () => {
    const c1 = seed.events.find((e) => e.id === 'c1')!;
    const countries = ['AR', 'AT', 'AU', 'BE', 'BR', 'CA', 'CH', 'CL', 'CN', 'CZ', 'DK', 'ES', 'FI'];
    await t.ctx.events.append(countries.map((country, i) => ({ ...c1, id: `cc${i}`, click_id: `cc${i}`, country, timestamp: SEED_NOW - 3 * 86_400_000 - i * 60_000 })));
    const all = (await api('interval=all&event=composite&groupBy=countries')) as any[];
    assert.ok(all.length > CARD_ROWS);
    // "Outside folders", to compare with the API's default.
    const shown = await page('interval=all&device=Desktop&folderId=unsorted');
    assert.equal(shown.cards.get('countries')!.length, CARD_ROWS);
    const link = new RegExp(`<a href="([^"]+)" data-show-all="countries">Show all ([\\d,]+)</a>`).exec(shown.res.body);
    const filtered = (await api('interval=all&event=composite&groupBy=countries&device=Desktop')) as any[];
    assert.ok(link, 'the countries card offers Show all');
    assert.equal(Number(link![2]!.replace(',', '')), filtered.length);
    const url = new URL(link![1]!.replaceAll('&amp;', '&'), 'http://x');
    assert.equal(url.searchParams.get('show'), 'countries');
    assert.equal(url.searchParams.get('device'), 'Desktop', 'the filters stay');
    const expanded = await page(url.search.slice(1));
    assert.deepEqual(expanded.cards.get('countries')!.map((r) => r.value), filtered.map((r) => r.country));
    assert.equal(expanded.cards.get('cities')!.length <= CARD_ROWS, true, 'only that card grows');
    // Countries by name with their flag (the value, the filter, stays the ISO code).
    assert.match(expanded.res.body, /<tr data-value="AT"[^>]*>\s*<td class="url"><a [^>]*>\u{1F1E6}\u{1F1F9} Austria<\/a>/u);
    const back = new RegExp(`<a href="([^"]+)" data-show-all="countries">Show the top rows</a>`).exec(expanded.res.body);
    assert.ok(back && !back[1]!.includes('show='));
    assert.equal((await viewer.get(`/dashboard/w/${slug}/analytics?show=nonsense`)).statusCode, 422);
  });

  test('sorting a card by revenue or a rate: plain links, the rows in that order, the sort kept by the filters (issue 42)', async () => {
    const byClicks = await page('interval=all&folderId=unsorted');
    const href = /<a href="([^"]+)" data-sort="saleAmount">Revenue<\/a>/.exec(byClicks.res.body)![1]!.replace(/&amp;/g, '&');
    const url = new URL(href, 'http://x');
    assert.equal(url.searchParams.get('sort'), 'saleAmount');
    const sorted = await page(url.search.slice(1));
    const rows = (await api('interval=all&event=composite&groupBy=countries')) as any[];
    const expected = [...rows].sort((a, b) => b.saleAmount - a.saleAmount || rows.indexOf(a) - rows.indexOf(b)).slice(0, CARD_ROWS).map((r) => r.country);
    assert.deepEqual(sorted.cards.get('countries')!.map((r) => r.value), expected);
    assert.match(sorted.res.body, /<th scope="col" class="num" aria-sort="descending"><a [^>]*data-sort="saleAmount"/);
    const rowLink = sorted.links.get('devices')![0]!;
    assert.equal(new URL(rowLink, 'http://x').searchParams.get('sort'), 'saleAmount', 'a row filter keeps the sort');
  });

  test('the interval select says "Custom dates" when dates are set, and a preset otherwise (issue 42)', async () => {
    const selected = (html: string) => /<select name="interval">[\s\S]*?<option value="([^"]+)" selected/.exec(html)![1];
    assert.equal(selected((await page('start=2024-03-01&end=2024-03-31')).res.body), 'custom');
    assert.equal(selected((await page('interval=30d')).res.body), '30d');
    assert.equal(selected((await page('')).res.body), '24h');
    // The form sent with a preset chosen while the same dates show: the preset wins.
    const chosen = await page('interval=90d&start=2024-03-01&end=2024-03-31&shownStart=2024-03-01&shownEnd=2024-03-31&folderId=unsorted');
    assert.equal(selected(chosen.res.body), '90d');
    assert.deepEqual(chosen.totals, await api('interval=90d&event=composite'));
  });

  test('the export of the page: totals, series and every card with revenue and rates (issue 42)', async () => {
    const res = await viewer.get(`/dashboard/w/${slug}/analytics/export?interval=all&folderId=unsorted`);
    assert.equal(res.statusCode, 200, res.body.slice(0, 300));
    assert.match(String(res.headers['content-type']), /text\/csv/);
    const lines = res.body.trim().split(/\r?\n/);
    assert.equal(lines[0], 'section,value,label,clicks,leads,sales,saleAmount,leadRate,saleRate,revenuePerClick');
    const count = await api('interval=all&event=composite');
    assert.equal(lines[1], `total,,All,${count.clicks},${count.leads},${count.sales},${count.saleAmount},${+(count.leads / count.clicks).toFixed(6)},${+(count.sales / count.leads).toFixed(6)},${+(count.saleAmount / count.clicks).toFixed(6)}`);
    const series = (await api('interval=all&event=composite&groupBy=timeseries')) as any[];
    assert.equal(lines.filter((l) => l.startsWith('timeseries,')).length, series.length);
    for (const card of CARDS) {
      const rows = (await api(`interval=all&event=composite&groupBy=${card.groupBy}`)) as any[];
      assert.equal(lines.filter((l) => l.startsWith(`${card.groupBy},`)).length, rows.length, card.groupBy);
    }
    // The API's own export of one grouping stays as it was.
    const one = await viewer.get(`/dashboard/w/${slug}/analytics/export?interval=all&groupBy=countries`);
    assert.match(one.body.split(/\r?\n/)[0]!, /^country,/);
  });

  test('compare: two to five links, tags or campaigns, each row and line equal to GET /analytics with that filter (issue 42)', async () => {
    const read = (html: string) => [...html.matchAll(/<tr data-value="([^"]*)" data-clicks="(\d+)" data-leads="(\d+)" data-sales="(\d+)" data-sale-amount="(\d+)"/g)].map((m) => ({ value: m[1], clicks: +m[2]!, leads: +m[3]!, sales: +m[4]!, saleAmount: +m[5]! }));
    // The API's default is "outside folders"; the comparison, like the page, counts every folder:
    // links a and c sit outside folders, so the two agree for them.
    const res = await viewer.get(`/dashboard/w/${slug}/analytics/compare?by=links&interval=all&id=link_a&id=link_c`);
    assert.equal(res.statusCode, 200, res.body.slice(0, 300));
    const rows = read(res.body);
    assert.deepEqual(rows.map((r) => r.value), ['link_a', 'link_c']);
    for (const r of rows) {
      const { value, ...figures } = r;
      assert.deepEqual(figures, await api(`interval=all&event=composite&linkId=${value}`), value);
    }
    const chart = JSON.parse(unescapeHtml(/data-series="([^"]*)"/.exec(res.body)![1]!));
    assert.equal(chart.lines.length, 2);
    const seriesA = (await api('interval=all&event=composite&groupBy=timeseries&linkId=link_a')) as any[];
    assert.deepEqual(chart.lines[0].values, seriesA.map((p) => p.clicks));
    // One choice is not a comparison; a value of another kind is dropped.
    assert.doesNotMatch((await viewer.get(`/dashboard/w/${slug}/analytics/compare?by=tags&interval=all&id=link_a&id=link_c`)).body, /<table class="compare"/);
    const campaigns = (await api('interval=all&event=composite&groupBy=utm_campaigns')) as any[];
    if (campaigns.length >= 2) {
      const c = await viewer.get(`/dashboard/w/${slug}/analytics/compare?by=campaigns&interval=all&${campaigns.slice(0, 2).map((r) => `id=${encodeURIComponent(r.utm_campaign)}`).join('&')}`);
      assert.equal(read(c.body).length, 2);
    }
    assert.equal((await viewer.get(`/dashboard/w/${slug}/analytics/compare?by=nope`)).statusCode, 422);
  });
});
