/**
 * The figures of an analytics page, read through the API's analytics service exactly as
 * `GET /analytics` reads them (same query schema, same service call, `event=composite`), except
 * that no folder chosen counts links in every folder (folder-view.ts): the
 * totals, the time series and the breakdown cards. Shared by the workspace's analytics page and
 * the public stats page of a link.
 *
 * @example
 * const data = await loadAnalytics(services.analytics, apiCallerOf(page), { interval: '7d' }, CARDS);
 * data.count.clicks; data.series[0].start; data.cards[0].rows[0].clicks;
 */
import type { AnalyticsService } from '../../analytics/service.js';
import type { ApiMetrics, GroupedRow } from '../../analytics/shape.js';
import type { AuthContext } from '../../workspaces/service.js';
import { folderView } from '../folder-view.js';
import { CARD_ROWS, SHOW_ALL_ROWS, analyticsQueryOf, type CardSpec, type PageParams } from './query.js';
import { sortRows, type SortKey } from './rates.js';

export interface SeriesPoint extends ApiMetrics {
  start: string;
}

export interface CardData {
  spec: CardSpec;
  /**
   * The first `CARD_ROWS` rows (`SHOW_ALL_ROWS` when expanded) of the API's answer sorted by the
   * page's sort (the API's own order, clicks, by default).
   */
  rows: GroupedRow[];
  /** Rows the API answered in all. */
  total: number;
  /** Every row the API answered (up to its 5,000), sorted as `rows`: what the export writes. */
  all: GroupedRow[];
  /** Whether this card shows all its rows (its "Show all" was chosen). */
  expanded: boolean;
}

export interface AnalyticsData {
  count: ApiMetrics;
  series: SeriesPoint[];
  cards: CardData[];
  /** The time zone the series is in (the request's, else UTC). */
  timezone: string;
  /** The column the cards' rows are sorted by. */
  sort: SortKey;
}

/**
 * `expanded`: the grouping whose card shows all its rows (up to `SHOW_ALL_ROWS`); `sort`: the
 * column every card's rows are sorted by before they are cut to the card's length.
 */
export async function loadAnalytics(analytics: AnalyticsService, auth: AuthContext, params: PageParams, cards: CardSpec[], expanded?: string, sort: SortKey = 'clicks'): Promise<AnalyticsData> {
  // No folder chosen counts every folder; "Outside folders" is the API's default (folder-view.ts).
  const { query: apiParams, view } = folderView(params);
  // Every query is validated before any runs: an invalid range or filter is one 422.
  const countQ = analyticsQueryOf(apiParams, 'count');
  const seriesQ = analyticsQueryOf(apiParams, 'timeseries');
  const cardQs = cards.map((c) => analyticsQueryOf(apiParams, c.groupBy));
  const [count, series, ...grouped] = await Promise.all([
    analytics.retrieve(auth, countQ, view),
    analytics.retrieve(auth, seriesQ, view),
    ...cardQs.map((q) => analytics.retrieve(auth, q, view)),
  ]);
  return {
    count: count as ApiMetrics,
    series: series as unknown as SeriesPoint[],
    cards: cards.map((spec, i) => {
      const rows = sortRows(grouped[i] as GroupedRow[], sort);
      const all = spec.groupBy === expanded;
      return { spec, rows: rows.slice(0, all ? SHOW_ALL_ROWS : CARD_ROWS), total: rows.length, expanded: all, all: rows };
    }),
    timezone: params.timezone || 'UTC',
    sort,
  };
}
