import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { idList, MAX_LIST_ITEMS } from './lists.js';
import { createTestApp, type TestApp } from '../test-support/harness.js';

test('idList splits, trims and caps', () => {
  const schema = idList(3);
  assert.deepEqual(schema.parse('a, b,,c'), ['a', 'b', 'c']);
  assert.deepEqual(schema.parse(['a,b', 'c']), ['a', 'b', 'c']);
  assert.equal(schema.safeParse('a,b,c,d').success, false);
  assert.equal(idList().safeParse(Array.from({ length: MAX_LIST_ITEMS }, (_, i) => `t${i}`)).success, true);
  assert.equal(idList().safeParse(Array.from({ length: MAX_LIST_ITEMS + 1 }, (_, i) => `t${i}`)).success, false);
});

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

test('every list input over its maximum is a 422 naming the field, never a 500', async () => {
  const many = (n: number) => Array.from({ length: n }, (_, i) => `x${i}`);
  const geo = Object.fromEntries(many(251).map((c) => [c.slice(0, 16), 'https://example.com/']));
  const cases: [string, { method: 'GET' | 'POST' | 'PATCH' | 'PUT'; url: string; payload?: object }, RegExp][] = [
    ['40,000 tag ids', { method: 'POST', url: '/links', payload: { url: 'https://example.com', tagIds: many(40_000) } }, /tagIds/],
    ['101 tag names', { method: 'POST', url: '/links', payload: { url: 'https://example.com', tagNames: many(101) } }, /tagNames/],
    ['101 webhook ids', { method: 'POST', url: '/links', payload: { url: 'https://example.com', webhookIds: many(101) } }, /webhookIds/],
    ['251 geo targets', { method: 'POST', url: '/links', payload: { url: 'https://example.com', geo } }, /geo/],
    ['upsert with 101 tag ids', { method: 'PUT', url: '/links/upsert', payload: { url: 'https://example.com', tagIds: many(101) } }, /tagIds/],
    ['links filter with 101 tag ids', { method: 'GET', url: `/links?tagIds=${many(101).join(',')}` }, /tagIds/],
    ['tags filter with 101 ids', { method: 'GET', url: `/tags?ids=${many(101).join(',')}` }, /ids/],
    ['analytics filter with 101 countries', { method: 'GET', url: `/analytics?country=${many(101).join(',')}` }, /country/],
    ['events filter with 101 link ids', { method: 'GET', url: `/events?linkId=${many(101).join(',')}` }, /linkId/],
  ];
  for (const [name, request, field] of cases) {
    const res = await t.inject(request);
    assert.equal(res.statusCode, 422, `${name}: ${res.body.slice(0, 300)}`);
    assert.equal(res.json().error.code, 'unprocessable_entity', name);
    assert.match(res.json().error.message, field, name);
  }
  // At the maximum the same inputs are accepted.
  const ok = await t.inject({ method: 'GET', url: `/analytics?country=${many(100).join(',')}` });
  assert.equal(ok.statusCode, 200, ok.body);
});
