/**
 * An A/B test's result, read from the event log: each variant's clicks during the test, the
 * leads and sales of those clicks (whenever they came), a daily series for the chart, and the
 * verdict of verdict.ts. Read-only: the link keeps `testVariants`, `testStartedAt` and
 * `testCompletedAt` exactly as it was written.
 *
 * @example
 * const result = await abTests.result(workspaceId, link, { metric: 'leads' });
 */
import { buildScope, type AggregateSpec, type EventKind, type EventRow, type EventLog } from '../events/index.js';
import { ApiError } from '../http/errors.js';
import { clickIdTime } from '../visitors/click-id.js';
import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.js';
import { record, type Who } from '../audit/record.js';
import { abTestResult, type AbTestResult, type OnInconclusive, type TestMetric, type VariantFigures } from './verdict.js';
import type { AbTestSettings, AbTestStore, SettledRoute } from './store.js';
import { variantForms, variantIndex } from './variant-of.js';

const DAY_MS = 86_400_000;
/** At most this many points on the chart: longer tests get wider buckets. */
const MAX_BUCKETS = 120;
/** Conversions read a page at a time. */
const PAGE = 5000;
/** A link with more leads and sales than this in its test is summarised from the first ones. */
const MAX_CONVERSIONS = 500_000;

/** The fields of a link the result needs (a `LinkResponse` has them). */
export interface TestedLink {
  id: string;
  testVariants: { url: string; percentage: number }[] | null;
  testStartedAt: string | null;
  testCompletedAt: string | null;
  createdAt: string;
}

export interface AbTestQuery {
  metric?: TestMetric;
  onInconclusive?: OnInconclusive;
}

export interface SeriesPoint {
  start: string;
  /** Per variant, in the link's order: what happened in this bucket. */
  variants: { clicks: number; leads: number; sales: number; saleAmount: number }[];
}

/** What the test settled on after `testCompletedAt`, as the API shows it. */
export interface SettledReport {
  route: 'winner' | 'split' | 'stop';
  url: string | null;
  /** The completion time it was decided for (ISO). */
  decidedFor: string;
  decidedAt: string;
}

export interface AbTestReport extends AbTestResult {
  linkId: string;
  /** The route the redirect applies since the test completed; null while it runs or until decided. */
  settled: SettledReport | null;
  testStartedAt: string | null;
  testCompletedAt: string | null;
  onInconclusive: OnInconclusive;
  /** The test's window as counted: clicks in [from, to). */
  window: { from: string; to: string };
  /** Bucket width of `timeseries`, in days. */
  bucketDays: number;
  timeseries: SeriesPoint[];
}

export interface AbTestServiceDeps {
  events: Pick<EventLog, 'aggregate' | 'page'>;
  store: AbTestStore;
  db: Kysely<Database>;
  now: () => number;
}

/** `GET`/`PATCH /links/{linkId}/ab-test/settings`. */
export interface AbTestSettingsView extends AbTestSettings {
  linkId: string;
}

/** The settled route as reported, when it is for the link's current completion time. */
function settledReport(settled: SettledRoute | null, completedAt: number | null): SettledReport | null {
  if (!settled || completedAt === null || settled.decidedFor !== completedAt) return null;
  return {
    route: settled.route.route,
    url: settled.route.route === 'winner' ? settled.route.url : null,
    decidedFor: new Date(settled.decidedFor).toISOString(),
    decidedAt: new Date(settled.decidedAt).toISOString(),
  };
}

const msOf = (iso: string | null) => (iso === null ? null : Date.parse(iso));

export function createAbTestService(deps: AbTestServiceDeps) {
  const { events, store } = deps;

  return {
    /** The link's stored settings (defaults where none are stored). */
    async settings(workspaceId: string, linkId: string): Promise<AbTestSettingsView> {
      return { linkId, ...(await store.get(workspaceId, linkId)).settings };
    },

    /**
     * Stores the settings (what is not given stays), with its audit entry in the same write. A
     * completed test is decided again under them (the decider's next pass).
     */
    async saveSettings(caller: { workspaceId: string; who?: Who }, linkId: string, input: Partial<AbTestSettings>): Promise<AbTestSettingsView> {
      const current = (await store.get(caller.workspaceId, linkId)).settings;
      const next: AbTestSettings = { metric: input.metric ?? current.metric, onInconclusive: input.onInconclusive ?? current.onInconclusive };
      await deps.db.transaction().execute(async (trx) => {
        await store.saveSettings(trx, caller.workspaceId, linkId, next, deps.now());
        await record(trx, caller.who, { workspaceId: caller.workspaceId, action: 'ab_test.update', targetIds: linkId, changes: { fields: Object.keys(input).filter((k) => input[k as keyof AbTestSettings] !== undefined).sort(), ...next } });
      });
      return { linkId, ...next };
    },

    /** The result; `q` overrides the stored metric and inconclusive setting (what-if views). */
    async result(workspaceId: string, link: TestedLink, q: AbTestQuery = {}): Promise<AbTestReport> {
      const variants = link.testVariants ?? [];
      if (!variants.length) throw new ApiError('not_found', 'This link has no A/B test.');
      const now = deps.now();
      const stored = await store.get(workspaceId, link.id);
      const metric = q.metric ?? stored.settings.metric;
      const onInconclusive = q.onInconclusive ?? stored.settings.onInconclusive;
      const started = msOf(link.testStartedAt) ?? Date.parse(link.createdAt);
      const completed = msOf(link.testCompletedAt);
      const from = Math.min(started, now);
      const to = Math.max(from + 1, Math.min(completed ?? now, now) + 1);
      const forms = variants.map((v) => variantForms(v.url));

      const bucketDays = Math.max(1, Math.ceil((to - from) / DAY_MS / MAX_BUCKETS));
      const bucketMs = bucketDays * DAY_MS;
      const firstBucket = Math.floor(from / DAY_MS) * DAY_MS;
      const buckets = Math.max(1, Math.ceil((to - firstBucket) / bucketMs));
      const bucketOf = (t: number) => Math.min(buckets - 1, Math.max(0, Math.floor((t - firstBucket) / bucketMs)));
      const series = Array.from({ length: buckets }, () => variants.map(() => ({ clicks: 0, leads: 0, sales: 0, saleAmount: 0 })));
      const figures: VariantFigures[] = variants.map((v) => ({ url: v.url, percentage: v.percentage, clicks: 0, leads: 0, sales: 0, saleAmount: 0, revenueSquares: 0 }));

      const scope = buildScope({ workspaceId, links: { ids: { op: 'in', values: [link.id] } }, named: true }, [link.id]);
      const spec = (kinds: EventKind[], timeseries: boolean): AggregateSpec => ({ workspaceId, kinds, group: ['url'], timeseries, dims: [], conversions: {}, scope });

      // Clicks: totals and a series by bucket, both from the aggregate (rollups where a store has them).
      const boundaries = Array.from({ length: buckets - 1 }, (_, i) => firstBucket + (i + 1) * bucketMs).filter((b) => b > from && b < to);
      for (const row of await events.aggregate(spec(['click'], true), { from, to }, boundaries)) {
        const i = variantIndex(row.g[0], forms);
        if (i < 0) continue;
        figures[i]!.clicks += row.clicks;
        series[bucketOf(Math.max(row.slot ?? from, from))]![i]!.clicks += row.clicks;
      }

      // Leads and sales of the test's clicks, whenever they came: read as rows, for revenue per
      // click (the revenue metric's variance) and the click's time.
      const revenueByClick = new Map<string, { variant: number; cents: number }>();
      let after: { timestamp: number; id: string } | undefined;
      let read = 0;
      for (;;) {
        const rows: EventRow[] = await events.page(spec(['lead', 'sale'], false), { from, to: now + 1 }, { order: 'asc', limit: PAGE, offset: 0, after });
        for (const r of rows) {
          const i = variantIndex(r.url, forms);
          if (i < 0 || !clickInWindow(r, from, to)) continue;
          const f = figures[i]!;
          const point = series[bucketOf(Number(r.timestamp))]![i]!;
          if (r.kind === 'lead') {
            f.leads++;
            point.leads++;
          } else if (r.kind === 'sale') {
            const cents = Number(r.amount ?? 0);
            f.sales++;
            f.saleAmount += cents;
            point.sales++;
            point.saleAmount += cents;
            const key = r.click_id ?? r.id;
            const acc = revenueByClick.get(key) ?? { variant: i, cents: 0 };
            acc.cents += cents;
            revenueByClick.set(key, acc);
          }
        }
        read += rows.length;
        if (rows.length < PAGE || read >= MAX_CONVERSIONS) break;
        const last = rows[rows.length - 1]!;
        after = { timestamp: Number(last.timestamp), id: last.id };
      }
      for (const { variant, cents } of revenueByClick.values()) figures[variant]!.revenueSquares += cents * cents;

      const result = abTestResult({ variants: figures, metric, completedAt: completed, now, onInconclusive });
      return {
        linkId: link.id,
        settled: settledReport(stored.settled, completed),
        testStartedAt: link.testStartedAt,
        testCompletedAt: link.testCompletedAt,
        onInconclusive,
        window: { from: new Date(from).toISOString(), to: new Date(to).toISOString() },
        ...result,
        bucketDays,
        timeseries: series.map((variantsOfBucket, b) => ({ start: new Date(firstBucket + b * bucketMs).toISOString(), variants: variantsOfBucket })),
      };
    },
  };
}

/**
 * Whether the conversion's click was made during the test. Waymark's click ids spell their
 * time; an id from elsewhere (imported) does not, and then the conversion counts.
 */
function clickInWindow(r: EventRow, from: number, to: number): boolean {
  if (!r.click_id || r.click_id.length !== 16) return true;
  const t = clickIdTime(r.click_id);
  if (!Number.isFinite(t) || t > Number(r.timestamp)) return true;
  return t >= from && t < to;
}

export type AbTestService = ReturnType<typeof createAbTestService>;
