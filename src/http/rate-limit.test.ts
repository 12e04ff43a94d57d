import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../test-support/harness.js';

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
