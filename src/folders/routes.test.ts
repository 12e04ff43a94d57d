import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { Dub } from 'dub';
import * as errors from 'dub/models/errors';
import { createTestApp, type TestApp } from '../test-support/harness.js';

let t: TestApp;
let dub: Dub;
let baseUrl: string;
before(async () => {
  t = await createTestApp();
  baseUrl = await t.listen();
  dub = new Dub({ token: t.key, serverURL: baseUrl });
});
after(() => t.close());

async function foldersUsage(app: TestApp, headers?: Record<string, string>, workspaceId = app.workspaceId): Promise<number> {
  return (await app.inject({ method: 'GET', url: `/workspaces/${workspaceId}`, headers })).json().foldersUsage;
}

test('SDK: create, list, update and delete a folder', async () => {
  const created = await dub.folders.create({ name: ' Campaigns ', description: 'Spring launch' });
  assert.match(created.id, /^fold_[0-9A-Z]{26}$/);
  assert.equal(created.name, 'Campaigns');
  assert.equal(created.description, 'Spring launch');
  assert.equal(created.type, 'default');
  assert.equal(created.accessLevel, 'write');
  assert.equal(created.createdAt, created.updatedAt);
  assert.ok(!Number.isNaN(Date.parse(created.createdAt)));
  assert.equal(await foldersUsage(t), 1);

  const listed = await dub.folders.list({});
  assert.deepEqual(listed, [created]);

  const updated = await dub.folders.update(created.id, { name: 'Campaigns 2026', description: null, accessLevel: 'read' });
  assert.equal(updated.id, created.id);
  assert.equal(updated.name, 'Campaigns 2026');
  assert.equal(updated.description, null);
  assert.equal(updated.accessLevel, 'read');
  assert.equal(updated.createdAt, created.createdAt);

  const got = await t.inject({ method: 'GET', url: `/folders/${created.id}` });
  assert.deepEqual(got.json(), updated);

  assert.deepEqual(await dub.folders.delete(created.id), { id: created.id });
  assert.deepEqual(await dub.folders.list({}), []);
  assert.equal(await foldersUsage(t), 0);
});

test('SDK: list is in creation order, searchable and paged; accessLevel null is kept', async () => {
  const ws = await t.addWorkspace();
  const sdk = new Dub({ token: ws.key, serverURL: baseUrl });
  const names = ['Zeta', 'alpha', 'Mid'];
  for (const name of names) await sdk.folders.create({ name, accessLevel: name === 'Mid' ? null : 'write' });
  assert.deepEqual((await sdk.folders.list({})).map((f) => f.name), names);
  assert.deepEqual((await sdk.folders.list({ search: 'ALP' })).map((f) => f.name), ['alpha']);
  assert.deepEqual((await sdk.folders.list({ page: 2, pageSize: 2 })).map((f) => f.name), ['Mid']);
  assert.equal((await sdk.folders.list({ search: 'Mid' }))[0]!.accessLevel, null);
  assert.equal(await foldersUsage(t, ws.headers, ws.workspaceId), 3);
});

test('deleting a folder leaves its links unsorted', async () => {
  const folder = (await t.inject({ method: 'POST', url: '/folders', payload: { name: 'holder' } })).json();
  const db = t.ctx.database.db;
  const now = Date.now();
  for (const key of ['a', 'b']) {
    await db
      .insertInto('links')
      .values({
        id: `link_fold_${key}`, workspace_id: t.workspaceId, domain: 'folders.test', key, key_lower: key, url: 'https://example.com/',
        short_link: `https://folders.test/${key}`, folder_id: folder.id, created_at: now, updated_at: now,
      } as never)
      .execute();
  }
  const res = await t.inject({ method: 'DELETE', url: `/folders/${folder.id}` });
  assert.equal(res.statusCode, 200);
  assert.deepEqual(res.json(), { id: folder.id });
  const rows = await db.selectFrom('links').select(['id', 'folder_id']).where('domain', '=', 'folders.test').orderBy('id').execute();
  assert.deepEqual(rows, [
    { id: 'link_fold_a', folder_id: null },
    { id: 'link_fold_b', folder_id: null },
  ]);
});

test('duplicate names are 409 without regard to case, on create and rename', async () => {
  await t.inject({ method: 'POST', url: '/folders', payload: { name: 'Reports' } });
  const dup = await t.inject({ method: 'POST', url: '/folders', payload: { name: 'reports' } });
  assert.equal(dup.statusCode, 409);
  assert.equal(dup.json().error.code, 'conflict');
  assert.equal(dup.json().error.message, 'A folder with the name reports already exists.');
  const other = (await t.inject({ method: 'POST', url: '/folders', payload: { name: 'Drafts' } })).json();
  const rename = await t.inject({ method: 'PATCH', url: `/folders/${other.id}`, payload: { name: 'REPORTS' } });
  assert.equal(rename.statusCode, 409);
  assert.equal(rename.json().error.message, 'A folder with the name "REPORTS" already exists.');
  // Renaming to its own name in another case is fine.
  const self = await t.inject({ method: 'PATCH', url: `/folders/${other.id}`, payload: { name: 'DRAFTS' } });
  assert.equal(self.statusCode, 200);
  assert.equal(self.json().name, 'DRAFTS');
  await assert.rejects(dub.folders.create({ name: 'Reports' }), (e) => e instanceof errors.Conflict);
});

test('missing and foreign folders are 404 on get, update and delete', async () => {
  const ws = await t.addWorkspace();
  const foreign = (await t.inject({ method: 'POST', url: '/folders', payload: { name: 'theirs' }, headers: ws.headers })).json();
  for (const id of ['fold_missing', foreign.id]) {
    for (const [method, payload] of [['GET'], ['PATCH', { name: 'x' }], ['DELETE']] as const) {
      const res = await t.inject({ method, url: `/folders/${id}`, payload });
      assert.equal(res.statusCode, 404, `${method} ${id}`);
      assert.equal(res.json().error.code, 'not_found');
      assert.equal(res.json().error.message, 'Folder not found.');
    }
  }
  await assert.rejects(dub.folders.delete(foreign.id), (e) => e instanceof errors.NotFound);
  assert.equal((await t.inject({ method: 'GET', url: `/folders/${foreign.id}`, headers: ws.headers })).json().name, 'theirs');
});

test('validation: name ≤ 190, description ≤ 500, accessLevel enum, pageSize ≤ 50', async () => {
  const cases: [unknown, RegExp][] = [
    [{}, /^invalid_type: name: /],
    [{ name: 'n'.repeat(191) }, /^too_big: name: /],
    [{ name: 'ok', description: 'd'.repeat(501) }, /^too_big: description: /],
    [{ name: 'ok', accessLevel: 'admin' }, /^invalid_value: accessLevel: /],
  ];
  for (const [payload, message] of cases) {
    const res = await t.inject({ method: 'POST', url: '/folders', payload: payload as object });
    assert.equal(res.statusCode, 422, JSON.stringify(payload));
    assert.match(res.json().error.message, message);
  }
  const edge = await t.inject({ method: 'POST', url: '/folders', payload: { name: 'n'.repeat(190), description: 'd'.repeat(500) } });
  assert.equal(edge.statusCode, 201);
  const page = await t.inject({ method: 'GET', url: '/folders?pageSize=51' });
  assert.equal(page.statusCode, 422);
  assert.equal(page.json().error.message, 'too_big: pageSize: Max page size is 50.');
});

test('foldersLimit: free plan has none, pro has 3; the message names the limit', async () => {
  const free = await createTestApp({ plan: 'free' });
  try {
    const res = await free.inject({ method: 'POST', url: '/folders', payload: { name: 'first' } });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().error.code, 'forbidden');
    assert.equal(res.json().error.message, "You've reached your limit of 0 folders on the Free plan. Please upgrade for higher limits.");
    const pro = await free.addWorkspace('pro');
    for (let i = 0; i < 3; i++) {
      assert.equal((await free.inject({ method: 'POST', url: '/folders', payload: { name: `f${i}` }, headers: pro.headers })).statusCode, 201);
    }
    const fourth = await free.inject({ method: 'POST', url: '/folders', payload: { name: 'f3' }, headers: pro.headers });
    assert.equal(fourth.statusCode, 403);
    assert.equal(fourth.json().error.message, "You've reached your limit of 3 folders on the Pro plan. Please upgrade for higher limits.");
    assert.equal(await foldersUsage(free, pro.headers, pro.workspaceId), 3);
  } finally {
    await free.close();
  }
});

test('scopes: folders.read cannot write, links.read cannot read folders', async () => {
  const reader = await t.addWorkspace('enterprise', ['folders.read']);
  assert.equal((await t.inject({ method: 'GET', url: '/folders', headers: reader.headers })).statusCode, 200);
  const write = await t.inject({ method: 'POST', url: '/folders', payload: { name: 'nope' }, headers: reader.headers });
  assert.equal(write.statusCode, 403);
  assert.match(write.json().error.message, /folders\.write/);
  const linksOnly = await t.addWorkspace('enterprise', ['links.read']);
  const read = await t.inject({ method: 'GET', url: '/folders', headers: linksOnly.headers });
  assert.equal(read.statusCode, 403);
  assert.match(read.json().error.message, /folders\.read/);
});
