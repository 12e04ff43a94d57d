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
    bucketDays: z.number(),
    timeseries: z.array(z.object({ start: z.string(), variants: z.array(Counts) })),
  })
  .describe("An A/B test's figures per variant, its verdict and a series over time (Waymark; not in the published API).");
