/**
 * Where a completed A/B test sends traffic, pure: the significant winner gets every visit;
 * without one the test keeps splitting or stops (all traffic to the link's own URL), as the
 * link's settings say. Never a random pick: a tie has no winner, so it is "without one".
 *
 * The decider (decider.ts) calls it once per completion and stores the route; the redirect reads
 * the stored route with the link (redirect/decide.ts `testTarget`), so no verdict runs per visit.
 *
 * @example
 * routeAfterTest(abTestResult({ variants, metric, completedAt, now }).verdict, 'stop'); // { route: 'stop' }
 */
import type { OnInconclusive, Verdict } from './verdict.js';

export const TEST_ROUTES = ['winner', 'split', 'stop'] as const;

export type TestRoute = { route: 'winner'; url: string } | { route: 'split' } | { route: 'stop' };

/** The route of a test whose verdict is `verdict`; null while it has not completed. */
export function routeAfterTest(verdict: Pick<Verdict, 'completed' | 'status' | 'winner'>, onInconclusive: OnInconclusive): TestRoute | null {
  if (!verdict.completed) return null;
  if (verdict.status === 'significant' && verdict.winner !== null) return { route: 'winner', url: verdict.winner };
  return onInconclusive === 'stop' ? { route: 'stop' } : { route: 'split' };
}
