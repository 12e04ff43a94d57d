import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../test-support/harness.js';
import { isCorsOrigin, isCorsPath } from './cors.js';

const EXTENSION = 'chrome-extension://abcdefghijklmnopabcdefghijklmnop';

test('isCorsOrigin: only a Chromium extension origin', () => {
  assert.equal(isCorsOrigin(EXTENSION), true);
  assert.equal(isCorsOrigin(undefined), false);
  assert.equal(isCorsOrigin('https://evil.example'), false);
  assert.equal(isCorsOrigin('null'), false);
  assert.equal(isCorsOrigin(`${EXTENSION}.evil.example`), false, 'the whole origin, not a prefix');
  assert.equal(isCorsOrigin('chrome-extension://abcdefghijklmnopabcdefghijklmnoz'), false, 'z is not in an extension id');
  assert.equal(isCorsOrigin('moz-extension://0b6f1c2e-6d7a-4c1e-9a51-3f2d7c1b9e40'), false, 'Firefox: not the extension this service ships');
});

test('isCorsPath: the API, not the dashboard pages', () => {
  for (const p of ['/links', '/links/info?domain=a', '/domains', '/tags', '/qr?url=x', '/analytics']) assert.equal(isCorsPath(p), true, p);
  for (const p of ['/', '/dashboard', '/dashboard/w/acme/links', '/setup?token=x', '/stats/acme', '/docs']) assert.equal(isCorsPath(p), false, p);
  assert.equal(isCorsPath('/dashboards-api'), true, 'a prefix is a whole segment');
});

test('an extension origin: the preflight is answered without a key, responses carry its origin (issue 44)', async (t) => {
  const app = await createTestApp();
  t.after(() => app.close());
  const preflight = await app.app.inject({
    method: 'OPTIONS',
    url: '/links',
    headers: { origin: EXTENSION, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
  });
  assert.equal(preflight.statusCode, 204);
  assert.equal(preflight.headers['access-control-allow-origin'], EXTENSION);
  assert.match(String(preflight.headers['access-control-allow-methods']), /\bPOST\b/);
  assert.match(String(preflight.headers['access-control-allow-methods']), /\bPATCH\b/);
  assert.equal(preflight.headers['access-control-allow-headers'], 'authorization, content-type');
  assert.equal(preflight.headers['access-control-max-age'], '600');
  assert.equal(preflight.headers['access-control-allow-credentials'], undefined, 'a bearer key, never cookies');

  // The popup's reads carry the key too, so a GET is preflighted as well (docs/extension.md).
  const read = await app.app.inject({ method: 'OPTIONS', url: '/links?pageSize=1', headers: { origin: EXTENSION, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' } });
  assert.equal(read.statusCode, 204);
  assert.equal(read.headers['access-control-allow-origin'], EXTENSION);

  const created = await app.inject({ method: 'POST', url: '/links', headers: { origin: EXTENSION }, payload: { url: 'https://example.com/a' } });
  assert.equal(created.statusCode, 200);
  assert.equal(created.headers['access-control-allow-origin'], EXTENSION);
  assert.match(String(created.headers.vary), /origin/i);
  assert.match(String(created.headers['access-control-expose-headers']), /x-ratelimit-remaining/);

  // An error is readable by the extension too (its message shown to the user).
  const refused = await app.app.inject({ method: 'GET', url: '/links', headers: { origin: EXTENSION, authorization: 'Bearer wrong' } });
  assert.equal(refused.statusCode, 401);
  assert.equal(refused.headers['access-control-allow-origin'], EXTENSION);
  assert.equal(refused.json().error.code, 'unauthorized');
});

test('other origins and the dashboard get no CORS; a bare OPTIONS is still the API 404', async (t) => {
  const app = await createTestApp();
  t.after(() => app.close());
  const site = await app.app.inject({ method: 'OPTIONS', url: '/links', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
  assert.equal(site.statusCode, 404);
  assert.equal(site.headers['access-control-allow-origin'], undefined);
  assert.equal(site.json().error.code, 'not_found');

  const listed = await app.inject({ method: 'GET', url: '/links', headers: { origin: 'https://evil.example' } });
  assert.equal(listed.statusCode, 200);
  assert.equal(listed.headers['access-control-allow-origin'], undefined);

  const page = await app.app.inject({ method: 'OPTIONS', url: '/dashboard/login', headers: { origin: EXTENSION, 'access-control-request-method': 'POST' } });
  assert.equal(page.statusCode, 404);
  assert.equal(page.headers['access-control-allow-origin'], undefined);
  const login = await app.app.inject({ method: 'GET', url: '/dashboard/login', headers: { origin: EXTENSION } });
  assert.equal(login.headers['access-control-allow-origin'], undefined);

  const bare = await app.app.inject({ method: 'OPTIONS', url: '/links' });
  assert.equal(bare.statusCode, 404);
  assert.equal(bare.json().error.code, 'not_found');
});
