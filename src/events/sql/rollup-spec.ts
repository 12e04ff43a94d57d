/**
 * What the rollups hold, shared by the writer (which maintains them) and the planner (which
 * decides whether a query can be answered from them).
 *
 * Two tables (migration 0002):
 * - `analytics_hourly`: per workspace and UTC hour, the four metrics. Serves `count` and
 *   `timeseries` without filters, in any zone with whole-hour offsets.
 * - `analytics_daily`: per workspace, UTC day, "dimension" and key tuple, the four metrics.
 *   A dimension is a small tuple of event columns; a query can use it when its grouping and
 *   every filter are columns of the tuple. Tuples keep to columns that vary together or have few
 *   values, so a busy workspace's day holds hundreds of rows per tuple, not thousands
 *   (one row per link and day for `link`; per country × device × trigger for `country`).
 *
 * Rows are per UTC day rather than per hour × link: at 10k clicks a day an hourly × link × value
 * table holds nearly one row per click and saves nothing over scanning events.
 */
import type { StoredEvent } from '../event-store.js';

export type { DimColumn } from '../event-store.js';
import type { DimColumn } from '../event-store.js';

export const NULLABLE_COLUMNS: ReadonlySet<DimColumn> = new Set(['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content']);

export type RollupDim = 'country' | 'ua' | 'ref' | 'city' | 'link';

/** Columns of each tuple, stored as k1…kN in that order. */
export const ROLLUP_DIMS: Readonly<Record<RollupDim, readonly DimColumn[]>> = {
  country: ['continent', 'country', 'device', 'trigger'],
  ua: ['device', 'browser', 'os', 'trigger'],
  ref: ['referer', 'referer_url', 'device', 'trigger'],
  city: ['continent', 'country', 'region', 'city'],
  link: ['link_id', 'domain', 'url', 'utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'],
};

/** Smallest tuples first: the planner takes the first one that covers a query. */
export const ROLLUP_PREFERENCE: readonly RollupDim[] = ['country', 'ua', 'ref', 'city', 'link'];

export const ROLLUP_KEY_COLUMNS = ['k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7', 'k8'] as const;
export type RollupKeyColumn = (typeof ROLLUP_KEY_COLUMNS)[number];

/** The k-column that holds `column` in `dim`, or undefined when the tuple lacks it. */
export function keyColumnOf(dim: RollupDim, column: DimColumn): RollupKeyColumn | undefined {
  const i = ROLLUP_DIMS[dim].indexOf(column);
  return i < 0 ? undefined : ROLLUP_KEY_COLUMNS[i];
}

/** `https://x.com/a?b=1` → `https://x.com/a`: referer URLs are grouped without their query (behaviour.md §7.3). */
export function stripQuery(url: string): string {
  const i = url.indexOf('?');
  return i < 0 ? url : url.slice(0, i);
}

/** The value a tuple stores for an event column: null becomes '', referer URLs lose their query. */
export function rollupValue(event: StoredEvent, column: DimColumn): string {
  const v = (event as unknown as Record<string, string | null | undefined>)[column];
  if (v === null || v === undefined) return '';
  return column === 'referer_url' ? stripQuery(v) : v;
}

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
