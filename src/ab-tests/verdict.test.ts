import { test } from 'node:test';
import assert from 'node:assert/strict';
import { abTestResult, type VariantFigures } from './verdict.js';

const NOW = Date.UTC(2026, 11, 2);
const DAY = 86_400_000;

function v(url: string, clicks: number, leads: number, extra: Partial<VariantFigures> = {}): VariantFigures {
  return { url, percentage: 50, clicks, leads, sales: 0, saleAmount: 0, revenueSquares: 0, ...extra };
}

test('significant on leads: the winner is named once the test is completed', () => {
  // 30/1000 against 55/1000: p = 0.0056 (stats.test.ts), below 0.05.
  const variants = [v('https://a.example', 1000, 30), v('https://b.example', 1000, 55)];
  const running = abTestResult({ variants, metric: 'leads', completedAt: NOW + DAY, now: NOW });
  assert.equal(running.verdict.status, 'significant');
  assert.equal(running.verdict.leader, 'https://b.example');
  assert.equal(running.verdict.winner, null, 'no winner before testCompletedAt');
  assert.equal(running.verdict.outcome, 'running');
  const done = abTestResult({ variants, metric: 'leads', completedAt: NOW - 1, now: NOW });
  assert.equal(done.verdict.winner, 'https://b.example');
  assert.equal(done.verdict.outcome, 'winner');
  assert.equal(done.variants[1]!.pValue, null);
  assert.ok(Math.abs(done.variants[0]!.pValue! - 0.0055857461875) < 1e-7);
  assert.ok(Math.abs(done.variants[1]!.rate - 0.055) < 1e-12);
  assert.ok(done.variants[1]!.interval.low < 0.055 && done.variants[1]!.interval.high > 0.055);
});

test('not significant: a lead is not a win, and the configured outcome applies', () => {
  // 100/1000 against 110/1000: p = 0.466.
  const variants = [v('https://a.example', 1000, 100), v('https://b.example', 1000, 110)];
  const keep = abTestResult({ variants, metric: 'leads', completedAt: NOW - 1, now: NOW });
  assert.equal(keep.verdict.status, 'not_significant');
  assert.equal(keep.verdict.leader, 'https://b.example');
  assert.equal(keep.verdict.winner, null);
  assert.equal(keep.verdict.outcome, 'keep_splitting');
  const stop = abTestResult({ variants, metric: 'leads', completedAt: NOW - 1, now: NOW, onInconclusive: 'stop' });
  assert.equal(stop.verdict.winner, null);
  assert.equal(stop.verdict.outcome, 'stop');
  assert.match(stop.verdict.reason, /stopped/);
});

test('tied: no leader, no winner, never a random pick', () => {
  const variants = [v('https://a.example', 500, 40), v('https://b.example', 500, 40)];
  for (let i = 0; i < 5; i++) {
    const r = abTestResult({ variants, metric: 'leads', completedAt: NOW - 1, now: NOW });
    assert.equal(r.verdict.leader, null);
    assert.equal(r.verdict.winner, null);
    assert.equal(r.verdict.status, 'not_significant');
    assert.match(r.verdict.reason, /tied/);
  }
});

test('below the minimum sample: not yet significant however large the gap', () => {
  const r = abTestResult({ variants: [v('https://a.example', 99, 0), v('https://b.example', 99, 60)], metric: 'leads', completedAt: NOW - 1, now: NOW });
  assert.equal(r.verdict.status, 'insufficient_data');
  assert.equal(r.verdict.winner, null);
  assert.match(r.verdict.reason, /^Not yet significant/);
  // Enough clicks but too few leads for the normal approximation (pooled 2/400: 1 expected each).
  const few = abTestResult({ variants: [v('https://a.example', 200, 0), v('https://b.example', 200, 2)], metric: 'leads', completedAt: null, now: NOW });
  assert.equal(few.verdict.status, 'insufficient_data');
});

test('three variants: the leader must beat each other one under alpha / 2 (Bonferroni)', () => {
  // Leader 55/1000 beats 30/1000 (p 0.0056) but 40/1000 only at p = 0.12: not significant.
  const r = abTestResult({
    variants: [v('https://a.example', 1000, 30), v('https://b.example', 1000, 55), v('https://c.example', 1000, 40)],
    metric: 'leads',
    completedAt: NOW - 1,
    now: NOW,
  });
  assert.equal(r.verdict.threshold, 0.025);
  assert.equal(r.verdict.status, 'not_significant');
  assert.equal(r.verdict.winner, null);
});

test('the metric is selectable: sales, revenue, clicks', () => {
  const sales = abTestResult({
    variants: [v('https://a.example', 1000, 0, { sales: 30 }), v('https://b.example', 1000, 0, { sales: 55 })],
    metric: 'sales',
    completedAt: NOW - 1,
    now: NOW,
  });
  assert.equal(sales.verdict.winner, 'https://b.example');
  // Revenue: Welch's z = 1.978, p = 0.0479 (stats.test.ts): significant at 0.05.
  const revenue = abTestResult({
    variants: [
      v('https://a.example', 1000, 0, { sales: 20, saleAmount: 100_000, revenueSquares: 20 * 5000 ** 2 }),
      v('https://b.example', 1000, 0, { sales: 40, saleAmount: 170_000, revenueSquares: 30 * 5000 ** 2 + 10 * 2000 ** 2 }),
    ],
    metric: 'revenue',
    completedAt: NOW - 1,
    now: NOW,
  });
  assert.equal(revenue.verdict.winner, 'https://b.example');
  assert.equal(revenue.variants[1]!.rate, 170);
  // Clicks: 560 against 440 on a 50/50 split, p = 1.5e-4.
  const clicks = abTestResult({ variants: [v('https://a.example', 440, 0), v('https://b.example', 560, 0)], metric: 'clicks', completedAt: NOW - 1, now: NOW });
  assert.equal(clicks.verdict.winner, 'https://b.example');
  // 410 against 590 on a 40/60 split is what the split predicts (z = 0.65): no winner.
  const asSplit = abTestResult({
    variants: [v('https://a.example', 410, 0, { percentage: 40 }), v('https://b.example', 590, 0, { percentage: 60 })],
    metric: 'clicks',
    completedAt: NOW - 1,
    now: NOW,
  });
  assert.equal(asSplit.verdict.winner, null);
});
