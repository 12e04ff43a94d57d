/**
 * The statistics of an A/B test, pure: conversion rates with Wilson 95 % intervals, the pooled
 * two-proportion z-test between variants, Welch's test on revenue per click, and the normal
 * distribution they rest on. No I/O, no clock: the verdict (verdict.ts) decides with these.
 *
 * Why a two-proportion test and not a Bayesian "probability to beat": its p-value has a closed
 * form that anyone can check by hand or with a statistics package (the tests beside this file
 * quote the reference values), it needs no sampling (the same data always gives the same
 * answer), and its error rate at a fixed sample is the one people expect from "95 %".
 *
 * @example
 * wilson(30, 1000); // { low: 0.0211, high: 0.0425 }
 * twoProportionZ(30, 1000, 55, 1000).p; // 0.0056
 */

/** z for a two-sided 95 % interval: the 0.975 quantile of the standard normal. */
export const Z95 = 1.959963984540054;

/**
 * erf(x) by W. J. Cody's rational approximations as given in Numerical Recipes' `erfc`
 * (Chebyshev fit, fractional error below 1.2e-7 everywhere): enough for p-values quoted to 4
 * digits, and no dependency for one function.
 */
export function erf(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? 1 - r : r - 1;
}

/** P(Z ≤ z) for the standard normal. */
export function normalCdf(z: number): number {
  return 0.5 * (1 + erf(z / Math.SQRT2));
}

export interface Interval {
  low: number;
  high: number;
}

/** The Wilson score interval of `successes` out of `trials` (95 % by default); [0, 0] with no trials. */
export function wilson(successes: number, trials: number, z = Z95): Interval {
  if (trials <= 0) return { low: 0, high: 0 };
  const p = Math.min(1, Math.max(0, successes / trials));
  const z2 = z * z;
  const denom = 1 + z2 / trials;
  const centre = (p + z2 / (2 * trials)) / denom;
  const half = (z / denom) * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials));
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

export interface TestResult {
  /** The statistic: positive when the second group is higher. */
  z: number;
  /** Two-sided p-value. */
  p: number;
}

/**
 * Pooled two-proportion z-test of x1/n1 against x2/n2 (the test of a 2×2 table without continuity
 * correction, as `statsmodels.stats.proportion.proportions_ztest` computes it). No difference
 * measurable (no trials, or a pooled rate of 0 or 1): z 0, p 1.
 */
export function twoProportionZ(x1: number, n1: number, x2: number, n2: number): TestResult {
  if (n1 <= 0 || n2 <= 0) return { z: 0, p: 1 };
  const pooled = (x1 + x2) / (n1 + n2);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
  if (!(se > 0)) return { z: 0, p: 1 };
  const z = (x2 / n2 - x1 / n1) / se;
  return { z, p: pValue(z) };
}

/** Sample summary of a per-click value (revenue per click): count, sum, sum of squares. */
export interface Moments {
  n: number;
  sum: number;
  sumSquares: number;
}

/**
 * Welch's test of the means of two samples given by their moments, with the normal distribution
 * for the statistic (the samples a verdict allows are hundreds of clicks, where Student's t and
 * the normal agree to the third decimal). No variance: z 0, p 1.
 */
export function welchZ(a: Moments, b: Moments): TestResult {
  if (a.n < 2 || b.n < 2) return { z: 0, p: 1 };
  const va = variance(a);
  const vb = variance(b);
  const se = Math.sqrt(va / a.n + vb / b.n);
  if (!(se > 0)) return { z: 0, p: 1 };
  const z = (b.sum / b.n - a.sum / a.n) / se;
  return { z, p: pValue(z) };
}

/** Unbiased sample variance from moments. */
export function variance(m: Moments): number {
  if (m.n < 2) return 0;
  const mean = m.sum / m.n;
  return Math.max(0, (m.sumSquares - m.n * mean * mean) / (m.n - 1));
}

/** Normal 95 % interval of a mean from moments; [mean, mean] below two values. */
export function meanInterval(m: Moments, z = Z95): Interval {
  if (m.n <= 0) return { low: 0, high: 0 };
  const mean = m.sum / m.n;
  const half = m.n < 2 ? 0 : z * Math.sqrt(variance(m) / m.n);
  return { low: Math.max(0, mean - half), high: mean + half };
}

/** Two-sided p-value of a standard normal statistic. */
export function pValue(z: number): number {
  return Math.min(1, 2 * (1 - normalCdf(Math.abs(z))));
}

/**
 * One-sample test of an observed share against an expected one (normal approximation to the
 * binomial): did a variant get more clicks than its configured percentage predicts?
 */
export function shareZ(observed: number, total: number, expectedShare: number): TestResult {
  if (total <= 0 || expectedShare <= 0 || expectedShare >= 1) return { z: 0, p: 1 };
  const se = Math.sqrt((expectedShare * (1 - expectedShare)) / total);
  const z = (observed / total - expectedShare) / se;
  return { z, p: pValue(z) };
}
