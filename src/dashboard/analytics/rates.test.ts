import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatRate, ratesOf, sortOf, sortRows } from './rates.js';

const row = (id: string, clicks: number, leads: number, sales: number, saleAmount: number) => ({ id, clicks, leads, sales, saleAmount });

test('rates are leads per click, sales per lead and revenue per click; zero bases give 0', () => {
  assert.deepEqual(ratesOf(row('a', 200, 10, 2, 9900)), { leadRate: 0.05, saleRate: 0.2, revenuePerClick: 49.5 });
  assert.deepEqual(ratesOf(row('a', 0, 0, 0, 0)), { leadRate: 0, saleRate: 0, revenuePerClick: 0 });
  assert.equal(formatRate(0.125, 8), '12.5%');
  assert.equal(formatRate(0, 0), '–', 'no base: no rate, rather than a misleading 0%');
});

test('rows sort by the chosen column, highest first, ties in the API order; unknown sorts are clicks', () => {
  const rows = [row('a', 100, 1, 0, 0), row('b', 50, 5, 1, 500), row('c', 10, 5, 5, 9000), row('d', 5, 0, 0, 0)];
  assert.deepEqual(sortRows(rows, 'clicks').map((r) => r.id), ['a', 'b', 'c', 'd']);
  assert.deepEqual(sortRows(rows, 'saleAmount').map((r) => r.id), ['c', 'b', 'a', 'd']);
  assert.deepEqual(sortRows(rows, 'leads').map((r) => r.id), ['b', 'c', 'a', 'd'], 'ties (b, c) keep the API order');
  assert.deepEqual(sortRows(rows, 'leadRate').map((r) => r.id), ['c', 'b', 'a', 'd']);
  assert.deepEqual(sortRows(rows, 'saleRate').map((r) => r.id), ['c', 'b', 'a', 'd']);
  assert.deepEqual(rows.map((r) => r.id), ['a', 'b', 'c', 'd'], 'the input is not reordered');
  assert.equal(sortOf('saleAmount'), 'saleAmount');
  assert.equal(sortOf('constructor'), 'clicks');
  assert.equal(sortOf(undefined), 'clicks');
});
