/**
 * Compare: two to five links, tags or UTM campaigns over the same range, each read through the
 * API's analytics service with that one filter (`linkId`, `tagIds`, `utm_campaign`), so each
 * line and row equals `GET /analytics?<filter>=<value>&event=composite` for the range.
 *
 * @example
 * const c = await loadComparison(services.analytics, auth, { interval: '30d' }, 'links', ['link_a', 'link_b']);
 * c.items[0].count.saleAmount; c.items[1].series[3].clicks;
 */
import type { AnalyticsService } from '../../analytics/service.js';
import type { ApiMetrics } from '../../analytics/shape.js';
import type { AuthContext } from '../../workspaces/service.js';
import { folderView } from '../folder-view.js';
import type { SeriesPoint } from './load.js';
import { analyticsQueryOf, type FilterParam, type PageParams } from './query.js';

export const COMPARE_KINDS = [
  { kind: 'links', label: 'Links', filter: 'linkId' },
  { kind: 'tags', label: 'Tags', filter: 'tagIds' },
  { kind: 'campaigns', label: 'UTM campaigns', filter: 'utm_campaign' },
] as const satisfies readonly { kind: string; label: string; filter: FilterParam }[];
export type CompareKind = (typeof COMPARE_KINDS)[number]['kind'];

export const MIN_COMPARED = 2;
export const MAX_COMPARED = 5;

export interface ComparedItem {
  value: string;
  count: ApiMetrics;
  series: SeriesPoint[];
}

/** The range parameters only (a comparison has no other filters), then one filter per item. */
export async function loadComparison(analytics: AnalyticsService, auth: AuthContext, range: PageParams, kind: CompareKind, values: string[]): Promise<ComparedItem[]> {
  const filter = COMPARE_KINDS.find((k) => k.kind === kind)!.filter;
  return Promise.all(
    values.map(async (value) => {
      // Every folder's links, as the analytics page without a folder chosen.
      const { query, view } = folderView({ ...range, [filter]: value });
      const [count, series] = await Promise.all([
        analytics.retrieve(auth, analyticsQueryOf(query, 'count'), view),
        analytics.retrieve(auth, analyticsQueryOf(query, 'timeseries'), view),
      ]);
      return { value, count: count as ApiMetrics, series: series as unknown as SeriesPoint[] };
    }),
  );
}
