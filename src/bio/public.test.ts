/**
 * Bio pages over real HTTP on a short-link host: `/@handle` renders (escaped, within 30 KB, with
 * the referrer policy), an unknown handle is the 404 page, another workspace's links are never
 * listed, a view is counted, a chosen root shows the page and an unchosen root still redirects.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { hit, insertDomain, insertLink } from '../redirect/testing.js';

let t: TestApp;
let base: string;
before(async () => {
  t = await createTestApp();
  base = await t.listen();
  await insertDomain(t.database.db, t.workspaceId, { slug: 'bio.test' });
  await insertDomain(t.database.db, t.workspaceId, { slug: 'plain.test' });
});
after(() => t.close());

const get = (host: string, path: string) => hit(base, path, { host, headers: { 'user-agent': 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148' } });

test('/@handle renders the page: escaped values, ordered links, referrer policy, ≤ 30 KB; unknown handle 404', async () => {
  const a = await insertLink(t.database.db, t.workspaceId, { domain: 'bio.test', key: 'a', url: 'https://example.com/a', short_link: 'https://bio.test/a', title: '<b>First</b>', image: 'https://img.example/a.png' });
  const b = await insertLink(t.database.db, t.workspaceId, { domain: 'bio.test', key: 'b', url: 'https://example.com/b', short_link: 'https://bio.test/b', title: 'Second' });
  const saved = await t.modules.bio.service.save(t.workspaceId, null, {
    domain: 'bio.test', handle: 'ada', title: '<script>alert(1)</script>', bio: 'Hi & "bye"', theme: 'ocean', links: [b.id, a.id], social_github: 'https://github.com/ada',
  });
  assert.ok(saved.ok);
  const res = await get('bio.test', '/@Ada');
  assert.equal(res.status, 200);
  assert.equal(res.headers['referrer-policy'], 'strict-origin-when-cross-origin');
  assert.match(String(res.headers['content-security-policy']), /default-src 'none'/);
  assert.ok(Buffer.byteLength(res.body) <= 30 * 1024, `${Buffer.byteLength(res.body)} bytes`);
  assert.ok(!res.body.includes('<script>alert(1)</script>'));
  assert.ok(res.body.includes('&lt;script>alert(1)&lt;/script>'));
  assert.ok(res.body.includes('&lt;b>First&lt;/b>'));
  assert.ok(res.body.indexOf('href="https://bio.test/b"') < res.body.indexOf('href="https://bio.test/a"'), 'links in the saved order');
  assert.match(res.body, /aria-label="GitHub"/);
  assert.match(res.body, /src="https:\/\/img\.example\/a\.png"/);

  const missing = await get('bio.test', '/@nobody');
  assert.equal(missing.status, 404);
  assert.match(missing.body, /Page not found/);
  // A handle belongs to its domain: the same handle on another host is unknown.
  assert.equal((await get('plain.test', '/@ada')).status, 404);
});

test('another workspace’s links are never listed, even when their ids are stored on the page', async () => {
  const other = await t.addWorkspace();
  const theirs = await insertLink(t.database.db, other.workspaceId, { domain: 'x.test', key: 'secret', url: 'https://example.com/secret', short_link: 'https://x.test/secret', title: 'Their secret' });
  const mine = await insertLink(t.database.db, t.workspaceId, { domain: 'bio.test', key: 'mine2', url: 'https://example.com/m', short_link: 'https://bio.test/mine2', title: 'Mine' });
  const saved = await t.modules.bio.service.save(t.workspaceId, null, { domain: 'bio.test', handle: 'mixed', title: 'Mixed', links: [mine.id] });
  assert.ok(saved.ok);
  if (!saved.ok) return;
  // Written past the service (as a bug or a hand edit could): the page still reads its own workspace's links only.
  await t.database.db.insertInto('bio_page_links').values({ page_id: saved.page.id, link_id: theirs.id, position: 5 }).execute();
  const res = await get('bio.test', '/@mixed');
  assert.equal(res.status, 200);
  assert.match(res.body, /Mine/);
  assert.ok(!res.body.includes('Their secret'));
  assert.ok(!res.body.includes('x.test/secret'));
});

test('views are counted off the request path; HEAD is not a view', async () => {
  const saved = await t.modules.bio.service.save(t.workspaceId, null, { domain: 'bio.test', handle: 'counted', title: 'Counted' });
  assert.ok(saved.ok);
  if (!saved.ok) return;
  for (let i = 0; i < 3; i++) assert.equal((await get('bio.test', '/@counted')).status, 200);
  assert.equal((await hit(base, '/@counted', { host: 'bio.test', method: 'HEAD' })).status, 200);
  await t.modules.bio.pages.flushViews();
  const row = await t.database.db.selectFrom('bio_pages').select('views').where('id', '=', saved.page.id).executeTakeFirstOrThrow();
  assert.equal(Number(row.views), 3);
});

test('a root chosen for the page shows it; a root not chosen still follows the root link', async () => {
  await insertLink(t.database.db, t.workspaceId, { domain: 'plain.test', key: '_root', url: 'https://example.com/home' });
  const before = await get('plain.test', '/');
  assert.equal(before.status, 301);
  assert.equal(before.location, 'https://example.com/home');
  const again = await get('plain.test', '/');
  assert.equal(again.status, 301, 'the cached “no root page” answer also redirects');
  const saved = await t.modules.bio.service.save(t.workspaceId, null, { domain: 'plain.test', handle: 'home', title: 'Home page', atRoot: 'on' });
  assert.ok(saved.ok);
  const root = await get('plain.test', '/');
  assert.equal(root.status, 200);
  assert.match(root.body, /Home page/);
  // Keys are untouched.
  await insertLink(t.database.db, t.workspaceId, { domain: 'plain.test', key: 'k', url: 'https://example.com/k' });
  assert.equal((await get('plain.test', '/k')).status, 302);
});
