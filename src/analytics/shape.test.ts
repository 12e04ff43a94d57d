/**
 * The response rows' order and cap (shape.ts `finish`): by the event's metric, ties by key, each
 * row's key made once however many comparisons the sort makes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { finish, MAX_GROUP_ROWS, shapeColumnGroups } from './shape.js';

const row = (key: string, clicks: number, saleAmount = 0) => ({ key, clicks, leads: 0, sales: saleAmount ? 1 : 0, saleAmount });

test('rows are ordered by the metric, ties by key, rows without events dropped, and each key is made once', () => {
  const rows = [row('b', 2), row('a', 2), row('c', 5), row('z', 0), row('d', 1)];
  let calls = 0;
  const out = finish('clicks', rows, (r) => (calls++, r.key));
  assert.deepEqual(out.map((r) => r.key), ['c', 'a', 'b', 'd']);
  assert.equal(calls, 4, 'one key a kept row');
  assert.deepEqual(finish('sales', [row('x', 9, 100), row('y', 1, 300), row('w', 3)], (r) => r.key).map((r) => r.key), ['y', 'x'], 'sales rank by amount');
});

test('at most MAX_GROUP_ROWS rows, the top ones', () => {
  const rows = Array.from({ length: MAX_GROUP_ROWS + 10 }, (_, i) => row(`k${String(i).padStart(5, '0')}`, i + 1));
  const out = finish('clicks', rows, (r) => r.key);
  assert.equal(out.length, MAX_GROUP_ROWS);
  assert.equal(out[0]!.clicks, MAX_GROUP_ROWS + 10);
  assert.equal(out.at(-1)!.clicks, 11);
});

test('a column grouping: unknown values dropped, equal values after rewriting summed, ties by the value', () => {
  const m = (g: string, clicks: number) => ({ g: [g], clicks, leads: 0, sales: 0, sale_amount: 0 });
  const out = shapeColumnGroups('referer_urls', 'clicks', [m('https://a.test/x?u=1', 2), m('https://a.test/x', 1), m('https://b.test/', 3), m('', 7), m('Unknown', 4)]);
  assert.deepEqual(out.map((r) => [r.refererUrl, r.clicks]), [['https://a.test/x', 3], ['https://b.test/', 3]]);
});
