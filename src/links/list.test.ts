/**
 * GET /links and GET /links/count: every filter, sort and page form, on a fixed set of links.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { Dub } from 'dub';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { createLinkStore, type LinkFilters } from './store.js';
import { addDomain, addFolder, addTag } from './test-fixtures.js';

let t: TestApp;
let dub: Dub;
let ids: Record<string, string>;
let tagA: string;
let tagB: string;
let folder: string;
let keyId: string;

/**
 *  key      domain             folder  tags   archived  clicks  sale  lastClicked  tenant
 *  alpha    shared             -       A      no        5       300   t+2000       x
 *  beta     shared             F       B      no        0       0     -            -
 *  gamma    shared             -       -      yes       99      0     -            -
 *  delta    links.acme.test    -       A, B   no        0       700   t+1000       y
 *  epsilon  shared             -       -      no        10      0     -            -
 */
before(async () => {
  t = await createTestApp();
  dub = new Dub({ token: t.key, serverURL: await t.listen() });
  tagA = await addTag(t, 'Alpha-Tag');
  tagB = await addTag(t, 'Beta-Tag');
  folder = await addFolder(t, 'F');
  await addDomain(t, 'links.acme.test');
  ids = {};
  const specs = [
    { key: 'alpha', url: 'https://shop.example.com/a', tagIds: [tagA], tenantId: 'x' },
    { key: 'beta', url: 'https://shop.example.com/b', tagIds: [tagB], folderId: folder },
    { key: 'gamma', url: 'https://other.example.com/g', archived: true },
    { key: 'delta', url: 'https://other.example.com/d', tagIds: [tagA, tagB], domain: 'links.acme.test', tenantId: 'y' },
    { key: 'epsilon', url: 'https://other.example.com/e' },
  ];
  for (const spec of specs) {
    const link = await dub.links.create(spec);
    ids[spec.key] = link.id;
    keyId = link.userId!;
  }
  const db = t.ctx.database.db;
  const t0 = Date.now();
  const stats: Record<string, { clicks: number; sale_amount: number; last_clicked: number | null }> = {
    alpha: { clicks: 5, sale_amount: 300, last_clicked: t0 + 2000 },
    gamma: { clicks: 99, sale_amount: 0, last_clicked: null },
    delta: { clicks: 0, sale_amount: 700, last_clicked: t0 + 1000 },
    epsilon: { clicks: 10, sale_amount: 0, last_clicked: null },
  };
  for (const [key, s] of Object.entries(stats)) await db.updateTable('links').set(s).where('id', '=', ids[key]!).execute();
});
after(() => t.close());

async function keys(query: string): Promise<string[]> {
  const res = await t.inject({ method: 'GET', url: `/links${query ? `?${query}` : ''}` });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().map((l: { key: string }) => l.key);
}

async function count(query: string): Promise<unknown> {
  const res = await t.inject({ method: 'GET', url: `/links/count${query ? `?${query}` : ''}` });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

test('without filters only unsorted, non-archived links are listed, newest first', async () => {
  assert.deepEqual(await keys(''), ['epsilon', 'delta', 'alpha']);
  assert.deepEqual(await keys('folderId=unsorted'), ['epsilon', 'delta', 'alpha']);
  assert.deepEqual(await keys('showArchived=true'), ['epsilon', 'delta', 'gamma', 'alpha']);
  assert.deepEqual(await keys('folderId=' + folder), ['beta']);
  assert.deepEqual(await keys('sortOrder=asc'), ['alpha', 'delta', 'epsilon']);
  assert.equal(await count(''), 3);
  assert.equal(await count('showArchived=true'), 4);
});

test('filters: tags (ids, names, deprecated tagId), domain, search, tenant, user, withTags', async () => {
  assert.deepEqual(await keys(`tagIds=${tagA}`), ['delta', 'alpha']);
  assert.deepEqual(await keys(`tagIds=${tagB}`), ['delta', 'beta']);
  assert.deepEqual(await keys(`tagIds=${tagA},${tagB}`), ['delta', 'beta', 'alpha']);
  assert.deepEqual(await keys(`tagIds=${tagA}&tagIds=${tagB}`), ['delta', 'beta', 'alpha']);
  assert.deepEqual(await keys(`tagId=${tagA}`), ['delta', 'alpha']);
  assert.deepEqual(await keys('tagNames=beta-tag'), ['delta', 'beta']);
  assert.deepEqual(await keys('tagNames=ALPHA-TAG,Beta-Tag'), ['delta', 'beta', 'alpha']);
  assert.deepEqual(await keys('tagNames=unknown'), []);
  assert.deepEqual(await keys('domain=LINKS.acme.test'), ['delta']);
  assert.deepEqual(await keys('domain=wm.localhost:3999'), ['epsilon', 'beta', 'alpha']);
  assert.deepEqual(await keys('search=SHOP.example'), ['beta', 'alpha']);
  assert.deepEqual(await keys('search=delt'), ['delta']);
  assert.deepEqual(await keys('search=100%25'), []);
  assert.deepEqual(await keys('search=_'), []);
  assert.deepEqual(await keys('tenantId=x'), ['alpha']);
  assert.deepEqual(await keys(`userId=${keyId}`), ['epsilon', 'delta', 'alpha']);
  assert.deepEqual(await keys('userId=key_other'), []);
  assert.deepEqual(await keys('withTags=true'), ['delta', 'alpha']);
  assert.deepEqual(await keys(`folderId=${folder}&tagIds=${tagA}`), []);
  assert.deepEqual(await keys(`search=example&showArchived=true&domain=wm.localhost:3999`), ['epsilon', 'gamma', 'beta', 'alpha']);

  assert.equal(await count(`tagIds=${tagA},${tagB}`), 3);
  assert.equal(await count('search=other'), 2);
  assert.equal(await count('tenantId=y'), 1);
});

test('the SDK sends the same filters', async () => {
  const list = async (req: Parameters<Dub['links']['list']>[0]) => (await dub.links.list(req)).result.map((l) => l.key);
  assert.deepEqual(await list({ tagIds: [tagA, tagB] }), ['delta', 'beta', 'alpha']);
  assert.deepEqual(await list({ tagIds: tagB }), ['delta', 'beta']);
  assert.deepEqual(await list({ tagNames: ['alpha-tag'] }), ['delta', 'alpha']);
  assert.deepEqual(await list({ folderId: folder }), ['beta']);
  assert.deepEqual(await list({ domain: 'links.acme.test' }), ['delta']);
  assert.deepEqual(await list({ search: 'shop' }), ['beta', 'alpha']);
  assert.deepEqual(await list({ tenantId: 'y' }), ['delta']);
  assert.deepEqual(await list({ showArchived: true, pageSize: 2, page: 2 }), ['gamma', 'alpha']);
  assert.equal(await dub.links.count({ showArchived: true }), 4);
  assert.equal(await dub.links.count({ tagIds: [tagA] }), 2);
});

test('sorts: clicks, saleAmount, lastClicked (never clicked = oldest) in both orders, deprecated sort', async () => {
  assert.deepEqual(await keys('sortBy=clicks'), ['epsilon', 'alpha', 'delta']);
  assert.deepEqual(await keys('sortBy=clicks&sortOrder=asc'), ['delta', 'alpha', 'epsilon']);
  assert.deepEqual(await keys('sort=clicks&showArchived=true'), ['gamma', 'epsilon', 'alpha', 'delta']);
  assert.deepEqual(await keys('sortBy=saleAmount'), ['delta', 'alpha', 'epsilon']);
  assert.deepEqual(await keys('sortBy=lastClicked'), ['alpha', 'delta', 'epsilon']);
  assert.deepEqual(await keys('sortBy=lastClicked&sortOrder=asc'), ['epsilon', 'delta', 'alpha']);
  assert.deepEqual(await keys('sortBy=createdAt&sortOrder=desc&pageSize=2'), ['epsilon', 'delta']);
});

test('pages and cursors do not overlap', async () => {
  const all = await keys('showArchived=true&search=example');
  assert.equal(all.length, 5);
  const paged = [...(await keys('showArchived=true&search=example&pageSize=2')), ...(await keys('showArchived=true&search=example&pageSize=2&page=2')), ...(await keys('showArchived=true&search=example&pageSize=2&page=3'))];
  assert.deepEqual(paged, all);
  assert.deepEqual(await keys('showArchived=true&search=example&pageSize=2&page=4'), []);
  const byCursor: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const res = await t.inject({ method: 'GET', url: `/links?showArchived=true&search=example&pageSize=2${cursor ? `&startingAfter=${cursor}` : ''}` });
    const page = res.json() as { id: string; key: string }[];
    if (!page.length) break;
    byCursor.push(...page.map((l) => l.key));
    cursor = page.at(-1)!.id;
  }
  assert.deepEqual(byCursor, all);
  assert.deepEqual(await keys(`showArchived=true&search=example&sortOrder=asc&startingAfter=${ids.gamma}`), ['delta', 'epsilon']);
  assert.deepEqual(await keys(`showArchived=true&search=example&endingBefore=${ids.gamma}`), ['epsilon', 'delta']);
});

test('count groupBy: domain, tagId, userId, folderId, largest first', async () => {
  assert.deepEqual(await count('groupBy=domain&search=example'), [
    { domain: 'wm.localhost:3999', _count: 3 },
    { domain: 'links.acme.test', _count: 1 },
  ]);
  const byTag = (await count('groupBy=tagId&search=example')) as { tagId: string; _count: number }[];
  assert.deepEqual(byTag.sort((a, b) => a.tagId.localeCompare(b.tagId)), [{ tagId: tagA, _count: 2 }, { tagId: tagB, _count: 2 }].sort((a, b) => a.tagId.localeCompare(b.tagId)));
  assert.deepEqual(await count('groupBy=userId'), [{ userId: keyId, _count: 3 }]);
  assert.deepEqual(await count('groupBy=folderId&search=example&showArchived=true'), [
    { folderId: null, _count: 4 },
    { folderId: folder, _count: 1 },
  ]);
});

test('both plans of the tag filter select the same links', async () => {
  const store = createLinkStore(t.ctx.database.db, t.ctx.database.dialect);
  const base: LinkFilters = { tagIds: [tagA, tagB], showArchived: true, withTags: false };
  const page = { sortBy: 'createdAt' as const, sortOrder: 'desc' as const, offset: 0, limit: 10 };
  const probe = await store.list(t.workspaceId, { ...base, tagStrategy: 'probe' }, page);
  const listed = await store.list(t.workspaceId, { ...base, tagStrategy: 'list' }, page);
  assert.deepEqual(probe.map((l) => l.key), ['delta', 'beta', 'alpha']);
  assert.deepEqual(listed.map((l) => l.key), ['delta', 'beta', 'alpha']);
  assert.equal(await store.count(t.workspaceId, { ...base, tagStrategy: 'probe' }), 3);
  assert.equal(await store.countTagged(t.workspaceId, [tagA, tagB], 2), 2);
  assert.deepEqual(await store.list(t.workspaceId, { ...base, tagIds: [] }, page), []);
});
