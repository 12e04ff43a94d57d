/**
 * The webhook management API: create, read, list, update, delete; the body's rules (linkScope
 * exactly with link.clicked, ids of the workspace, http(s) URLs, secrets); scopes, the plan gate
 * and workspace isolation (another workspace's webhook answers 404).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { SECRET_PATTERN } from './schema.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const create = (payload: object, headers?: Record<string, string>) => t.inject({ method: 'POST', url: '/webhooks', payload, ...(headers ? { headers } : {}) });

test('create, read, list, update and delete a webhook; the secret is generated as whsec_ + base64 of 24 bytes', async () => {
  const res = await create({ name: 'All links', url: 'https://hooks.example.com/in', triggers: ['link.created', 'link.updated'] });
  assert.equal(res.statusCode, 200, res.body);
  const hook = res.json();
  assert.match(hook.id, /^wh_/);
  assert.match(hook.secret, SECRET_PATTERN);
  assert.equal(Buffer.from(hook.secret.slice(6), 'base64').length, 24);
  assert.deepEqual(
    { ...hook, id: undefined, secret: undefined, createdAt: undefined, updatedAt: undefined },
    { id: undefined, secret: undefined, createdAt: undefined, updatedAt: undefined, name: 'All links', url: 'https://hooks.example.com/in', triggers: ['link.created', 'link.updated'], linkScope: null, linkIds: [], folderIds: [], disabledAt: null, consecutiveFailures: 0 },
  );
  assert.deepEqual((await t.inject({ method: 'GET', url: `/webhooks/${hook.id}` })).json(), hook);
  assert.ok((await t.inject({ method: 'GET', url: '/webhooks' })).json().some((h: { id: string }) => h.id === hook.id));

  const given = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
  const patched = await t.inject({ method: 'PATCH', url: `/webhooks/${hook.id}`, payload: { name: 'Renamed', secret: given } });
  assert.equal(patched.statusCode, 200, patched.body);
  assert.equal(patched.json().name, 'Renamed');
  assert.equal(patched.json().secret, given);
  assert.deepEqual((await t.inject({ method: 'GET', url: `/webhooks/${hook.id}` })).json(), patched.json());

  const deleted = await t.inject({ method: 'DELETE', url: `/webhooks/${hook.id}` });
  assert.deepEqual(deleted.json(), { id: hook.id });
  assert.equal((await t.inject({ method: 'GET', url: `/webhooks/${hook.id}` })).statusCode, 404);
});

test('linkScope is required exactly when triggers include link.clicked; named links and folders must be the workspace\'s', async () => {
  const url = 'https://hooks.example.com/in';
  const noScope = await create({ name: 'c', url, triggers: ['link.clicked'] });
  assert.equal(noScope.statusCode, 422);
  assert.match(noScope.json().error.message, /linkScope is required/);
  const strayScope = await create({ name: 'c', url, triggers: ['link.created'], linkScope: 'workspace' });
  assert.equal(strayScope.statusCode, 422);
  const unknown = await create({ name: 'c', url, triggers: ['link.clicked'], linkScope: 'links', linkIds: ['link_nope'] });
  assert.equal(unknown.statusCode, 422);
  assert.equal(unknown.json().error.message, 'Invalid linkIds detected: link_nope');
  const badFolder = await create({ name: 'c', url, triggers: ['link.clicked'], linkScope: 'folders', folderIds: ['fold_nope'] });
  assert.equal(badFolder.json().error.message, 'Invalid folderIds detected: fold_nope');

  const link = (await t.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/scoped' } })).json();
  const ok = await create({ name: 'c', url, triggers: ['link.clicked'], linkScope: 'links', linkIds: [link.id] });
  assert.equal(ok.statusCode, 200, ok.body);
  assert.deepEqual(ok.json().linkIds, [link.id]);
  // Dropping link.clicked drops the scope with it.
  const narrowed = await t.inject({ method: 'PATCH', url: `/webhooks/${ok.json().id}`, payload: { triggers: ['link.created'] } });
  assert.equal(narrowed.statusCode, 200, narrowed.body);
  assert.equal(narrowed.json().linkScope, null);
  assert.deepEqual(narrowed.json().linkIds, []);
});

test('only http and https receivers, secrets in the whsec_ base64 form, names and lists within their limits', async () => {
  for (const url of ['ftp://example.com/x', 'javascript:alert(1)', 'file:///etc/passwd', `https://example.com/${'a'.repeat(32_001)}`]) {
    const res = await create({ name: 'u', url, triggers: ['link.created'] });
    assert.equal(res.statusCode, 422, `${url.slice(0, 40)}: ${res.body.slice(0, 200)}`);
  }
  assert.equal((await create({ name: 'u', url: 'https://example.com', triggers: ['link.created'], secret: 'plain' })).statusCode, 422);
  assert.equal((await create({ name: 'u', url: 'https://example.com', triggers: [] })).statusCode, 422);
  assert.equal((await create({ name: 'u', url: 'https://example.com', triggers: ['link.nope'] })).statusCode, 422);
  assert.equal((await create({ name: 'x'.repeat(191), url: 'https://example.com', triggers: ['link.created'] })).statusCode, 422);
  const many = Array.from({ length: 101 }, (_, i) => `link_${i}`);
  assert.equal((await create({ name: 'u', url: 'https://example.com', triggers: ['link.clicked'], linkScope: 'links', linkIds: many })).statusCode, 422);
});

test("another workspace's webhook answers like a missing one; scopes and the plan gate apply", async () => {
  const mine = (await create({ name: 'mine', url: 'https://hooks.example.com/in', triggers: ['lead.created'] })).json();
  const other = await t.addWorkspace('enterprise');
  for (const [method, url] of [['GET', `/webhooks/${mine.id}`], ['PATCH', `/webhooks/${mine.id}`], ['DELETE', `/webhooks/${mine.id}`], ['GET', `/webhooks/${mine.id}/deliveries`]] as const) {
    const res = await t.inject({ method, url, headers: other.headers, ...(method === 'PATCH' ? { payload: {} } : {}) });
    assert.equal(res.statusCode, 404, `${method} ${url}: ${res.body}`);
    assert.equal(res.json().error.message, 'Webhook not found.');
  }
  assert.ok(!(await t.inject({ method: 'GET', url: '/webhooks', headers: other.headers })).json().some((h: { id: string }) => h.id === mine.id));

  const reader = await t.addWorkspace('enterprise', ['webhooks.read']);
  assert.equal((await t.inject({ method: 'GET', url: '/webhooks', headers: reader.headers })).statusCode, 200);
  const denied = await create({ name: 'r', url: 'https://example.com', triggers: ['link.created'] }, reader.headers);
  assert.equal(denied.statusCode, 403);
  assert.match(denied.json().error.message, /webhooks\.write/);
  const linksOnly = await t.addWorkspace('enterprise', ['links.write']);
  assert.equal((await t.inject({ method: 'GET', url: '/webhooks', headers: linksOnly.headers })).statusCode, 403);

  const pro = await t.addWorkspace('pro');
  const gated = await t.inject({ method: 'GET', url: '/webhooks', headers: pro.headers });
  assert.equal(gated.statusCode, 403);
  assert.match(gated.json().error.message, /Business plan/);
  assert.equal((await t.inject({ method: 'GET', url: '/webhooks', headers: (await t.addWorkspace('business')).headers })).statusCode, 200);
});
