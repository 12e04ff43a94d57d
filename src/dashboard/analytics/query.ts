/**
 * The analytics page's address ↔ the API's `/analytics` query. The page's query string uses the
 * API's own parameter names (`interval`, `start`, `end`, `timezone`, `linkId`, `domain`,
 * `tagIds`, `folderId`, `country`, …), so `/dashboard/w/<slug>/analytics?country=US` shows what
 * `GET /analytics?country=US&groupBy=…&event=composite` answers, and is validated by the same
 * zod schema (`AnalyticsQuery`).
 *
 * @example
 * const q = analyticsQueryOf({ interval: '7d', country: 'US', junk: 'x' });  // junk dropped
 * withFilter(current, 'device', 'Mobile');   // a new query string with that filter added
 */
import { AnalyticsQuery, type GroupBy } from '../../analytics/schema.js';
import { INTERVALS } from '../../analytics/range.js';
import { parseInput } from '../../users/schema.js';

/** Range parameters, in the API's names. */
export const RANGE_PARAMS = ['interval', 'start', 'end', 'timezone'] as const;
/** How sales are credited to links (`attribution=`, docs/attribution.md): moves sales between rows, not totals. */
export const MODEL_PARAMS = ['attribution'] as const;

/** Filters the page offers, in the API's names, with the label the page shows. */
export const FILTERS = [
  { param: 'linkId', label: 'Link' },
  { param: 'domain', label: 'Domain' },
  { param: 'tagIds', label: 'Tag' },
  { param: 'folderId', label: 'Folder' },
  { param: 'country', label: 'Country' },
  { param: 'city', label: 'City' },
  { param: 'device', label: 'Device' },
  { param: 'browser', label: 'Browser' },
  { param: 'os', label: 'OS' },
  { param: 'referer', label: 'Referer' },
  { param: 'utm_source', label: 'UTM source' },
  { param: 'utm_medium', label: 'UTM medium' },
  { param: 'utm_campaign', label: 'UTM campaign' },
  { param: 'utm_term', label: 'UTM term' },
  { param: 'utm_content', label: 'UTM content' },
  { param: 'trigger', label: 'Trigger' },
  { param: 'url', label: 'Destination URL' },
] as const;
export type FilterParam = (typeof FILTERS)[number]['param'];

/** A breakdown card: the grouping asked for, the row field shown, the filter a click on a row adds. */
export interface CardSpec {
  groupBy: GroupBy;
  title: string;
  /** The row's field that names the group (and is the filter's value). */
  field: string;
  filter: FilterParam;
}

export const CARDS: CardSpec[] = [
  { groupBy: 'top_links', title: 'Top links', field: 'id', filter: 'linkId' },
  { groupBy: 'countries', title: 'Countries', field: 'country', filter: 'country' },
  { groupBy: 'cities', title: 'Cities', field: 'city', filter: 'city' },
  { groupBy: 'devices', title: 'Devices', field: 'device', filter: 'device' },
  { groupBy: 'browsers', title: 'Browsers', field: 'browser', filter: 'browser' },
  { groupBy: 'os', title: 'Operating systems', field: 'os', filter: 'os' },
  { groupBy: 'referers', title: 'Referers', field: 'referer', filter: 'referer' },
  { groupBy: 'utm_sources', title: 'UTM sources', field: 'utm_source', filter: 'utm_source' },
  { groupBy: 'utm_mediums', title: 'UTM mediums', field: 'utm_medium', filter: 'utm_medium' },
  { groupBy: 'utm_campaigns', title: 'UTM campaigns', field: 'utm_campaign', filter: 'utm_campaign' },
  { groupBy: 'utm_terms', title: 'UTM terms', field: 'utm_term', filter: 'utm_term' },
  { groupBy: 'utm_contents', title: 'UTM contents', field: 'utm_content', filter: 'utm_content' },
  { groupBy: 'triggers', title: 'QR scans vs link clicks', field: 'trigger', filter: 'trigger' },
  { groupBy: 'top_urls', title: 'Top destination URLs', field: 'url', filter: 'url' },
];

/** Rows a card shows; the API's answer is longer (up to 5,000 rows). */
export const CARD_ROWS = 10;
/** Rows of the one card whose "Show all" was chosen (`?show=<groupBy>`). */
export const SHOW_ALL_ROWS = 1000;

export const INTERVAL_LABELS: Record<(typeof INTERVALS)[number], string> = {
  '24h': 'Last 24 hours',
  '7d': 'Last 7 days',
  '30d': 'Last 30 days',
  '90d': 'Last 90 days',
  '1y': 'Last 12 months',
  mtd: 'Month to date',
  qtd: 'Quarter to date',
  ytd: 'Year to date',
  all: 'All time',
};

/** The page's own parameters (range + filters) picked from a query string; anything else is dropped. */
export type PageParams = Partial<Record<(typeof RANGE_PARAMS)[number] | (typeof MODEL_PARAMS)[number] | FilterParam, string>>;

export function pageParamsOf(query: unknown): PageParams {
  const source = (query ?? {}) as Record<string, unknown>;
  const out: PageParams = {};
  for (const name of [...RANGE_PARAMS, ...MODEL_PARAMS, ...FILTERS.map((f) => f.param)]) {
    const v = source[name];
    const s = Array.isArray(v) ? v.join(',') : typeof v === 'string' ? v : undefined;
    // An empty form field means "no filter" (the form sends every field).
    if (s !== undefined && s.trim() !== '') out[name] = s.trim();
  }
  return resolveRange(out, source);
}

/** The interval select's choice for "the dates of the From and To fields". */
export const CUSTOM_INTERVAL = 'custom';

/**
 * One range from a form that sends both the interval select and the date fields. The form also
 * sends the dates it was drawn with (`shownStart`, `shownEnd`): dates changed since → the dates;
 * the same dates with a preset chosen → the preset (the select was changed); "Custom dates" →
 * the dates. A link (no `shown…`) with both keeps the API's rule: a start overrides the interval.
 * So the select never shows a preset while the page shows custom dates.
 */
export function resolveRange(params: PageParams, source: Record<string, unknown>): PageParams {
  const out = { ...params };
  if (out.interval === CUSTOM_INTERVAL) {
    delete out.interval;
    return out;
  }
  if (!out.interval || (!out.start && !out.end)) return out;
  const shown = (v: unknown) => (typeof v === 'string' ? v.trim() : undefined);
  const sameDates = shown(source.shownStart) === (out.start ?? '') && shown(source.shownEnd) === (out.end ?? '');
  if (sameDates) {
    delete out.start;
    delete out.end;
  } else {
    delete out.interval;
  }
  return out;
}

/** The API query for these parameters (validated by the API's schema: 422 when invalid). */
export function analyticsQueryOf(params: PageParams, groupBy: GroupBy): AnalyticsQuery {
  return parseInput(AnalyticsQuery, { ...params, event: 'composite', groupBy });
}

/** `?a=b&…` for these parameters ('' when none). */
export function queryString(params: PageParams): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) q.set(k, v);
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** The parameters with `filter` set to `value` (a click on a card's row). */
export function withFilter(params: PageParams, filter: FilterParam, value: string): PageParams {
  return { ...params, [filter]: value };
}

/** The parameters without `filter` (the ✕ of an active filter). */
export function withoutFilter(params: PageParams, filter: FilterParam): PageParams {
  const out = { ...params };
  delete out[filter];
  return out;
}
