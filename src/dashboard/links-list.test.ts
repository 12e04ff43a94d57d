/**
 * The links list's filters, sort, paging and bulk actions (routes/links.tsx, links-bulk.ts) on the
 * engine under test, checked against what the API then returns.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { addDomain, addFolder, addTag } from '../links/test-fixtures.js';
import { addUser, logIn, slugOf, type Browser } from './testing.js';

async function createLink(t: TestApp, body: Record<string, unknown>, headers = t.headers): Promise<{ id: string; key: string }> {
  const res = await t.app.inject({ method: 'POST', url: '/links', headers, payload: body });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

const apiLink = async (t: TestApp, id: string, headers = t.headers) => (await t.app.inject({ method: 'GET', url: `/links/${id}`, headers })).json();

/** The keys of the rows shown, in order. */
const keys = (body: string) => [...body.matchAll(/class="short-link"[^>]*>[^<]*\/([\w-]+)<\/a>/g)].map((m) => m[1]);
const nextHref = (body: string, rel: 'next' | 'prev') => new RegExp(`<a href="([^"]+)" rel="${rel}">`).exec(body)?.[1]?.replaceAll('&amp;', '&');

async function get(browser: Browser, url: string): Promise<string> {
  const res = await browser.get(url);
  assert.equal(res.statusCode, 200, `${url}: ${res.body.slice(0, 300)}`);
  return res.body;
}

test('the list filters by search, domain, tag, folder and archived, and sorts by clicks with numbered pages', async () => {
  let clock = Date.UTC(2026, 0, 1);
  const t = await createTestApp({ now: () => (clock += 1000) });
  try {
    await addDomain(t, 'go.example.com');
    const tag = await addTag(t, 'promo');
    const folder = await addFolder(t, 'Spring');
    await createLink(t, { url: 'https://shop.example.com/a', key: 'plain' });
    await createLink(t, { url: 'https://shop.example.com/b', key: 'ongo', domain: 'go.example.com' });
    await createLink(t, { url: 'https://blog.example.com/c', key: 'tagged', tagIds: [tag] });
    await createLink(t, { url: 'https://shop.example.com/d', key: 'infolder', folderId: folder });
    await createLink(t, { url: 'https://shop.example.com/e', key: 'old', archived: true });
    const browser = await logIn(t, await addUser(t, 'viewer'));
    const base = `/dashboard/w/${await slugOf(t)}/links`;

    assert.deepEqual(keys(await get(browser, base)), ['infolder', 'tagged', 'ongo', 'plain'], 'every folder, not archived, newest first');
    assert.deepEqual(keys(await get(browser, `${base}?folderId=unsorted`)), ['tagged', 'ongo', 'plain'], '"Outside folders"');
    assert.match(await get(browser, `${base}?folderId=unsorted`), /<option value="unsorted" selected>Outside folders<\/option>/);
    // The export follows the list: every folder by default, as the API for "unsorted".
    const csv = async (q: string) => (await browser.get(`${base}/export${q}`)).body;
    assert.match(await csv(''), /infolder/);
    assert.doesNotMatch(await csv('?folderId=unsorted'), /infolder/);
    const apiKeys = ((await t.app.inject({ method: 'GET', url: '/links', headers: t.headers })).json() as { key: string }[]).map((l) => l.key);
    assert.ok(!apiKeys.includes('infolder'), 'GET /links keeps its published outside-folders default');
    assert.deepEqual(keys(await get(browser, `${base}?search=blog`)), ['tagged']);
    assert.deepEqual(keys(await get(browser, `${base}?search=ONGO`)), ['ongo'], 'search by key, any case');
    assert.deepEqual(keys(await get(browser, `${base}?domain=go.example.com`)), ['ongo']);
    assert.deepEqual(keys(await get(browser, `${base}?tagId=${tag}`)), ['tagged']);
    assert.deepEqual(keys(await get(browser, `${base}?folderId=${folder}`)), ['infolder']);
    assert.deepEqual(keys(await get(browser, `${base}?showArchived=true`)), ['old', 'infolder', 'tagged', 'ongo', 'plain']);
    assert.deepEqual(keys(await get(browser, `${base}?sortOrder=asc`)), ['plain', 'ongo', 'tagged', 'infolder']);
    // The filter form shows what is applied.
    assert.match(await get(browser, `${base}?tagId=${tag}`), new RegExp(`<option value="${tag}" selected>promo</option>`));
    assert.equal((await browser.get(`${base}?sortBy=title`)).statusCode, 422);

    // 60 links with distinct clicks: sorted by clicks, 50 a page, then page 2.
    const db = t.ctx.database.db;
    for (let i = 0; i < 60; i++) {
      const l = await createLink(t, { url: `https://many.example.com/${i}`, key: `m${String(i).padStart(2, '0')}` });
      await db.updateTable('links').set({ clicks: 1000 + i }).where('id', '=', l.id).execute();
    }
    const first = await get(browser, `${base}?sortBy=clicks`);
    assert.equal(keys(first).length, 50);
    assert.deepEqual(keys(first).slice(0, 2), ['m59', 'm58']);
    const second = await get(browser, nextHref(first, 'next')!);
    assert.deepEqual(keys(second).slice(0, 3), ['m09', 'm08', 'm07']);
    assert.equal(keys(second).length, 14);
    assert.ok(nextHref(second, 'prev')!.includes('sortBy=clicks'));
    assert.equal(nextHref(second, 'next'), undefined);
  } finally {
    await t.close();
  }
});

test('bulk actions archive, tag, move and delete the selected links through the bulk services', async () => {
  const t = await createTestApp();
  try {
    const existing = await addTag(t, 'existing');
    const added = await addTag(t, 'added');
    const folder = await addFolder(t, 'Moved');
    const a = await createLink(t, { url: 'https://example.com/a', key: 'a', tagIds: [existing] });
    const b = await createLink(t, { url: 'https://example.com/b', key: 'b' });
    const c = await createLink(t, { url: 'https://example.com/c', key: 'c' });
    const other = await t.addWorkspace();
    const theirs = await createLink(t, { url: 'https://example.com/theirs' }, other.headers);
    const browser = await logIn(t, await addUser(t, 'member'));
    const base = `/dashboard/w/${await slugOf(t)}/links`;
    const page = await get(browser, `${base}?search=example`);
    assert.match(page, new RegExp(`<input type="checkbox" form="bulk" name="sel_${a.id}"`));
    assert.match(page, /<button type="submit" name="op" value="archive"/);

    const archive = await browser.post(`${base}/bulk`, { op: 'archive', [`sel_${a.id}`]: 'on', [`sel_${b.id}`]: 'on', [`sel_${theirs.id}`]: 'on', back: 'search=example&after=link_x' });
    assert.equal(archive.statusCode, 303);
    assert.equal(archive.headers.location, `${base}?search=example&done=archive&n=2&failed=1`);
    assert.equal((await apiLink(t, a.id)).archived, true);
    assert.equal((await apiLink(t, b.id)).archived, true);
    assert.equal((await apiLink(t, c.id)).archived, false);
    assert.equal((await apiLink(t, theirs.id, other.headers)).archived, false, 'another workspace’s link is untouched');
    assert.match(await get(browser, archive.headers.location as string), /2 links archived; 1 could not be changed\./);

    await browser.post(`${base}/bulk`, { op: 'unarchive', [`sel_${a.id}`]: 'on' });
    assert.equal((await apiLink(t, a.id)).archived, false);

    const tagged = await browser.post(`${base}/bulk`, { op: 'tag', tagId: added, [`sel_${a.id}`]: 'on', [`sel_${c.id}`]: 'on' });
    assert.equal(tagged.statusCode, 303);
    assert.deepEqual((await apiLink(t, a.id)).tags.map((x: { name: string }) => x.name).sort(), ['added', 'existing'], 'the tag is added, not replacing');
    assert.deepEqual((await apiLink(t, c.id)).tags.map((x: { name: string }) => x.name), ['added']);

    await browser.post(`${base}/bulk`, { op: 'move', folderId: folder, [`sel_${b.id}`]: 'on', [`sel_${c.id}`]: 'on' });
    assert.equal((await apiLink(t, b.id)).folderId, folder);
    assert.equal((await apiLink(t, c.id)).folderId, folder);
    await browser.post(`${base}/bulk`, { op: 'move', folderId: '', [`sel_${c.id}`]: 'on' });
    assert.equal((await apiLink(t, c.id)).folderId, null);

    const deleted = await browser.post(`${base}/bulk`, { op: 'delete', [`sel_${b.id}`]: 'on', [`sel_${theirs.id}`]: 'on' });
    assert.match(deleted.headers.location as string, /done=delete&n=1&failed=1/);
    assert.equal((await t.app.inject({ method: 'GET', url: `/links/${b.id}`, headers: t.headers })).statusCode, 404);
    assert.equal((await t.app.inject({ method: 'GET', url: `/links/${theirs.id}`, headers: other.headers })).statusCode, 200);

    // Refusals: no selection, unknown action, a tag of another workspace (the API's 422).
    // Nothing ticked: back to the list (as filtered) with a notice, not an error page; the buttons
    // carry data-needs-selection, which links.js disables until a box is ticked.
    const none = await browser.post(`${base}/bulk`, { op: 'archive', back: 'search=example' });
    assert.equal(none.statusCode, 303);
    assert.equal(none.headers.location, `${base}?search=example&empty=1`);
    const noticePage = await get(browser, none.headers.location as string);
    assert.match(noticePage, /<p class="error" role="status">Select at least one link first/);
    assert.match(noticePage, /<button type="submit" name="op" value="delete" class="danger" data-needs-selection=""[^>]*>Delete</);
    assert.equal((await browser.post(`${base}/bulk`, { op: 'explode', [`sel_${a.id}`]: 'on' })).statusCode, 422);
    const foreignTag = await addTag(t, 'foreign', { workspaceId: other.workspaceId });
    assert.equal((await browser.post(`${base}/bulk`, { op: 'tag', tagId: foreignTag, [`sel_${a.id}`]: 'on' })).statusCode, 422);
    const many: Record<string, string> = { op: 'archive' };
    for (let i = 0; i < 101; i++) many[`sel_link_${i}`] = 'on';
    assert.equal((await browser.post(`${base}/bulk`, many)).statusCode, 422, 'at most 100, as PATCH /links/bulk');
  } finally {
    await t.close();
  }
});

test('viewers see no write controls and every links write is refused on the server', async () => {
  const t = await createTestApp();
  try {
    const link = await createLink(t, { url: 'https://example.com/v', key: 'v', title: 'T <b>x</b>' });
    const tag = await addTag(t, '<i>tag</i>');
    const base = `/dashboard/w/${await slugOf(t)}/links`;
    const viewer = await logIn(t, await addUser(t, 'viewer'));
    const page = await get(viewer, base);
    assert.doesNotMatch(page, /form="bulk"|name="op"|\/links\/new"|\/edit"|\/archive"/);
    assert.match(page, /data-copy="http:\/\/[^"]+\/v"/, 'the copy button is there for everyone');
    assert.match(page, /T &lt;b>x&lt;\/b>/);
    assert.match(page, /&lt;i>tag&lt;\/i>/);
    for (const op of ['archive', 'unarchive', 'tag', 'move', 'delete']) {
      const res = await viewer.post(`${base}/bulk`, { op, tagId: tag, [`sel_${link.id}`]: 'on' });
      assert.equal(res.statusCode, 403, op);
    }
    assert.equal((await viewer.post(`${base}/${link.id}/archive`, { archived: 'true' })).statusCode, 403);
    const after = await apiLink(t, link.id);
    assert.equal(after.archived, false);
    assert.deepEqual(after.tags, []);
  } finally {
    await t.close();
  }
});

test("each row shows the link's clicks, leads, sales and revenue and opens the link's analytics", async () => {
  const t = await createTestApp();
  try {
    const folder = await addFolder(t, 'Ads');
    const a = await createLink(t, { url: 'https://example.com/a', key: 'a', folderId: folder });
    const b = await createLink(t, { url: 'https://example.com/b', key: 'b' });
    const db = t.ctx.database.db;
    await db.updateTable('links').set({ clicks: 20_000, leads: 1_234, sales: 56, sale_amount: 1_234_567 }).where('id', '=', a.id).execute();
    const viewer = await logIn(t, await addUser(t, 'viewer'));
    const slug = await slugOf(t);
    const page = await get(viewer, `/dashboard/w/${slug}/links`);
    const row = (id: string) => new RegExp(`<tr data-link-id="${id}">([\\s\\S]*?)</tr>`).exec(page)?.[1] ?? '';
    const ra = row(a.id);
    assert.match(ra, /<td class="num clicks" data-label="clicks" data-clicks="20000">20,000<\/td>/);
    assert.match(ra, /data-leads="1234">1,234</);
    assert.match(ra, /data-sales="56">56</);
    assert.match(ra, /data-sale-amount="1234567">\$12,345\.67</);
    assert.match(row(b.id), /data-clicks="0">0</);
    // The short link (and an "Analytics" link, for every role) opens the link's analytics.
    const href = new RegExp(`<a class="short-link" href="([^"]+)"[^>]*>[^<]*/a</a>`).exec(ra)?.[1]?.replaceAll('&amp;', '&');
    assert.equal(href, `/dashboard/w/${slug}/analytics?interval=all&linkId=${a.id}`);
    assert.ok(ra.includes('>Analytics</a>'));
    const analytics = await viewer.get(href!);
    assert.equal(analytics.statusCode, 200);
    // The filter chip names the link by its short link (or title), not its id.
    assert.match(analytics.body, /<span>Link: [^<]*\/a<\/span>/);
  } finally {
    await t.close();
  }
});
