import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { Dub } from 'dub';
import * as errors from 'dub/models/errors';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { randomTagColor } from './service.js';

let t: TestApp;
let dub: Dub;
let baseUrl: string;
before(async () => {
  t = await createTestApp();
  baseUrl = await t.listen();
  dub = new Dub({ token: t.key, serverURL: baseUrl });
});
after(() => t.close());

test('SDK: create, list, update and delete a tag', async () => {
  const created = await dub.tags.create({ name: '  Marketing ', color: 'green' });
  assert.match(created.id, /^tag_[0-9A-Z]{26}$/);
  assert.deepEqual(created, { id: created.id, name: 'Marketing', color: 'green' });

  const listed = await dub.tags.list({ ids: [created.id] });
  assert.deepEqual(listed, [created]);

  const renamed = await dub.tags.update(created.id, { name: 'Growth', color: 'pink' });
  assert.deepEqual(renamed, { id: created.id, name: 'Growth', color: 'pink' });

  const deleted = await dub.tags.delete(created.id);
  assert.deepEqual(deleted, { id: created.id });
  assert.deepEqual(await dub.tags.list({ ids: created.id }), []);
});

test('SDK: list sorts by name (case-insensitive) or createdAt, searches and pages', async () => {
  const other = await t.addWorkspace();
  const sdk = new Dub({ token: other.key, serverURL: baseUrl });
  const names = ['beta', 'Alpha', 'gamma', 'delta'];
  const ids: string[] = [];
  for (const name of names) ids.push((await sdk.tags.create({ name })).id);

  const byName = await sdk.tags.list({});
  assert.deepEqual(byName.map((x) => x.name), ['Alpha', 'beta', 'delta', 'gamma']);
  const desc = await sdk.tags.list({ sortOrder: 'desc' });
  assert.deepEqual(desc.map((x) => x.name), ['gamma', 'delta', 'beta', 'Alpha']);
  const byCreated = await sdk.tags.list({ sortBy: 'createdAt' });
  assert.deepEqual(byCreated.map((x) => x.id), ids);
  const search = await sdk.tags.list({ search: 'ALP' });
  assert.deepEqual(search.map((x) => x.name), ['Alpha']);
  const page2 = await sdk.tags.list({ page: 2, pageSize: 3 });
  assert.deepEqual(page2.map((x) => x.name), ['gamma']);
  const some = await sdk.tags.list({ ids: [ids[0]!, ids[2]!] });
  assert.deepEqual(some.map((x) => x.name), ['beta', 'gamma']);
  // Comma-separated ids work as well as repeated ones.
  const csv = await t.inject({ method: 'GET', url: `/tags?ids=${ids[1]},${ids[3]}`, headers: other.headers });
  assert.deepEqual(csv.json().map((x: { name: string }) => x.name), ['Alpha', 'delta']);
  // Another workspace's tags are never listed.
  const mine = await dub.tags.list({ ids });
  assert.deepEqual(mine, []);
});

test('color is random (never pink) when omitted; the deprecated `tag` field names the tag', async () => {
  const res = await t.inject({ method: 'POST', url: '/tags', payload: { tag: 'legacy' } });
  assert.equal(res.statusCode, 201);
  assert.equal(res.json().name, 'legacy');
  assert.ok(['red', 'yellow', 'green', 'blue', 'purple', 'brown', 'gray'].includes(res.json().color));
  assert.equal(randomTagColor(() => 0), 'red');
  assert.equal(randomTagColor((n) => n - 1), 'gray');
});

test('PATCH accepts color alone, PUT is an alias', async () => {
  const tag = (await t.inject({ method: 'POST', url: '/tags', payload: { name: 'colorful', color: 'red' } })).json();
  const res = await t.inject({ method: 'PATCH', url: `/tags/${tag.id}`, payload: { color: 'blue' } });
  assert.equal(res.statusCode, 200);
  assert.deepEqual(res.json(), { id: tag.id, name: 'colorful', color: 'blue' });
  const put = await t.inject({ method: 'PUT', url: `/tags/${tag.id}`, payload: { name: 'Colorful' } });
  assert.equal(put.statusCode, 200);
  assert.deepEqual(put.json(), { id: tag.id, name: 'Colorful', color: 'blue' });
});

test('duplicate names are 409 without regard to case, on create and on rename', async () => {
  await t.inject({ method: 'POST', url: '/tags', payload: { name: 'Sales' } });
  const dup = await t.inject({ method: 'POST', url: '/tags', payload: { name: 'sALES' } });
  assert.equal(dup.statusCode, 409);
  assert.equal(dup.json().error.code, 'conflict');
  assert.equal(dup.json().error.message, 'A tag with that name already exists.');

  const other = (await t.inject({ method: 'POST', url: '/tags', payload: { name: 'Support' } })).json();
  const rename = await t.inject({ method: 'PATCH', url: `/tags/${other.id}`, payload: { name: 'sales' } });
  assert.equal(rename.statusCode, 409);
  // The same name in another workspace is fine.
  const ws = await t.addWorkspace();
  const elsewhere = await t.inject({ method: 'POST', url: '/tags', payload: { name: 'Sales' }, headers: ws.headers });
  assert.equal(elsewhere.statusCode, 201);
  // SDK users get the typed Conflict error.
  await assert.rejects(dub.tags.create({ name: 'SALES' }), (e) => e instanceof errors.Conflict);
});

test('missing and foreign tags are 404 on update and delete', async () => {
  const ws = await t.addWorkspace();
  const foreign = (await t.inject({ method: 'POST', url: '/tags', payload: { name: 'theirs' }, headers: ws.headers })).json();
  for (const id of ['tag_doesnotexist', foreign.id]) {
    const upd = await t.inject({ method: 'PATCH', url: `/tags/${id}`, payload: { name: 'x' } });
    assert.equal(upd.statusCode, 404);
    assert.deepEqual(upd.json().error.message, 'Tag not found.');
    const del = await t.inject({ method: 'DELETE', url: `/tags/${id}` });
    assert.equal(del.statusCode, 404);
    assert.equal(del.json().error.code, 'not_found');
  }
  // The foreign tag is untouched.
  const theirs = await t.inject({ method: 'GET', url: `/tags?ids=${foreign.id}`, headers: ws.headers });
  assert.deepEqual(theirs.json(), [foreign]);
});

test('validation: name required, 1..190, color enum, pageSize ≤ 100', async () => {
  const none = await t.inject({ method: 'POST', url: '/tags', payload: {} });
  assert.equal(none.statusCode, 422);
  assert.equal(none.json().error.message, 'custom: name: Name is required.');
  const long = await t.inject({ method: 'POST', url: '/tags', payload: { name: 'x'.repeat(191) } });
  assert.equal(long.statusCode, 422);
  assert.match(long.json().error.message, /^too_big: name: /);
  const ok190 = await t.inject({ method: 'POST', url: '/tags', payload: { name: 'y'.repeat(190) } });
  assert.equal(ok190.statusCode, 201);
  const blank = await t.inject({ method: 'POST', url: '/tags', payload: { name: '   ' } });
  assert.equal(blank.statusCode, 422);
  const color = await t.inject({ method: 'POST', url: '/tags', payload: { name: 'c', color: 'orange' } });
  assert.equal(color.statusCode, 422);
  assert.match(color.json().error.message, /^invalid_value: color: Invalid color\. Must be one of: red, yellow/);
  const page = await t.inject({ method: 'GET', url: '/tags?pageSize=101' });
  assert.equal(page.statusCode, 422);
  assert.equal(page.json().error.message, 'too_big: pageSize: Max page size is 100.');
  const sort = await t.inject({ method: 'GET', url: '/tags?sortBy=color' });
  assert.equal(sort.statusCode, 422);
});

test('deleting a tag removes it from links', async () => {
  const tag = (await t.inject({ method: 'POST', url: '/tags', payload: { name: 'on-a-link' } })).json();
  const keep = (await t.inject({ method: 'POST', url: '/tags', payload: { name: 'stays' } })).json();
  const db = t.ctx.database.db;
  const now = Date.now();
  await db
    .insertInto('links')
    .values({
      id: 'link_tagtest', workspace_id: t.workspaceId, domain: 'tags.test', key: 'k', key_lower: 'k', url: 'https://example.com/',
      short_link: 'https://tags.test/k', created_at: now, updated_at: now,
    } as never)
    .execute();
  await db.insertInto('link_tags').values([
    { link_id: 'link_tagtest', tag_id: tag.id, workspace_id: t.workspaceId, position: 0 },
    { link_id: 'link_tagtest', tag_id: keep.id, workspace_id: t.workspaceId, position: 1 },
  ]).execute();
  const res = await t.inject({ method: 'DELETE', url: `/tags/${tag.id}` });
  assert.equal(res.statusCode, 200);
  const rows = await db.selectFrom('link_tags').select('tag_id').where('link_id', '=', 'link_tagtest').execute();
  assert.deepEqual(rows.map((r) => r.tag_id), [keep.id]);
});

test('tagsLimit: the 6th tag on the free plan is 403 naming the limit', async () => {
  const free = await createTestApp({ plan: 'free' });
  try {
    for (let i = 0; i < 5; i++) assert.equal((await free.inject({ method: 'POST', url: '/tags', payload: { name: `t${i}` } })).statusCode, 201);
    const res = await free.inject({ method: 'POST', url: '/tags', payload: { name: 't5' } });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().error.code, 'forbidden');
    assert.equal(res.json().error.message, "You've reached your limit of 5 tags on the Free plan. Please upgrade for higher limits.");
    // Deleting one frees a slot.
    const first = (await free.inject({ method: 'GET', url: '/tags?search=t0' })).json()[0];
    await free.inject({ method: 'DELETE', url: `/tags/${first.id}` });
    assert.equal((await free.inject({ method: 'POST', url: '/tags', payload: { name: 't5' } })).statusCode, 201);
  } finally {
    await free.close();
  }
});

test('concurrent creates never pass the quota or duplicate a name', async () => {
  const free = await createTestApp({ plan: 'free' });
  try {
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => free.inject({ method: 'POST', url: '/tags', payload: { name: `n${i % 6}` } })),
    );
    const codes = results.map((r) => r.statusCode);
    assert.equal(codes.filter((c) => c === 201).length, 5);
    assert.ok(codes.every((c) => c === 201 || c === 403 || c === 409), codes.join(','));
    const list = (await free.inject({ method: 'GET', url: '/tags' })).json();
    assert.equal(list.length, 5);
    assert.equal(new Set(list.map((x: { name: string }) => x.name)).size, 5);
  } finally {
    await free.close();
  }
});

test('scopes: tags.read cannot write, links.read cannot read tags', async () => {
  const reader = await t.addWorkspace('enterprise', ['tags.read']);
  assert.equal((await t.inject({ method: 'GET', url: '/tags', headers: reader.headers })).statusCode, 200);
  const write = await t.inject({ method: 'POST', url: '/tags', payload: { name: 'nope' }, headers: reader.headers });
  assert.equal(write.statusCode, 403);
  assert.match(write.json().error.message, /tags\.write/);
  const linksOnly = await t.addWorkspace('enterprise', ['links.read']);
  const read = await t.inject({ method: 'GET', url: '/tags', headers: linksOnly.headers });
  assert.equal(read.statusCode, 403);
  assert.match(read.json().error.message, /tags\.read/);
  const del = await t.inject({ method: 'DELETE', url: '/tags/tag_x', headers: linksOnly.headers });
  assert.equal(del.statusCode, 403);
});
