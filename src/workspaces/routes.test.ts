import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../test-support/harness.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

test('GET /workspaces/{id} returns the caller workspace with every field', async () => {
  const res = await t.inject({ method: 'GET', url: `/workspaces/${t.workspaceId}` });
  assert.equal(res.statusCode, 200);
  const ws = res.json();
  assert.equal(ws.id, t.workspaceId);
  assert.equal(ws.plan, 'enterprise');
  assert.equal(ws.linksLimit, 500_000);
  assert.equal(ws.conversionEnabled, false);
  assert.deepEqual(ws.users, [{ role: 'owner', defaultFolderId: null }]);
  assert.ok(Array.isArray(ws.domains));
  assert.equal(typeof ws.createdAt, 'string');
});

test('GET /workspaces/{slug} works with the slug too', async () => {
  const ws = (await t.inject({ method: 'GET', url: `/workspaces/${t.workspaceId}` })).json();
  const res = await t.inject({ method: 'GET', url: `/workspaces/${ws.slug}` });
  assert.equal(res.statusCode, 200);
  assert.equal(res.json().id, t.workspaceId);
});

test('another workspace is 404, by id and by slug', async () => {
  const other = await t.addWorkspace();
  const res = await t.inject({ method: 'GET', url: `/workspaces/${t.workspaceId}`, headers: other.headers });
  assert.equal(res.statusCode, 404);
  assert.equal(res.json().error.code, 'not_found');
  const mine = (await t.inject({ method: 'GET', url: `/workspaces/${t.workspaceId}` })).json();
  const bySlug = await t.inject({ method: 'PATCH', url: `/workspaces/${mine.slug}`, headers: other.headers, payload: { name: 'x' } });
  assert.equal(bySlug.statusCode, 404);
});

test('PATCH updates name, slug, logo and conversionEnabled; taken slug is 409', async () => {
  const res = await t.inject({
    method: 'PATCH',
    url: `/workspaces/${t.workspaceId}`,
    payload: { name: 'Acme', slug: 'acme-co', conversionEnabled: true, logo: 'https://example.com/logo.png' },
  });
  assert.equal(res.statusCode, 200);
  const ws = res.json();
  assert.equal(ws.name, 'Acme');
  assert.equal(ws.slug, 'acme-co');
  assert.equal(ws.conversionEnabled, true);
  assert.equal(ws.logo, 'https://example.com/logo.png');

  const other = await t.addWorkspace();
  const otherWs = (await t.app.inject({ method: 'GET', url: `/workspaces/${other.workspaceId}`, headers: other.headers })).json();
  const clash = await t.inject({ method: 'PATCH', url: `/workspaces/${t.workspaceId}`, payload: { slug: otherWs.slug } });
  assert.equal(clash.statusCode, 409);
  assert.equal(clash.json().error.code, 'conflict');
  assert.match(clash.json().error.message, /already in use/);
});

test('PATCH validation failures are 422 naming the field', async () => {
  const res = await t.inject({ method: 'PATCH', url: `/workspaces/${t.workspaceId}`, payload: { name: '' } });
  assert.equal(res.statusCode, 422);
  const body = res.json();
  assert.equal(body.error.code, 'unprocessable_entity');
  assert.match(body.error.message, /^too_small: name: /);
  assert.match(body.error.doc_url, /\/api-reference\/errors#unprocessable-entity$/);
  const bad = await t.inject({ method: 'PATCH', url: `/workspaces/${t.workspaceId}`, payload: { conversionEnabled: 'yes' } });
  assert.equal(bad.statusCode, 422);
  assert.match(bad.json().error.message, /conversionEnabled/);
});
