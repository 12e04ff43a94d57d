import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { VERSION } from '../version.js';
import Fastify from 'fastify';
import { z } from 'zod';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { ALL_ERROR_STATUS, ApiError, ERROR_STATUS, docUrl, formatIssuePath, installErrorHandlers } from './errors.js';
import { createTestApp, type TestApp } from '../test-support/harness.js';

test('every spec error code maps to its status', () => {
  assert.deepEqual(ERROR_STATUS, {
    bad_request: 400, unauthorized: 401, forbidden: 403, not_found: 404, conflict: 409,
    invite_expired: 410, unprocessable_entity: 422, rate_limit_exceeded: 429, internal_server_error: 500,
  });
  for (const [code, status] of Object.entries(ERROR_STATUS)) {
    assert.equal(new ApiError(code as keyof typeof ERROR_STATUS, 'x').status, status);
  }
});

test('doc_url anchors follow the published form', () => {
  assert.equal(docUrl('https://d.example', 'not_found'), 'https://d.example/api-reference/errors#not-found');
  assert.equal(docUrl('https://d.example', 'rate_limit_exceeded'), 'https://d.example/api-reference/errors#rate-limit_exceeded');
});

test('issue paths render like testVariants[0].percentage', () => {
  assert.equal(formatIssuePath(['testVariants', 0, 'percentage']), 'testVariants[0].percentage');
  assert.equal(formatIssuePath([]), '');
});

test('unexpected errors are 500 with the spec body and no stack trace', async () => {
  const app = Fastify({ logger: false });
  app.setValidatorCompiler(validatorCompiler);
  installErrorHandlers(app, 'https://docs.example');
  app.get('/boom', async () => {
    throw new Error('secret internal detail at /srv/app.js:12');
  });
  app.post('/typed', { schema: { body: z.object({ n: z.number().max(3) }) } }, async () => ({ ok: true }));
  const res = await app.inject({ method: 'GET', url: '/boom' });
  assert.equal(res.statusCode, 500);
  const body = res.json();
  assert.equal(body.error.code, 'internal_server_error');
  assert.doesNotMatch(res.body, /secret internal detail|\/srv\/app\.js|at .*:\d+/);
  assert.match(body.error.doc_url, /^https:\/\/docs\.example\/api-reference\/errors#/);
  const bad = await app.inject({ method: 'POST', url: '/typed', payload: { n: 9 } });
  assert.equal(bad.statusCode, 422);
  assert.equal(bad.json().error.message, 'too_big: n: Too big: expected number to be <=3');
  await app.close();
});

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const wsUrl = () => `/workspaces/${t.workspaceId}`;

test('no Authorization header → 401 unauthorized with the spec body', async () => {
  const res = await t.app.inject({ method: 'GET', url: wsUrl() });
  assert.equal(res.statusCode, 401);
  assert.deepEqual(Object.keys(res.json().error).sort(), ['code', 'doc_url', 'message']);
  assert.equal(res.json().error.code, 'unauthorized');
  assert.equal(res.json().error.message, 'Missing Authorization header.');
});

test('a header without "Bearer " → 400 bad_request', async () => {
  const res = await t.app.inject({ method: 'GET', url: wsUrl(), headers: { authorization: t.key } });
  assert.equal(res.statusCode, 400);
  assert.equal(res.json().error.code, 'bad_request');
});

test('an unknown key → 401, a revoked key → 401', async () => {
  const res = await t.app.inject({ method: 'GET', url: wsUrl(), headers: { authorization: 'Bearer wm_doesnotexist' } });
  assert.equal(res.statusCode, 401);
  assert.equal(res.json().error.message, 'Unauthorized: Invalid API key.');
  const extra = await t.ctx.workspaces.createKey(t.workspaceId, { name: 'temp' });
  const ok = await t.app.inject({ method: 'GET', url: wsUrl(), headers: { authorization: `Bearer ${extra.key}` } });
  assert.equal(ok.statusCode, 200);
  assert.equal(await t.ctx.workspaces.revokeKey(t.workspaceId, extra.id), true);
  const revoked = await t.app.inject({ method: 'GET', url: wsUrl(), headers: { authorization: `Bearer ${extra.key}` } });
  assert.equal(revoked.statusCode, 401);
});

test('keys are stored only as SHA-256 hashes', async () => {
  const rows = await t.database.db.selectFrom('api_keys').selectAll().execute();
  assert.ok(rows.length > 0);
  for (const r of rows) {
    assert.match(r.hashed_key, /^[0-9a-f]{64}$/);
    assert.notEqual(r.hashed_key, t.key);
    assert.ok(!JSON.stringify(r).includes(t.key), 'the raw key must not be stored');
  }
});

test('a key without the needed scope → 403 naming the missing scope', async () => {
  const { key } = await t.ctx.workspaces.createKey(t.workspaceId, { name: 'ro', scopes: ['workspaces.read'] });
  const read = await t.app.inject({ method: 'GET', url: wsUrl(), headers: { authorization: `Bearer ${key}` } });
  assert.equal(read.statusCode, 200);
  const write = await t.app.inject({ method: 'PATCH', url: wsUrl(), headers: { authorization: `Bearer ${key}` }, payload: { name: 'x' } });
  assert.equal(write.statusCode, 403);
  assert.equal(write.json().error.code, 'forbidden');
  assert.match(write.json().error.message, /'workspaces\.write'/);
  const { key: readAll } = await t.ctx.workspaces.createKey(t.workspaceId, { name: 'read', scopes: ['apis.read'] });
  const denied = await t.app.inject({ method: 'PATCH', url: wsUrl(), headers: { authorization: `Bearer ${readAll}` }, payload: { name: 'x' } });
  assert.equal(denied.statusCode, 403);
  const { key: linksOnly } = await t.ctx.workspaces.createKey(t.workspaceId, { name: 'links', scopes: ['links.write'] });
  const noWs = await t.app.inject({ method: 'GET', url: wsUrl(), headers: { authorization: `Bearer ${linksOnly}` } });
  assert.equal(noWs.statusCode, 403);
  assert.match(noWs.json().error.message, /'workspaces\.read'/);
});

test('malformed JSON → 400 bad_request', async () => {
  const res = await t.inject({ method: 'PATCH', url: wsUrl(), headers: { 'content-type': 'application/json' }, payload: '{"name": ' });
  assert.equal(res.statusCode, 400);
  assert.equal(res.json().error.code, 'bad_request');
  assert.match(res.json().error.message, /Invalid JSON/);
});

test('unknown route → 404 not_found with the spec body', async () => {
  const res = await t.inject({ method: 'GET', url: '/definitely/not/here' });
  assert.equal(res.statusCode, 404);
  assert.equal(res.json().error.code, 'not_found');
  assert.match(res.json().error.doc_url, /#not-found$/);
});

test('GET /health is public and 200', async () => {
  const res = await t.app.inject({ method: 'GET', url: '/health' });
  assert.equal(res.statusCode, 200);
  assert.deepEqual(res.json(), { status: 'ok', version: VERSION });
});

test('rate-limit headers are on authenticated responses', async () => {
  const res = await t.inject({ method: 'GET', url: wsUrl() });
  assert.equal(res.statusCode, 200);
  assert.ok(res.headers['x-ratelimit-limit']);
  assert.ok(res.headers['x-ratelimit-remaining']);
  assert.ok(res.headers['x-ratelimit-reset']);
});

test('doc_url of an error leads to a page with that anchor', async () => {
  const res = await t.app.inject({ method: 'GET', url: wsUrl() });
  const docUrlValue = new URL(res.json().error.doc_url);
  const page = await t.app.inject({ method: 'GET', url: docUrlValue.pathname });
  assert.equal(page.statusCode, 200);
  assert.ok(page.body.includes(`id="${docUrlValue.hash.slice(1)}"`));
  // A page we render: no script, no framing.
  assert.match(String(page.headers['content-security-policy']), /default-src 'none'.*frame-ancestors 'none'/);
  assert.equal(page.headers['x-content-type-options'], 'nosniff');
});

/** The spec's body, with a code that belongs to the status. */
function assertErrorBody(status: number, body: string, code: string, context: string) {
  const parsed = JSON.parse(body);
  assert.deepEqual(Object.keys(parsed.error).sort(), ['code', 'doc_url', 'message'], context);
  assert.equal(parsed.error.code, code, `${context}: ${body}`);
  assert.equal(ALL_ERROR_STATUS[code as keyof typeof ALL_ERROR_STATUS], status, context);
  assert.match(parsed.error.doc_url, /\/api-reference\/errors#/, context);
}

test('refusals before any route runs carry the spec body (router, parser, size limits)', async () => {
  const base = await t.listen();
  const auth = { authorization: `Bearer ${t.key}` };
  const badEscape = await fetch(`${base}/links/%zz`, { headers: auth });
  assert.equal(badEscape.status, 400);
  assertErrorBody(400, await badEscape.text(), 'bad_request', 'malformed %');

  const longParam = await fetch(`${base}/links/${'a'.repeat(600)}`, { headers: auth });
  assert.equal(longParam.status, 414);
  assertErrorBody(414, await longParam.text(), 'uri_too_long', 'path parameter over 512');

  const bigHeader = await fetch(`${base}/links`, { headers: { ...auth, 'x-padding': 'a'.repeat(20_000) } });
  assert.equal(bigHeader.status, 431);
  assertErrorBody(431, await bigHeader.text(), 'request_header_fields_too_large', 'headers over 16 KB');

  const bigBody = await fetch(`${base}/links`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ url: 'https://example.com', comments: 'x'.repeat(5 * 1024 * 1024) }),
  });
  assert.equal(bigBody.status, 413);
  assertErrorBody(413, await bigBody.text(), 'payload_too_large', 'body over the limit');

  // The server still answers after all of that.
  assert.equal((await fetch(`${base}/health`)).status, 200);
});

test('deeply nested JSON is refused with 400 before anything walks it', async () => {
  const deepMetadata = `{"clickId":"x","eventName":"a","customerExternalId":"c","metadata":${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}}`;
  const res = await t.inject({ method: 'POST', url: '/track/lead', headers: { 'content-type': 'application/json' }, payload: deepMetadata });
  assert.equal(res.statusCode, 400, res.body);
  assertErrorBody(400, res.body, 'bad_request', 'deep metadata');
  assert.match(res.json().error.message, /deeper than 64 levels/);
  const deepArray = await t.inject({ method: 'POST', url: '/links', headers: { 'content-type': 'application/json' }, payload: '['.repeat(100_000) + ']'.repeat(100_000) });
  assert.equal(deepArray.statusCode, 400);
  // Prototype-poisoning checks of Fastify's parser still apply behind the depth limit.
  const poisoned = await t.inject({ method: 'PATCH', url: wsUrl(), headers: { 'content-type': 'application/json' }, payload: '{"__proto__":{"admin":true}}' });
  assert.equal(poisoned.statusCode, 400);
  assertErrorBody(400, poisoned.body, 'bad_request', '__proto__');
});
