/**
 * Import and export in the dashboard on the engine under test: an uploaded CSV creates links, a
 * second upload skips them, a bad row is reported with its line (escaped), a dry run writes
 * nothing, viewers are refused and the CSRF field is required; the download links give the same
 * files as the API's exports.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { SEED_NOW, seedAnalytics } from '../analytics/testing.js';
import { addUser, logIn, slugOf, type Browser } from './testing.js';

let t: TestApp;
let slug: string;
let member: Browser;
let viewer: Browser;

before(async () => {
  t = await createTestApp({ now: () => SEED_NOW });
  const other = await t.addWorkspace();
  await seedAnalytics(t.database.db, t.ctx.events, t.workspaceId, other.workspaceId);
  slug = await slugOf(t);
  member = await logIn(t, await addUser(t, 'member'));
  viewer = await logIn(t, await addUser(t, 'viewer'));
});
after(() => t.close());

const importPath = () => `/dashboard/w/${slug}/links/import`;

/** Posts the upload form as a browser does: multipart, with the page's CSRF field unless `csrf` is null. */
async function upload(b: Browser, csv: string, opts: { dryRun?: boolean; csrf?: string | null; asField?: boolean; rawTail?: string } = {}) {
  const boundary = '----waymarktest7d3f';
  const parts: string[] = [];
  const csrf = opts.csrf === undefined ? b.csrf : opts.csrf;
  // The form's order: the CSRF field, the dry run box, then the file (the server streams the file after reading the fields).
  if (csrf !== null) parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${csrf}\r\n`);
  if (opts.dryRun) parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="dryRun"\r\n\r\ntrue\r\n`);
  // `asField`: the file sent as a form field (no filename), as a hand-written client may.
  if (opts.asField) parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="file"\r\n\r\n${csv}\r\n`);
  else parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="links.csv"\r\nContent-Type: text/csv\r\n\r\n${csv}\r\n`);
  parts.push(opts.rawTail ?? `--${boundary}--\r\n`);
  const cookie = [...b.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  return t.app.inject({ method: 'POST', url: importPath(), headers: { cookie, 'content-type': `multipart/form-data; boundary=${boundary}` }, payload: parts.join('') });
}

const linkCount = async () => ((await t.inject({ method: 'GET', url: '/links/count' })).json() as number);

test('upload: creates links, a second upload skips them, a bad row is reported with its line, escaped', async () => {
  assert.equal((await member.get(importPath())).statusCode, 200);
  const before = await linkCount();
  const csv = 'url,key\nhttps://example.com/a,imp-a\nhttps://example.com/b,imp-b\nnot a url <b>x</b>,imp-c\n';
  const first = await upload(member, csv);
  assert.equal(first.statusCode, 200, first.body.slice(0, 500));
  assert.match(first.body, /3 rows: 2 created, 0 skipped, 1 rejected/);
  assert.match(first.body, /data-line="4" data-status="rejected"/);
  assert.doesNotMatch(first.body, /<b>x<\/b>/);
  assert.equal(await linkCount(), before + 2);
  const again = await upload(member, csv);
  assert.match(again.body, /3 rows: 0 created, 2 skipped, 1 rejected/);
  assert.match(again.body, /data-line="2" data-status="skipped"/);
  assert.equal(await linkCount(), before + 2);
});

test('a file part cut at the field limit is refused with 422, nothing imported; a malformed body is a 400', async () => {
  await member.get(importPath());
  const before = await linkCount();
  const small = await upload(member, 'url,key\nhttps://example.com/f,imp-field\n', { asField: true, dryRun: true });
  assert.equal(small.statusCode, 200, 'a short field-style file is read');
  assert.match(small.body, /1 rows: 1 would be created/);
  // Past busboy's 64 KiB field limit the value arrives cut: importing its first rows would be silent loss.
  const rows = Array.from({ length: 4000 }, (_, i) => `https://example.com/cut-${i},imp-cut-${i}`).join('\n');
  const cut = await upload(member, `url,key\n${rows}\n`, { asField: true });
  assert.equal(cut.statusCode, 422, cut.body.slice(0, 300));
  assert.match(cut.body, /sent as a form field \(no filename\) longer than 65536 bytes/);
  assert.equal(await linkCount(), before, 'nothing of the cut file is imported');
  // A body that ends inside the file part: busboy's parse error, the client's fault.
  const broken = await upload(member, 'url,key\nhttps://example.com/g,imp-broken\n', { rawTail: '--not-the-end' });
  assert.equal(broken.statusCode, 400, broken.body.slice(0, 300));
  assert.match(broken.body, /Malformed multipart body/);
  assert.doesNotMatch(broken.body, /at \S+ \(.*:\d+:\d+\)/, 'no stack trace');
  assert.equal(await linkCount(), before);
});

test('dry run writes nothing; viewers are refused; the CSRF field is required', async () => {
  await member.get(importPath());
  const before = await linkCount();
  const dry = await upload(member, 'url,key\nhttps://example.com/d,imp-dry\n', { dryRun: true });
  assert.equal(dry.statusCode, 200);
  assert.match(dry.body, /Dry run/);
  assert.match(dry.body, /1 rows: 1 would be created/);
  assert.equal(await linkCount(), before);

  assert.equal((await viewer.get(importPath())).statusCode, 403);
  await viewer.get(`/dashboard/w/${slug}/links`);
  assert.equal((await upload(viewer, 'url,key\nhttps://example.com/v,imp-v\n')).statusCode, 403);
  assert.equal((await upload(member, 'url,key\nhttps://example.com/x,imp-x\n', { csrf: null })).statusCode, 403);
  assert.equal((await upload(member, 'url,key\nhttps://example.com/x,imp-x\n', { csrf: 'forged' })).statusCode, 403);
  assert.equal(await linkCount(), before);
  const links = (await viewer.get(`/dashboard/w/${slug}/links`)).body;
  assert.doesNotMatch(links, /Import CSV/, 'viewers see no import link');
  assert.match(links, /Export CSV/);
});

test('the download links give the same files as the API exports', async () => {
  // Without a folder the dashboard counts every folder and the API only links outside folders:
  // "Outside folders" (folderId=unsorted) is the API's default (analytics-page.test.ts and
  // links-list.test.ts check the every-folder files).
  const pairs: [string, string][] = [
    [`/dashboard/w/${slug}/links/export?folderId=unsorted`, '/links/export'],
    [`/dashboard/w/${slug}/links/export?search=imp`, '/links/export?search=imp'],
    [`/dashboard/w/${slug}/events/export?event=clicks&folderId=unsorted`, '/events/export?event=clicks'],
    [`/dashboard/w/${slug}/events/export?event=sales&folderId=unsorted`, '/events/export?event=sales'],
    [`/dashboard/w/${slug}/analytics/export?event=composite&groupBy=timeseries&interval=30d&folderId=unsorted`, '/analytics/export?event=composite&groupBy=timeseries&interval=30d'],
    [`/dashboard/w/${slug}/analytics/export?groupBy=countries&interval=all&folderId=unsorted`, '/analytics/export?groupBy=countries&interval=all'],
  ];
  for (const [page, api] of pairs) {
    const mine = await viewer.get(page);
    const theirs = await t.inject({ method: 'GET', url: api });
    assert.equal(mine.statusCode, 200, `${page}: ${mine.body.slice(0, 300)}`);
    assert.equal(theirs.statusCode, 200, api);
    assert.ok(mine.body.split('\n').length > 1, page);
    assert.equal(mine.body, theirs.body, page);
    assert.equal(mine.headers['content-disposition'], theirs.headers['content-disposition']);
  }
  // The page links to them.
  assert.match((await viewer.get(`/dashboard/w/${slug}/events?event=leads`)).body, /href="[^"]*\/events\/export\?event=leads"/);
  assert.match((await viewer.get(`/dashboard/w/${slug}/analytics`)).body, /href="[^"]*\/analytics\/export[?"]/);
  assert.equal((await viewer.get(`/dashboard/w/${slug}/analytics/export?groupBy=nope`)).statusCode, 422);
});

test('recent imports: listed with state and counts; members undo one (CSRF required), viewers cannot', async () => {
  const csv = 'url,key\nhttps://example.com/u1,undo-1\nhttps://example.com/u2,undo-2\n';
  const before = await linkCount();
  const res = await upload(member, csv);
  assert.equal(res.statusCode, 200, res.body.slice(0, 500));
  const row = /<tr data-import="(imp_[0-9a-f]+)" data-state="completed">([\s\S]*?)<\/tr>/.exec(res.body);
  assert.ok(row, 'the import is listed as completed');
  const id = row[1]!;
  assert.match(row[2]!, /<td class="num">2<\/td><td class="num">2<\/td><td class="num">0<\/td><td class="num">0<\/td>/);
  assert.match(row[2]!, new RegExp(`action="/dashboard/w/${slug}/links/imports/${id}/undo"`));
  assert.equal(await linkCount(), before + 2);

  const undoPath = `/dashboard/w/${slug}/links/imports/${id}/undo`;
  assert.equal((await member.post(undoPath, { _csrf: 'forged' })).statusCode, 403);
  assert.equal((await viewer.post(undoPath)).statusCode, 403);
  assert.equal(await linkCount(), before + 2);
  await member.get(importPath());
  const undone = await member.post(undoPath);
  assert.equal(undone.statusCode, 200, undone.body.slice(0, 500));
  assert.match(undone.body, /Import undone: 2 links deleted\./);
  assert.match(undone.body, new RegExp(`data-import="${id}" data-state="undone"`));
  assert.equal(await linkCount(), before);
  const again = await member.post(undoPath);
  assert.equal(again.statusCode, 409);
  assert.match(again.body, /undone already/);
});
