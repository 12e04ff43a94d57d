import { test } from 'node:test';
import assert from 'node:assert/strict';
import { meanInterval, normalCdf, pValue, shareZ, twoProportionZ, welchZ, wilson } from './stats.js';

// Reference values: SciPy 1.17.1 on this machine.
//   stats.norm.cdf(x); stats.binomtest(x, n).proportion_ci(0.95, method='wilson');
//   stats.chi2_contingency([[x1, n1-x1], [x2, n2-x2]], correction=False) → p, and z = √χ²
//   (the pooled two-proportion z-test is that χ² test); Welch's z from numpy var(ddof=1) with
//   2 * stats.norm.sf(|z|).
const close = (actual: number, expected: number, tolerance = 1e-6) =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `${actual} is not within ${tolerance} of ${expected}`);

test('normal CDF matches SciPy to 1e-7', () => {
  close(normalCdf(1), 0.8413447460685429, 1e-7);
  close(normalCdf(-2.5), 0.006209665325776132, 1e-7);
  close(normalCdf(0.3), 0.6179114221889526, 1e-7);
  close(normalCdf(0), 0.5, 1e-7);
  close(pValue(1.959963984540054), 0.05, 1e-7);
});

test('Wilson interval matches SciPy binomtest(...).proportion_ci(method="wilson")', () => {
  const a = wilson(30, 1000);
  close(a.low, 0.021093738828834696);
  close(a.high, 0.042503414147587126);
  const none = wilson(0, 50);
  assert.equal(none.low, 0);
  close(none.high, 0.07134759913335872);
  const all = wilson(50, 50);
  close(all.low, 0.9286524008666412);
  assert.equal(all.high, 1);
  const small = wilson(8, 10);
  close(small.low, 0.4901624715366418);
  close(small.high, 0.9433178485456248);
  assert.deepEqual(wilson(0, 0), { low: 0, high: 0 });
});

test('two-proportion z-test matches the χ² test of the 2×2 table without correction', () => {
  const a = twoProportionZ(30, 1000, 55, 1000);
  close(a.z, 2.7711571470508027);
  close(a.p, 0.0055857461875038865, 1e-7);
  const b = twoProportionZ(100, 1000, 110, 1000);
  close(b.z, 0.7294219615409078);
  close(b.p, 0.465743587933635, 1e-7);
  const c = twoProportionZ(120, 2000, 90, 2000);
  close(c.z, -2.126777210754324);
  close(c.p, 0.03343859867669463, 1e-7);
  // Nothing to compare: no trials, or a pooled rate of 0.
  assert.deepEqual(twoProportionZ(0, 0, 5, 10), { z: 0, p: 1 });
  assert.deepEqual(twoProportionZ(0, 100, 0, 100), { z: 0, p: 1 });
});

test("Welch's z on revenue per click, from moments", () => {
  // A: 1,000 clicks, 20 sales of 5,000 cents. B: 1,000 clicks, 30 sales of 5,000 and 10 of 2,000.
  const a = { n: 1000, sum: 20 * 5000, sumSquares: 20 * 5000 ** 2 };
  const b = { n: 1000, sum: 30 * 5000 + 10 * 2000, sumSquares: 30 * 5000 ** 2 + 10 * 2000 ** 2 };
  const r = welchZ(a, b);
  close(r.z, 1.9780386446037903);
  close(r.p, 0.04792434725381108, 1e-7);
  const i = meanInterval(b);
  close(i.low, 115.9013773798288);
  close(i.high, 224.0986226201712);
});

test('share test: 560 of 1,000 clicks where 50 % are expected', () => {
  // By hand: z = (0.56 − 0.5) / √(0.25 / 1000) = 3.7947…, p = 2·(1 − Φ(z)) = 1.478e-4.
  const r = shareZ(560, 1000, 0.5);
  close(r.z, 3.7947331922020586);
  close(r.p, 0.00014780231033445192, 1e-7);
});
