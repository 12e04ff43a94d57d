import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runInNewContext } from 'node:vm';
import { createTestApp } from '../test-support/harness.js';
import { buildClientScript, CLICK_COOKIE_MAX_AGE_S } from './script.js';

/** Runs the script against a minimal browser: returns the cookie strings it wrote and its API. */
function runScript(source: string, href: string, attrs: Record<string, string> = {}, existingCookie = '') {
  const written: string[] = [];
  const url = new URL(href);
  const document = {
    currentScript: { getAttribute: (name: string) => attrs[name] ?? null },
    get cookie() {
      return existingCookie;
    },
    set cookie(v: string) {
      written.push(v);
    },
  };
  const window: Record<string, unknown> = { location: { search: url.search, protocol: url.protocol } };
  runInNewContext(source, { window, document, URLSearchParams });
  return { written, api: window.waymark as { clickId(): string | null } };
}

test('GET /script.js is public JavaScript built for the configured parameter', async () => {
  const t = await createTestApp({ config: { clickIdParam: 'ref_id' } });
  try {
    const res = await t.app.inject({ method: 'GET', url: '/script.js' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/javascript/);
    assert.equal(res.headers['cache-control'], 'public, max-age=3600');
    const { written } = runScript(res.body, 'https://shop.example.com/landing?ref_id=AbC123xyz&utm_source=x');
    assert.deepEqual(written, [`ref_id=AbC123xyz; Max-Age=${CLICK_COOKIE_MAX_AGE_S}; Path=/; SameSite=Lax; Secure`]);
    // Not listed in the API reference.
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    assert.equal(doc.paths['/script.js'], undefined);
  } finally {
    await t.close();
  }
});

test('the script stores waymark_id for 90 days, shares it with a parent domain on request, and reads it back', () => {
  const source = buildClientScript('waymark_id');
  assert.equal(CLICK_COOKIE_MAX_AGE_S, 7_776_000);
  const plain = runScript(source, 'http://localhost:8080/?waymark_id=Z9y8X7w6V5u4T3s2');
  assert.deepEqual(plain.written, ['waymark_id=Z9y8X7w6V5u4T3s2; Max-Age=7776000; Path=/; SameSite=Lax']);

  const shared = runScript(source, 'https://www.example.com/?waymark_id=abc', { 'data-cookie-domain': '.example.com' });
  assert.deepEqual(shared.written, ['waymark_id=abc; Max-Age=7776000; Path=/; SameSite=Lax; Domain=.example.com; Secure']);

  const reader = runScript(source, 'https://www.example.com/', {}, 'other=1; waymark_id=stored123');
  assert.deepEqual(reader.written, []);
  assert.equal(reader.api.clickId(), 'stored123');
});

test('the script ignores missing or unsafe values and bad cookie domains', () => {
  const source = buildClientScript('waymark_id');
  assert.deepEqual(runScript(source, 'https://example.com/?other=1').written, []);
  assert.deepEqual(runScript(source, 'https://example.com/?waymark_id=a%3B%20Domain%3Devil.com').written, []);
  assert.deepEqual(runScript(source, `https://example.com/?waymark_id=${'a'.repeat(65)}`).written, []);
  const badDomain = runScript(source, 'https://example.com/?waymark_id=ok1', { 'data-cookie-domain': 'evil.com; Path=/x' });
  assert.deepEqual(badDomain.written, ['waymark_id=ok1; Max-Age=7776000; Path=/; SameSite=Lax; Secure']);
  assert.throws(() => buildClientScript('bad"name'), /Invalid click id parameter/);
});
