/**
 * The A/B test result's request and response, as zod schemas (validation and the OpenAPI
 * document come from them).
 */
import { z } from 'zod';
import { ON_INCONCLUSIVE, TEST_METRICS } from './verdict.js';

export const AbTestQuery = z.object({
  metric: z
    .enum(TEST_METRICS, { error: 'Invalid metric. Valid metrics are: leads, clicks, sales, revenue' })
    .optional()
    .describe('What the test is decided on: `leads` (default), `clicks`, `sales` or `revenue` (per click).'),
  onInconclusive: z
    .enum(ON_INCONCLUSIVE, { error: 'Invalid onInconclusive. Valid values are: keep_splitting, stop' })
    .optional()
    .describe('What a test that ends without a significant winner reports: `keep_splitting` (default) or `stop`.'),
});

const Interval = z.object({ low: z.number(), high: z.number() });
const Counts = z.object({ clicks: z.number(), leads: z.number(), sales: z.number(), saleAmount: z.number() });

export const AbTestResponse = z
  .object({
    linkId: z.string(),
    metric: z.enum(TEST_METRICS),
    onInconclusive: z.enum(ON_INCONCLUSIVE),
    testStartedAt: z.string().nullable(),
    testCompletedAt: z.string().nullable(),
    window: z.object({ from: z.string(), to: z.string() }),
    variants: z.array(
      Counts.extend({
        url: z.string(),
        percentage: z.number(),
        rate: z.number().describe("The metric's rate: leads or sales per click, revenue (cents) per click, or the share of clicks."),
        interval: Interval.describe('95 % interval of `rate`: Wilson for proportions, normal for revenue per click.'),
        pValue: z.number().nullable().describe("Two-sided p-value of the comparison with the leader (null for the leader, or when there is none)."),
      }),
    ),
    verdict: z.object({
      status: z.enum(['insufficient_data', 'not_significant', 'significant']),
      leader: z.string().nullable(),
      winner: z.string().nullable().describe('Set only once `testCompletedAt` has passed and the leader is significant.'),
      completed: z.boolean(),
      outcome: z.enum(['running', 'winner', ...ON_INCONCLUSIVE]),
      reason: z.string(),
      threshold: z.number().describe('The p-value each comparison must stay under: 0.05 / (variants − 1).'),
    }),
    settled: z
      .object({
        route: z.enum(['winner', 'split', 'stop']),
        url: z.string().nullable().describe('The winner every visit goes to (route `winner`).'),
        decidedFor: z.string().describe('The `testCompletedAt` the route was decided for.'),
        decidedAt: z.string(),
      })
      .nullable()
      .describe('What the redirect does since the test completed: every visit to the winner, keep splitting, or stop (the link\'s own URL). Null while the test runs, and until it is decided (within a minute of `testCompletedAt`).'),
    bucketDays: z.number(),
    timeseries: z.array(z.object({ start: z.string(), variants: z.array(Counts) })),
  })
  .describe("An A/B test's figures per variant, its verdict and a series over time (Waymark; not in the published API).");

export const AbTestSettingsBody = z
  .strictObject({
    metric: AbTestQuery.shape.metric,
    onInconclusive: z
      .enum(ON_INCONCLUSIVE, { error: 'Invalid onInconclusive. Valid values are: keep_splitting, stop' })
      .optional()
      .describe('What the redirect does when the test ends without a significant winner: `keep_splitting` (default) or `stop` (every visit to the link\'s own URL).'),
  })
  .describe("The link's A/B test settings; a field left out keeps its value (Waymark; not in the published API, and not on the link object).");

export const AbTestSettingsResponse = z
  .object({
    linkId: z.string(),
    metric: z.enum(TEST_METRICS),
    onInconclusive: z.enum(ON_INCONCLUSIVE),
  })
  .describe("A link's A/B test settings: the metric its winner is decided on, and what an inconclusive test does (Waymark).");
