/**
 * Settles completed A/B tests, once per completion: finds the links whose `testCompletedAt` has
 * passed without a stored route for it, computes each verdict under the link's settings
 * (service.ts, verdict.ts), turns it into a route (after-test.ts) and stores it, then announces
 * the link's change so every process's redirect cache reloads it. The redirect only reads the
 * stored route (redirect/decide.ts `testTarget`): no verdict runs per visit.
 *
 * Runs every `intervalMs` (30 s) and at start; idempotent, so several processes may run it (the
 * same figures give the same route; the last write wins). docs/decisions/0011.
 *
 * @example
 * const decider = createTestDecider({ store, result: service.result, bus, now: Date.now });
 * await decider.decideDue(); // → how many tests it settled
 */
import type { ChangeBus } from '../db/change-bus.js';
import { routeAfterTest, type TestRoute } from './after-test.js';
import type { AbTestQuery, AbTestReport, TestedLink } from './service.js';
import type { AbTestStore, DueTest } from './store.js';

export interface TestDeciderDeps {
  store: Pick<AbTestStore, 'due' | 'settle'>;
  result(workspaceId: string, link: TestedLink, q: AbTestQuery): Promise<AbTestReport>;
  bus: Pick<ChangeBus, 'publish'>;
  now: () => number;
  intervalMs?: number;
  onError?: (err: unknown, context: string) => void;
}

/** Links settled per query of due tests, and batches per pass (a pass never loops on a link it cannot settle). */
const BATCH = 50;
const MAX_BATCHES = 20;

function testedLink(d: DueTest): TestedLink {
  let variants: { url: string; percentage: number }[] = [];
  try {
    const parsed: unknown = JSON.parse(d.testVariants ?? '[]');
    if (Array.isArray(parsed)) variants = parsed.filter((v) => v && typeof v.url === 'string' && typeof v.percentage === 'number');
  } catch {
    variants = [];
  }
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return { id: d.id, testVariants: variants.length ? variants : null, testStartedAt: iso(d.testStartedAt), testCompletedAt: iso(d.testCompletedAt), createdAt: iso(d.createdAt)! };
}

export function createTestDecider(deps: TestDeciderDeps) {
  const intervalMs = deps.intervalMs ?? 30_000;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;

  async function settleOne(d: DueTest): Promise<void> {
    const link = testedLink(d);
    // Variants the redirect cannot use (none, or unreadable): nothing to route, the link's own URL.
    let route: TestRoute = { route: 'stop' };
    if (link.testVariants) {
      const report = await deps.result(d.workspaceId, link, d.settings);
      route = routeAfterTest(report.verdict, d.settings.onInconclusive) ?? { route: 'split' };
    }
    await deps.store.settle(d, route, d.testCompletedAt, deps.now());
    deps.bus.publish({ type: 'link', domain: d.domain, key: d.key });
  }

  async function pass(): Promise<number> {
    let settled = 0;
    const seen = new Set<string>();
    for (let b = 0; b < MAX_BATCHES; b++) {
      const due = (await deps.store.due(deps.now(), BATCH)).filter((d) => !seen.has(d.id));
      for (const d of due) {
        seen.add(d.id);
        try {
          await settleOne(d);
          settled++;
        } catch (err) {
          deps.onError?.(err, `settling the A/B test of link ${d.id} failed; the next pass tries again`);
        }
      }
      if (due.length < BATCH) break;
    }
    return settled;
  }

  return {
    /** One pass now (or the one running): how many tests it settled. */
    decideDue(): Promise<number> {
      running ??= pass().finally(() => (running = undefined));
      return running;
    },
    lifecycle: {
      start() {
        const tick = () => void (running ?? pass().catch((err) => deps.onError?.(err, 'the A/B test decider failed')));
        timer = setInterval(tick, intervalMs);
        timer.unref();
        tick();
      },
      async close() {
        clearInterval(timer);
        await running?.catch(() => undefined);
      },
    },
  };
}

export type TestDecider = ReturnType<typeof createTestDecider>;
