import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { createTestApp, TEST_ENGINE } from '../test-support/harness.js';
import { loadConfig } from '../config.js';

test('over the per-key limit → 429 rate_limit_exceeded with Retry-After and X-RateLimit headers', async () => {
  const t = await createTestApp({ config: { rateLimitPerMinute: 3 } });
  try {
    const url = `/workspaces/${t.workspaceId}`;
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 4; i++) {
      last = await t.inject({ method: 'GET', url });
      statuses.push(last.statusCode);
    }
    assert.deepEqual(statuses, [200, 200, 200, 429]);
    assert.equal(last!.json().error.code, 'rate_limit_exceeded');
    assert.match(last!.json().error.doc_url, /#rate-limit_exceeded$/);
    assert.equal(last!.headers['x-ratelimit-limit'], '3');
    assert.equal(last!.headers['x-ratelimit-remaining'], '0');
    assert.ok(Number(last!.headers['retry-after']) > 0);
    // Keys are limited separately: another key of the same workspace still passes.
    const other = await t.ctx.workspaces.createKey(t.workspaceId, { name: 'second' });
    const ok = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${other.key}` } });
    assert.equal(ok.statusCode, 200);
    assert.equal(ok.headers['x-ratelimit-remaining'], '2');
  } finally {
    await t.close();
  }
});

test('plan limits apply when no override is configured', async () => {
  const t = await createTestApp({ plan: 'free', config: { rateLimitPerMinute: undefined } });
  try {
    const res = await t.inject({ method: 'GET', url: `/workspaces/${t.workspaceId}` });
    assert.equal(res.headers['x-ratelimit-limit'], '60');
  } finally {
    await t.close();
  }
});

const QR = `/qr?url=${encodeURIComponent('https://go.example.com/abc')}&format=svg`;
const from = (ip: string, headers: Record<string, string> = {}) => ({ 'x-forwarded-for': ip, ...headers });

test('GET /qr is limited per client address (IPv6 per /64), with or without a key', async () => {
  const t = await createTestApp({ env: { TRUST_PROXY: 'true' }, config: { qrRateLimitPerMinute: 3 } });
  try {
    const statuses = [];
    let last;
    for (let i = 0; i < 4; i++) {
      // The dub SDK sends its key to /qr; the route needs none and counts the address all the same.
      last = await t.app.inject({ method: 'GET', url: QR, headers: from('203.0.113.7', i % 2 ? t.headers : {}) });
      statuses.push(last.statusCode);
    }
    assert.deepEqual(statuses, [200, 200, 200, 429]);
    assert.equal(last!.json().error.code, 'rate_limit_exceeded');
    assert.match(last!.json().error.message, /3 QR codes per minute from this address/);
    assert.ok(Number(last!.headers['retry-after']) > 0);
    assert.equal(last!.headers['x-ratelimit-limit'], '3');
    assert.equal((await t.app.inject({ method: 'GET', url: QR, headers: from('203.0.113.8') })).statusCode, 200, 'another address has its own count');

    for (let i = 0; i < 3; i++) assert.equal((await t.app.inject({ method: 'GET', url: QR, headers: from(`2001:db8:7:7::${i + 1}`) })).statusCode, 200);
    assert.equal((await t.app.inject({ method: 'GET', url: QR, headers: from('2001:db8:7:7:ffff::9') })).statusCode, 429, 'the same /64');
    assert.equal((await t.app.inject({ method: 'GET', url: QR, headers: from('2001:db8:7:8::1') })).statusCode, 200, 'the next /64');
  } finally {
    await t.close();
  }
});

test('failed authentications are limited per client address: past the limit 429 instead of 401; valid keys pass', async () => {
  const t = await createTestApp({ env: { TRUST_PROXY: 'true' }, config: { failedAuthRateLimitPerMinute: 3 } });
  try {
    const url = `/workspaces/${t.workspaceId}`;
    const revoked = await t.ctx.workspaces.createKey(t.workspaceId, { name: 'old' });
    await t.ctx.workspaces.revokeKey(t.workspaceId, revoked.id);
    const attempts: Record<string, string>[] = [{}, { authorization: 'Bearer wm_unknown' }, { authorization: `Bearer ${revoked.key}` }, { authorization: 'Bearer wm_unknown2' }];
    const statuses = [];
    let last;
    for (const headers of attempts) {
      last = await t.app.inject({ method: 'GET', url, headers: from('198.51.100.1', headers) });
      statuses.push(last.statusCode);
    }
    assert.deepEqual(statuses, [401, 401, 401, 429], 'missing, unknown and revoked keys all count');
    assert.equal(last!.json().error.code, 'rate_limit_exceeded');
    assert.match(last!.json().error.doc_url, /#rate-limit_exceeded$/);
    assert.match(last!.json().error.message, /missing or invalid API key: the limit is 3 per minute from this address/);
    assert.ok(Number(last!.headers['retry-after']) > 0 && Number(last!.headers['retry-after']) <= 60);
    assert.equal(last!.headers['x-ratelimit-remaining'], '0');

    assert.equal((await t.app.inject({ method: 'GET', url, headers: from('198.51.100.1', t.headers) })).statusCode, 200, 'a valid key from the same address');
    assert.equal((await t.app.inject({ method: 'GET', url, headers: from('198.51.100.2', { authorization: 'Bearer wm_unknown' }) })).statusCode, 401, 'another address');
    assert.equal((await t.app.inject({ method: 'GET', url, headers: from('198.51.100.1', { authorization: 'Basic abc' }) })).statusCode, 400, 'a malformed header is a 400, not counted as a failed key');
  } finally {
    await t.close();
  }
});

test('defaults: 600 QR codes and 60 failed authentications per minute per address', () => {
  const config = loadConfig({});
  assert.equal(config.qrRateLimitPerMinute, 600);
  assert.equal(config.failedAuthRateLimitPerMinute, 60);
  assert.equal(loadConfig({ QR_RATE_LIMIT_PER_MINUTE: '50', FAILED_AUTH_RATE_LIMIT_PER_MINUTE: '5' }).failedAuthRateLimitPerMinute, 5);
  assert.throws(() => loadConfig({ QR_RATE_LIMIT_PER_MINUTE: '0' }), /QR_RATE_LIMIT_PER_MINUTE/);
});

test('counters that cannot be reached let requests through instead of failing them', { skip: TEST_ENGINE !== 'postgres' && 'PostgreSQL only: SQLite counts in memory' }, async () => {
  const t = await createTestApp({ config: { rateLimitPerMinute: 1 } });
  try {
    await sql`drop table rate_limit_counters`.execute(t.database.db);
    const url = `/workspaces/${t.workspaceId}`;
    assert.deepEqual([(await t.inject({ method: 'GET', url })).statusCode, (await t.inject({ method: 'GET', url })).statusCode], [200, 200]);
  } finally {
    await t.close();
  }
});
