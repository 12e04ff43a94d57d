/**
 * The attribution read as it was before `EventLog.buyerConversions` (commit c30e683's
 * src/analytics/attributed.ts): two keyset walks of the event list as full rows, sales in the
 * range, then the workspace's leads and sales from the lookback's start filtered to the buyers
 * in memory. Kept only so that bench/attribution.ts times both reads side by side on one data set.
 */
import { buildScope, type AggregateSpec, type EventRow, type EventLog, type MergedRow } from '../../src/events/index.js';
import { creditSale, type AttributionModel, DEFAULT_ATTRIBUTION } from '../../src/attribution/models.js';
import { conversionTouches } from '../../src/attribution/touches.js';

/** Rows read per page of the event list. */
const PAGE = 10_000;

interface AttributionChoice {
  model: AttributionModel;
  lookbackMs: number;
}

type Range = { from: number; to: number };

async function walk(events: Pick<EventLog, 'page'>, spec: AggregateSpec, range: Range, each: (r: EventRow) => void): Promise<void> {
  let after: { timestamp: number; id: string } | undefined;
  for (;;) {
    const rows = await events.page(spec, range, { order: 'asc', limit: PAGE, offset: 0, after });
    for (const r of rows) each(r);
    if (rows.length < PAGE) return;
    const last = rows[rows.length - 1]!;
    after = { timestamp: Number(last.timestamp), id: last.id };
  }
}

const keyOf = (g: readonly string[]) => g.join('\u0000');

/**
 * `merged` (the aggregate of the query) with `sales` and `sale_amount` replaced by the model's
 * credit per group. `spec.group` names the columns; a grouping with none (count, timeseries) is
 * returned as it is: the totals do not depend on the model.
 */
export async function walkedAttributedRows(
  events: Pick<EventLog, 'page'>,
  spec: AggregateSpec,
  range: Range,
  merged: readonly MergedRow[],
  choice: AttributionChoice,
): Promise<MergedRow[]> {
  if (choice.model === 'last_click' || spec.group.length === 0 || !spec.kinds.includes('sale')) return [...merged];
  const cols = spec.group;
  const groupOf = (r: EventRow) => cols.map((c) => String(r[c] ?? ''));

  const sales: EventRow[] = [];
  await walk(events, { ...spec, kinds: ['sale'], timeseries: false }, range, (r) => sales.push(r));
  const buyers = new Set(sales.map((s) => s.customer_id).filter((c): c is string => !!c));

  // Every lead and sale of those customers since the lookback's start: their touches.
  const byCustomer = new Map<string, EventRow[]>();
  if (buyers.size) {
    const workspace = buildScope({ workspaceId: spec.workspaceId, links: {}, named: false, everyFolder: true });
    const only = buyers.size === 1 ? [...buyers][0] : undefined;
    const journeys: AggregateSpec = { workspaceId: spec.workspaceId, kinds: ['lead', 'sale'], group: [], timeseries: false, dims: [], conversions: only ? { customerId: only } : {}, scope: workspace };
    await walk(events, journeys, { from: range.from - choice.lookbackMs, to: range.to }, (r) => {
      if (!r.customer_id || !buyers.has(r.customer_id)) return;
      const list = byCustomer.get(r.customer_id);
      if (list) list.push(r);
      else byCustomer.set(r.customer_id, [r]);
    });
  }

  const credit = new Map<string, { g: string[]; sales: number; cents: number }>();
  const add = (g: string[], share: number, cents: number) => {
    const k = keyOf(g);
    const acc = credit.get(k) ?? { g, sales: 0, cents: 0 };
    acc.sales += share;
    acc.cents += cents;
    credit.set(k, acc);
  };
  const journeyCache = new Map<string, { touches: ReturnType<typeof conversionTouches>['touches']; rows: Map<string, EventRow> }>();
  const options = { ...DEFAULT_ATTRIBUTION, lookbackMs: choice.lookbackMs };
  for (const sale of sales) {
    const own = { time: Number(sale.timestamp), amount: Number(sale.amount ?? 0), linkId: sale.link_id, clickId: sale.click_id || null };
    // A refund (a negative sale) moves revenue, not the count of sales (docs/decisions/0006).
    const counted = own.amount >= 0 ? 1 : 0;
    const rows = sale.customer_id ? byCustomer.get(sale.customer_id) : undefined;
    if (!rows) {
      add(groupOf(sale), counted, own.amount);
      continue;
    }
    let journey = journeyCache.get(sale.customer_id!);
    if (!journey) {
      const byClick = new Map<string, EventRow>();
      for (const r of rows) if (r.click_id && !byClick.has(r.click_id)) byClick.set(r.click_id, r);
      journey = { touches: conversionTouches(rows).touches, rows: byClick };
      journeyCache.set(sale.customer_id!, journey);
    }
    for (const c of creditSale(choice.model, own, journey.touches, options)) {
      if (c.share === 0 && c.cents === 0) continue;
      const row = journey.rows.get(c.touch.clickId) ?? sale;
      add(groupOf(row), c.share * counted, c.cents);
    }
  }

  const out: MergedRow[] = [];
  for (const m of merged) {
    const c = credit.get(keyOf(m.g));
    credit.delete(keyOf(m.g));
    out.push({ ...m, sales: c ? round(c.sales) : 0, sale_amount: c ? c.cents : 0 });
  }
  for (const c of credit.values()) out.push({ g: c.g, clicks: 0, leads: 0, sales: round(c.sales), sale_amount: c.cents });
  return out;
}

/** Shares of sales to 4 decimals. */
function round(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}
