/**
 * The conversion figures every breakdown row and the funnel show, and the order a card's rows are
 * sorted in, pure. Rates are derived from the API's four metrics (never read from elsewhere), so
 * a row's rates always agree with its clicks, leads, sales and revenue.
 *
 * @example
 * ratesOf({ clicks: 200, leads: 10, sales: 2, saleAmount: 9900 });
 * // { leadRate: 0.05, saleRate: 0.2, revenuePerClick: 49.5 }
 * sortRows(rows, sortOf('saleAmount'));   // highest revenue first, ties by clicks
 */
import type { ApiMetrics } from '../../analytics/shape.js';

export interface Rates {
  /** Leads per click (0 when there are no clicks). */
  leadRate: number;
  /** Sales per lead (0 when there are no leads). */
  saleRate: number;
  /** Revenue per click, in cents (0 when there are no clicks). */
  revenuePerClick: number;
}

export function ratesOf(m: ApiMetrics): Rates {
  return {
    leadRate: m.clicks ? m.leads / m.clicks : 0,
    saleRate: m.leads ? m.sales / m.leads : 0,
    revenuePerClick: m.clicks ? m.saleAmount / m.clicks : 0,
  };
}

/** The columns a card can be sorted by, in the order a card shows them, with their headings. */
export const SORT_KEYS = [
  { key: 'clicks', label: 'Clicks' },
  { key: 'leads', label: 'Leads' },
  { key: 'sales', label: 'Sales' },
  { key: 'saleAmount', label: 'Revenue' },
  { key: 'leadRate', label: 'Click → lead' },
  { key: 'saleRate', label: 'Lead → sale' },
] as const;
export type SortKey = (typeof SORT_KEYS)[number]['key'];

/** `?sort=` → a known key; anything else is the API's order (clicks). */
export function sortOf(value: unknown): SortKey {
  return SORT_KEYS.some((s) => s.key === value) ? (value as SortKey) : 'clicks';
}

function valueOf(m: ApiMetrics, key: SortKey): number {
  if (key === 'leadRate' || key === 'saleRate') return ratesOf(m)[key];
  return m[key];
}

/**
 * The rows, highest `key` first; ties keep the API's order (clicks, descending), so sorting by
 * clicks is the API's order unchanged. A new array; the input is not touched.
 */
export function sortRows<T extends ApiMetrics>(rows: readonly T[], key: SortKey): T[] {
  if (key === 'clicks') return [...rows];
  return rows
    .map((row, i) => ({ row, i, v: valueOf(row, key) }))
    .sort((a, b) => b.v - a.v || a.i - b.i)
    .map((x) => x.row);
}

const PERCENT = new Intl.NumberFormat('en-US', { style: 'percent', minimumFractionDigits: 1, maximumFractionDigits: 1 });

/** A rate as the page prints it: "12.5%"; "–" when its base is zero (no clicks, no leads). */
export function formatRate(rate: number, base: number): string {
  return base ? PERCENT.format(rate) : '–';
}
