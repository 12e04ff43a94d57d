import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { createTestApp, type TestApp } from '../src/test-support/harness.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

test('GET /openapi.json is a valid OpenAPI document', async () => {
  const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
  assert.equal(res.statusCode, 200);
  const doc = res.json();
  const validator = new Validator();
  const result = await validator.validate(doc);
  assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2)?.slice(0, 2000));
  assert.equal(doc.info.title, 'Waymark API');
});

test('the document lists every implemented public operation', async () => {
  const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  const documented = new Set<string>();
  for (const [path, ops] of Object.entries<Record<string, unknown>>(doc.paths)) {
    for (const method of Object.keys(ops)) documented.add(`${method.toUpperCase()} ${path}`);
  }
  const expected = t.routes
    .filter((r) => !r.hidden && r.method !== 'HEAD' && r.method !== 'OPTIONS' && !r.url.startsWith('/docs'))
    .map((r) => `${r.method} ${r.url.replace(/:(\w+)/g, '{$1}')}`);
  assert.ok(expected.includes('GET /workspaces/{idOrSlug}'));
  for (const op of expected) assert.ok(documented.has(op), `${op} is missing from /openapi.json`);
});

test('GET /docs serves the interactive reference without a key', async () => {
  const res = await t.app.inject({ method: 'GET', url: '/docs/' });
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /text\/html/);
});
