/**
 * Merged aggregate rows → the published response rows (behaviour.md §7.3), pure: which metrics
 * an `event` reports, which rows are dropped (empty or `Unknown` group values, zero metric), the
 * order (clicks, leads or sale amount, descending) and the 5,000-row cap.
 */
import type { AnalyticsEvent, GroupBy } from './schema.js';
import { stripQuery, type DimColumn, type MergedRow, type Metrics } from '../events/index.js';

export type { MergedRow } from '../events/index.js';

/** The four metrics as the API names them. */
export interface ApiMetrics {
  clicks: number;
  leads: number;
  sales: number;
  saleAmount: number;
}

/** A grouped response row: its key field(s) and the metrics. */
export type GroupedRow = ApiMetrics & Record<string, unknown>;

/** Event columns each grouping reads. Groupings over link attributes read `link_id` and expand. */
export const GROUP_COLUMNS: Record<GroupBy, readonly DimColumn[]> = {
  count: [],
  timeseries: [],
  continents: ['continent'],
  countries: ['country'],
  regions: ['country', 'region'],
  cities: ['country', 'region', 'city'],
  devices: ['device'],
  browsers: ['browser'],
  os: ['os'],
  trigger: ['trigger'],
  triggers: ['trigger'],
  referers: ['referer'],
  referer_urls: ['referer_url'],
  top_folders: ['link_id'],
  top_link_tags: ['link_id'],
  top_domains: ['domain'],
  top_links: ['link_id'],
  top_urls: ['url'],
  top_base_urls: ['url'],
  top_partners: ['link_id'],
  top_groups: [],
  top_partner_tags: [],
  utm_sources: ['utm_source'],
  utm_mediums: ['utm_medium'],
  utm_campaigns: ['utm_campaign'],
  utm_terms: ['utm_term'],
  utm_contents: ['utm_content'],
};

export const MAX_GROUP_ROWS = 5000;
const CONTINENTS = new Set(['AF', 'AN', 'AS', 'EU', 'NA', 'OC', 'SA']);
const TRIGGERS = new Set(['qr', 'link', 'pageview', 'deeplink']);

/** The metrics an `event` reports; the others are present as 0 (behaviour.md §7.3). */
export function reported(event: AnalyticsEvent, m: Metrics): ApiMetrics {
  return {
    clicks: event === 'clicks' || event === 'composite' ? m.clicks : 0,
    leads: event === 'leads' || event === 'composite' ? m.leads : 0,
    sales: event === 'sales' || event === 'composite' ? m.sales : 0,
    saleAmount: event === 'sales' || event === 'composite' ? m.sale_amount : 0,
  };
}

/** Whether a grouped row counts for the event (composite keeps groups that have clicks). */
function hasEvents(event: AnalyticsEvent, m: ApiMetrics): boolean {
  if (event === 'leads') return m.leads > 0;
  if (event === 'sales') return m.sales > 0;
  return m.clicks > 0;
}

function rankOf(event: AnalyticsEvent, m: ApiMetrics): number {
  if (event === 'leads') return m.leads;
  if (event === 'sales') return m.saleAmount;
  return m.clicks;
}

/** Sums rows that share a key (after a key is rewritten, e.g. a URL without its query). */
export function regroup<T extends ApiMetrics>(rows: readonly T[], keyOf: (r: T) => string): T[] {
  const out = new Map<string, T>();
  for (const r of rows) {
    const k = keyOf(r);
    const prev = out.get(k);
    if (!prev) out.set(k, { ...r });
    else {
      prev.clicks += r.clicks;
      prev.leads += r.leads;
      prev.sales += r.sales;
      prev.saleAmount += r.saleAmount;
    }
  }
  return [...out.values()];
}

/**
 * Drops rows without events for `event`, orders them (ties by key, for stable pages) and caps them.
 * Each row's key is made once: made inside the comparison, a column grouping's key (entries,
 * filtered and joined) was ~0.9 ms of a 6 ms request for 199 countries (bench/analytics/README.md).
 */
export function finish<T extends ApiMetrics>(event: AnalyticsEvent, rows: readonly T[], keyOf: (r: T) => string): T[] {
  return rows
    .filter((r) => hasEvents(event, r))
    .map((r) => ({ r, rank: rankOf(event, r), key: keyOf(r) }))
    .sort((a, b) => b.rank - a.rank || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .slice(0, MAX_GROUP_ROWS)
    .map((x) => x.r);
}

const unknown = (v: string) => v === '' || v === 'Unknown';

/** `US-CA` whatever form the region was stored in. */
export function formatRegion(country: string, region: string): string {
  if (unknown(region) || region.startsWith(`${country}-`)) return region;
  return `${country}-${region}`;
}

/**
 * Rows of the groupings whose key is an event column (everything but count, timeseries and the
 * link-attribute groupings, which service.ts expands from `link_id`).
 */
export function shapeColumnGroups(groupBy: GroupBy, event: AnalyticsEvent, merged: Iterable<MergedRow>): GroupedRow[] {
  const rows: GroupedRow[] = [];
  for (const r of merged) {
    const [a = '', b = '', c = ''] = r.g;
    const m = reported(event, r);
    switch (groupBy) {
      case 'continents':
        if (CONTINENTS.has(a)) rows.push({ continent: a, ...m });
        break;
      case 'countries':
        if (!unknown(a)) rows.push({ country: a, region: '*', city: '*', ...m });
        break;
      case 'regions':
        if (!unknown(a) && !unknown(b)) rows.push({ country: a, region: formatRegion(a, b), city: '*', ...m });
        break;
      case 'cities':
        if (!unknown(a) && !unknown(c)) rows.push({ country: a, region: formatRegion(a, b), city: c, ...m });
        break;
      case 'devices':
        if (!unknown(a)) rows.push({ device: a, ...m });
        break;
      case 'browsers':
        if (!unknown(a)) rows.push({ browser: a, ...m });
        break;
      case 'os':
        if (!unknown(a)) rows.push({ os: a, ...m });
        break;
      case 'trigger':
      case 'triggers':
        if (TRIGGERS.has(a)) rows.push({ trigger: a, ...m });
        break;
      case 'referers':
        if (!unknown(a)) rows.push({ referer: a, ...m });
        break;
      case 'referer_urls':
        if (!unknown(a)) rows.push({ refererUrl: stripQuery(a), ...m });
        break;
      case 'top_domains':
        if (!unknown(a)) rows.push({ domain: a, ...m });
        break;
      case 'top_urls':
        if (!unknown(a)) rows.push({ url: a, ...m });
        break;
      case 'top_base_urls':
        if (!unknown(a)) rows.push({ url: stripQuery(a), ...m });
        break;
      case 'utm_sources':
      case 'utm_mediums':
      case 'utm_campaigns':
      case 'utm_terms':
      case 'utm_contents': {
        const name = `utm_${groupBy.slice(4, -1)}`;
        if (!unknown(a)) rows.push({ [name]: a, ...m });
        break;
      }
      default:
        throw new Error(`not a column grouping: ${groupBy}`);
    }
  }
  const keyOf = (r: GroupedRow) =>
    Object.entries(r)
      .filter(([k]) => !['clicks', 'leads', 'sales', 'saleAmount'].includes(k))
      .map(([, v]) => String(v))
      .join('\u0000');
  return finish(event, regroup(rows, keyOf), keyOf);
}
