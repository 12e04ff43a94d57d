/**
 * The winner rule of an A/B test, pure: per-variant figures in, the result out. A variant wins
 * only when it beats every other on the test's metric with a two-sided p below 0.05 / (k − 1)
 * (Bonferroni over the k − 1 comparisons), and only once every variant has the minimum sample.
 * Until then the test is "not yet significant"; an exact tie has no leader; nothing is ever
 * decided at random.
 *
 * @example
 * abTestResult({ variants, metric: 'leads', completedAt: null, now: Date.now() }).verdict.status; // 'not_significant'
 */
import { meanInterval, shareZ, twoProportionZ, welchZ, wilson, type Interval, type Moments, type TestResult } from './stats.js';

export const TEST_METRICS = ['leads', 'clicks', 'sales', 'revenue'] as const;
export type TestMetric = (typeof TEST_METRICS)[number];

export const ON_INCONCLUSIVE = ['keep_splitting', 'stop'] as const;
export type OnInconclusive = (typeof ON_INCONCLUSIVE)[number];

/** What one variant collected. `revenue` holds the revenue (cents) per click: n = clicks. */
export interface VariantFigures {
  url: string;
  percentage: number;
  clicks: number;
  leads: number;
  sales: number;
  /** Cents. */
  saleAmount: number;
  /** Sum of squares of each click's revenue (cents²), for the revenue metric's variance. */
  revenueSquares: number;
}

export interface VerdictOptions {
  /** Clicks every variant needs before any verdict. */
  minClicksPerVariant: number;
  /** Expected successes (and failures) per variant under the pooled rate: the normal approximation's rule. */
  minExpected: number;
  /** Family-wise significance level. */
  alpha: number;
}

export const DEFAULT_VERDICT_OPTIONS: VerdictOptions = { minClicksPerVariant: 100, minExpected: 5, alpha: 0.05 };

export interface VariantResult {
  url: string;
  percentage: number;
  clicks: number;
  leads: number;
  sales: number;
  saleAmount: number;
  /** The metric's rate: leads or sales per click, revenue (cents) per click, or the share of clicks. */
  rate: number;
  /** 95 % interval of `rate` (Wilson for proportions, normal for revenue per click). */
  interval: Interval;
  /** Two-sided p-value against the leader (null for the leader itself, or without a leader). */
  pValue: number | null;
}

export type VerdictStatus = 'insufficient_data' | 'not_significant' | 'significant';

export interface Verdict {
  status: VerdictStatus;
  /** The variant with the best rate (null on an exact tie or without data). */
  leader: string | null;
  /** Set only once the test is completed and the leader is significant. */
  winner: string | null;
  completed: boolean;
  /** After completion without a winner: what the test does (configured). */
  outcome: 'running' | 'winner' | OnInconclusive;
  /** Why, in a sentence a dashboard can show. */
  reason: string;
  /** The p-value every comparison must stay under (alpha / (k − 1)). */
  threshold: number;
}

export interface AbTestInput {
  variants: readonly VariantFigures[];
  metric: TestMetric;
  completedAt: number | null;
  now: number;
  onInconclusive?: OnInconclusive;
  options?: Partial<VerdictOptions>;
}

export interface AbTestResult {
  metric: TestMetric;
  variants: VariantResult[];
  verdict: Verdict;
}

function successes(v: VariantFigures, metric: 'leads' | 'sales'): number {
  return metric === 'leads' ? v.leads : v.sales;
}

function moments(v: VariantFigures): Moments {
  return { n: v.clicks, sum: v.saleAmount, sumSquares: v.revenueSquares };
}

/** The metric's rate and interval of one variant. */
function rateOf(v: VariantFigures, metric: TestMetric, totalClicks: number): { rate: number; interval: Interval } {
  if (metric === 'revenue') return { rate: v.clicks ? v.saleAmount / v.clicks : 0, interval: meanInterval(moments(v)) };
  if (metric === 'clicks') return { rate: totalClicks ? v.clicks / totalClicks : 0, interval: wilson(v.clicks, totalClicks) };
  const x = successes(v, metric);
  return { rate: v.clicks ? x / v.clicks : 0, interval: wilson(x, v.clicks) };
}

/** The test of `other` against `leader`: z > 0 when the leader is higher. */
function compare(leader: VariantFigures, other: VariantFigures, metric: TestMetric, totalClicks: number, totalShare: number): TestResult {
  if (metric === 'revenue') return welchZ(moments(other), moments(leader));
  if (metric === 'clicks') {
    // Clicks are split by the configured percentages: a variant "wins" on clicks when it gets
    // significantly more than its share predicts (the other does less than its own).
    return shareZ(leader.clicks, totalClicks, totalShare > 0 ? leader.percentage / totalShare : 0);
  }
  return twoProportionZ(successes(other, metric), other.clicks, successes(leader, metric), leader.clicks);
}

/** Why the sample is too small, or null when every variant has enough. */
function shortOfSample(variants: readonly VariantFigures[], metric: TestMetric, o: VerdictOptions): string | null {
  const few = variants.filter((v) => v.clicks < o.minClicksPerVariant);
  if (few.length) return `Not yet significant: every variant needs ${o.minClicksPerVariant} clicks (${few.length} of ${variants.length} below).`;
  if (metric === 'clicks') return null;
  const clicks = variants.reduce((s, v) => s + v.clicks, 0);
  const hits = variants.reduce((s, v) => s + (metric === 'leads' ? v.leads : v.sales), 0);
  const pooled = clicks ? hits / clicks : 0;
  const low = variants.some((v) => v.clicks * pooled < o.minExpected || v.clicks * (1 - pooled) < o.minExpected);
  const noun = metric === 'leads' ? 'leads' : 'sales';
  if (low) return `Not yet significant: too few ${noun} for the test (at least ${o.minExpected} expected per variant).`;
  return null;
}

export function abTestResult(input: AbTestInput): AbTestResult {
  const o = { ...DEFAULT_VERDICT_OPTIONS, ...input.options };
  const { variants, metric } = input;
  const totalClicks = variants.reduce((s, v) => s + v.clicks, 0);
  const totalShare = variants.reduce((s, v) => s + Math.max(0, v.percentage), 0);
  const rates = variants.map((v) => rateOf(v, metric, totalClicks));
  const threshold = o.alpha / Math.max(1, variants.length - 1);
  const completed = input.completedAt !== null && input.completedAt <= input.now;

  // Clicks metric: the leader is the variant furthest above its share.
  const score = (i: number) => (metric === 'clicks' ? rates[i]!.rate - (totalShare > 0 ? variants[i]!.percentage / totalShare : 0) : rates[i]!.rate);
  let best = -Infinity;
  let leaders: number[] = [];
  variants.forEach((_, i) => {
    const s = score(i);
    if (s > best) [best, leaders] = [s, [i]];
    else if (s === best) leaders.push(i);
  });
  const leaderIndex = leaders.length === 1 && totalClicks > 0 ? leaders[0]! : null;
  const leader = leaderIndex === null ? null : variants[leaderIndex]!;

  const tests = variants.map((v, i) => (leader && i !== leaderIndex ? compare(leader, v, metric, totalClicks, totalShare) : null));
  const results: VariantResult[] = variants.map((v, i) => ({
    url: v.url,
    percentage: v.percentage,
    clicks: v.clicks,
    leads: v.leads,
    sales: v.sales,
    saleAmount: v.saleAmount,
    rate: rates[i]!.rate,
    interval: rates[i]!.interval,
    pValue: tests[i]?.p ?? null,
  }));

  const short = shortOfSample(variants, metric, o);
  let status: VerdictStatus;
  let reason: string;
  if (short) [status, reason] = ['insufficient_data', short];
  else if (!leader) [status, reason] = ['not_significant', 'Not significant: the best variants are tied.'];
  else {
    const beaten = tests.every((t, i) => i === leaderIndex || (t !== null && t.z > 0 && t.p < threshold));
    status = beaten ? 'significant' : 'not_significant';
    reason = beaten
      ? `Significant: ${leader.url} beats every other variant on ${metric} (p < ${round(threshold)}).`
      : `Not significant: ${leader.url} leads on ${metric}, but not by more than chance explains (p ≥ ${round(threshold)} against at least one variant).`;
  }
  const winner = completed && status === 'significant' ? leader!.url : null;
  const onInconclusive = input.onInconclusive ?? 'keep_splitting';
  const outcome = !completed ? 'running' : winner ? 'winner' : onInconclusive;
  if (completed && !winner) reason += onInconclusive === 'keep_splitting' ? ' The test ended without a winner and keeps splitting.' : ' The test ended without a winner and stopped.';
  return { metric, variants: results, verdict: { status, leader: leader?.url ?? null, winner, completed, outcome, reason, threshold } };
}

function round(x: number): string {
  return String(Math.round(x * 10_000) / 10_000);
}
