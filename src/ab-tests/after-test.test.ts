import { test } from 'node:test';
import assert from 'node:assert/strict';
import { abTestResult, type OnInconclusive, type VariantFigures } from './verdict.js';
import { routeAfterTest } from './after-test.js';

const NOW = Date.UTC(2026, 11, 2);

function v(url: string, clicks: number, leads: number): VariantFigures {
  return { url, percentage: 50, clicks, leads, sales: 0, saleAmount: 0, revenueSquares: 0 };
}

const routeOf = (variants: VariantFigures[], onInconclusive: OnInconclusive, completedAt = NOW - 1) =>
  routeAfterTest(abTestResult({ variants, metric: 'leads', completedAt, now: NOW, onInconclusive }).verdict, onInconclusive);

test('significant: every visit goes to the winner, whatever the inconclusive setting', () => {
  // 30/1000 against 55/1000: p = 0.0056 (verdict.test.ts).
  const variants = [v('https://a.example', 1000, 30), v('https://b.example', 1000, 55)];
  assert.deepEqual(routeOf(variants, 'keep_splitting'), { route: 'winner', url: 'https://b.example' });
  assert.deepEqual(routeOf(variants, 'stop'), { route: 'winner', url: 'https://b.example' });
});

test('not significant: the test keeps splitting, or stops, as configured', () => {
  // 100/1000 against 110/1000: p = 0.466; b leads, but that is no win.
  const variants = [v('https://a.example', 1000, 100), v('https://b.example', 1000, 110)];
  assert.deepEqual(routeOf(variants, 'keep_splitting'), { route: 'split' });
  assert.deepEqual(routeOf(variants, 'stop'), { route: 'stop' });
  // Too few clicks for any verdict counts as not significant too.
  assert.deepEqual(routeOf([v('https://a.example', 20, 0), v('https://b.example', 20, 9)], 'stop'), { route: 'stop' });
});

test('tied: no winner and no random pick, the same route on every call', () => {
  const variants = [v('https://a.example', 2000, 150), v('https://b.example', 2000, 150), v('https://c.example', 2000, 150)];
  for (let i = 0; i < 20; i++) {
    assert.deepEqual(routeOf(variants, 'keep_splitting'), { route: 'split' });
    assert.deepEqual(routeOf(variants, 'stop'), { route: 'stop' });
  }
});

test('a test still running has no route yet', () => {
  const variants = [v('https://a.example', 1000, 30), v('https://b.example', 1000, 55)];
  assert.equal(routeOf(variants, 'stop', NOW + 60_000), null);
});
