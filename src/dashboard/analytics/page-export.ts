/**
 * The analytics page as one CSV table, pure: the funnel's totals, each point of the time series,
 * then every row of every breakdown card (all the API answered, in the page's sort), each with its
 * revenue and rates. One long table (`section`, `value`, `label`, figures) rather than one file per
 * card, so a spreadsheet's filter on `section` gives any card.
 *
 * @example
 * pageExportTable(await loadAnalytics(…)).rows[0]; // { section: 'total', clicks: 20498, … }
 */
import type { ApiMetrics } from '../../analytics/shape.js';
import type { AnalyticsData } from './load.js';
import { ratesOf } from './rates.js';
import { rowLabel } from '../pages/analytics-parts.js';

export const PAGE_EXPORT_COLUMNS = ['section', 'value', 'label', 'clicks', 'leads', 'sales', 'saleAmount', 'leadRate', 'saleRate', 'revenuePerClick'];

function figures(m: ApiMetrics): Record<string, unknown> {
  const r = ratesOf(m);
  const round = (n: number) => Math.round(n * 1e6) / 1e6;
  return { clicks: m.clicks, leads: m.leads, sales: m.sales, saleAmount: m.saleAmount, leadRate: round(r.leadRate), saleRate: round(r.saleRate), revenuePerClick: round(r.revenuePerClick) };
}

export function pageExportTable(data: AnalyticsData): { columns: string[]; rows: Record<string, unknown>[] } {
  const rows: Record<string, unknown>[] = [{ section: 'total', value: '', label: 'All', ...figures(data.count) }];
  for (const p of data.series) rows.push({ section: 'timeseries', value: p.start, label: p.start, ...figures(p) });
  for (const card of data.cards) {
    for (const row of card.all) rows.push({ section: card.spec.groupBy, value: String(row[card.spec.field] ?? ''), label: rowLabel(card, row), ...figures(row) });
  }
  return { columns: PAGE_EXPORT_COLUMNS, rows };
}
