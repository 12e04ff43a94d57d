/**
 * The A/B test settings of links and the routes completed tests settled on (`ab_test_settings`,
 * migration 0035): read and written by link id within a workspace, and the links whose completed
 * test has no route for its current completion time yet (the decider's work).
 *
 * @example
 * const store = createAbTestStore(db);
 * await store.saveSettings(trx, 'ws_1', 'link_1', { metric: 'sales', onInconclusive: 'stop' }, Date.now());
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.js';
import { ON_INCONCLUSIVE, TEST_METRICS, type OnInconclusive, type TestMetric } from './verdict.js';
import type { TestRoute } from './after-test.js';

/** A link's test settings, the defaults filled in. */
export interface AbTestSettings {
  metric: TestMetric;
  onInconclusive: OnInconclusive;
}

/** What the test settled on, and for which completion time. */
export interface SettledRoute {
  route: TestRoute;
  /** The `testCompletedAt` (ms) it was decided for. */
  decidedFor: number;
  decidedAt: number;
}

export const DEFAULT_TEST_SETTINGS: AbTestSettings = { metric: 'leads', onInconclusive: 'keep_splitting' };

/** A link whose test completed and has no route for its completion time. */
export interface DueTest {
  id: string;
  workspaceId: string;
  domain: string;
  key: string;
  testVariants: string | null;
  testStartedAt: number | null;
  testCompletedAt: number;
  createdAt: number;
  settings: AbTestSettings;
}

type Row = Pick<Database['ab_test_settings'], 'metric' | 'on_inconclusive'>;

function settingsOf(row: Row | undefined): AbTestSettings {
  const metric = (TEST_METRICS as readonly string[]).includes(row?.metric ?? '') ? (row!.metric as TestMetric) : DEFAULT_TEST_SETTINGS.metric;
  const on = (ON_INCONCLUSIVE as readonly string[]).includes(row?.on_inconclusive ?? '') ? (row!.on_inconclusive as OnInconclusive) : DEFAULT_TEST_SETTINGS.onInconclusive;
  return { metric, onInconclusive: on };
}

function routeOf(row: Pick<Database['ab_test_settings'], 'route' | 'route_url'>): TestRoute | null {
  if (row.route === 'split' || row.route === 'stop') return { route: row.route };
  if (row.route === 'winner' && row.route_url) return { route: 'winner', url: row.route_url };
  return null;
}

export function createAbTestStore(db: Kysely<Database>) {
  return {
    /** The link's settings (defaults when it has none) and its stored route, if any. */
    async get(workspaceId: string, linkId: string): Promise<{ settings: AbTestSettings; settled: SettledRoute | null }> {
      const row = await db.selectFrom('ab_test_settings').selectAll().where('workspace_id', '=', workspaceId).where('link_id', '=', linkId).executeTakeFirst();
      const route = row ? routeOf(row) : null;
      const settled = row && route && row.decided_for !== null ? { route, decidedFor: Number(row.decided_for), decidedAt: Number(row.decided_at ?? 0) } : null;
      return { settings: settingsOf(row), settled };
    },

    /**
     * Writes the settings in `trx`. A change of either forgets the stored route, so the decider
     * decides a completed test again under the new settings.
     */
    async saveSettings(trx: Kysely<Database>, workspaceId: string, linkId: string, settings: AbTestSettings, now: number): Promise<void> {
      const values = { metric: settings.metric, on_inconclusive: settings.onInconclusive, route: null, route_url: null, decided_for: null, decided_at: null, updated_at: now };
      await trx
        .insertInto('ab_test_settings')
        .values({ link_id: linkId, workspace_id: workspaceId, ...values })
        .onConflict((oc) => oc.column('link_id').doUpdateSet(values))
        .execute();
    },

    /** Up to `limit` links whose test completed by `now` without a route for its completion time. */
    async due(now: number, limit: number): Promise<DueTest[]> {
      const rows = await db
        .selectFrom('links')
        .leftJoin('ab_test_settings', 'ab_test_settings.link_id', 'links.id')
        .select(['links.id', 'links.workspace_id', 'links.domain', 'links.key', 'links.test_variants', 'links.test_started_at', 'links.test_completed_at', 'links.created_at'])
        .select(['ab_test_settings.metric', 'ab_test_settings.on_inconclusive'])
        .where('links.test_completed_at', 'is not', null)
        .where('links.test_completed_at', '<=', now)
        .where('links.test_variants', 'is not', null)
        .where((eb) => eb.or([eb('ab_test_settings.decided_for', 'is', null), eb('ab_test_settings.decided_for', '<>', eb.ref('links.test_completed_at'))]))
        .orderBy('links.test_completed_at')
        .limit(limit)
        .execute();
      return rows.map((r) => ({
        id: r.id,
        workspaceId: r.workspace_id,
        domain: r.domain,
        key: r.key,
        testVariants: r.test_variants,
        testStartedAt: r.test_started_at === null ? null : Number(r.test_started_at),
        testCompletedAt: Number(r.test_completed_at),
        createdAt: Number(r.created_at),
        settings: settingsOf(r),
      }));
    },

    /** Stores the route decided for the completion time `decidedFor`, the settings kept. */
    async settle(test: Pick<DueTest, 'id' | 'workspaceId'>, route: TestRoute, decidedFor: number, now: number): Promise<void> {
      const values = { route: route.route, route_url: route.route === 'winner' ? route.url : null, decided_for: decidedFor, decided_at: now, updated_at: now };
      await db
        .insertInto('ab_test_settings')
        .values({ link_id: test.id, workspace_id: test.workspaceId, metric: null, on_inconclusive: null, ...values })
        .onConflict((oc) => oc.column('link_id').doUpdateSet(values))
        .execute();
    },
  };
}

export type AbTestStore = ReturnType<typeof createAbTestStore>;
