/**
 * Analytics under an attribution model (`attribution=` other than `last_click`): the sales the
 * query selects, their revenue shared among the clicks of each customer's journey within the
 * lookback window (attribution/models.ts), grouped by the query's columns as those clicks
 * carry them. Clicks and leads stay as counted; only `sales` and `saleAmount` move. Every
 * sale's shares add up to it, so the groups add up to the total revenue of the selected sales.
 *
 * The sales and the journeys come from one read of the event log (`EventLog.buyerConversions`):
 * the selected sales, and every lead and sale of their customers since the lookback's start
 * (leads and sales carry their click's link, click id and dimensions), only the columns needed.
 *
 * With the default lookback the credits written with each sale answer instead (`creditedRows`,
 * docs/decisions/0015): one aggregate of the stored rows, the same figures to the cent.
 *
 * @example
 * const rows = await attributedRows(events, spec, range, merged, { model: 'linear', lookbackMs });
 * const same = await creditedRows(events, spec, range, merged, 'linear'); // lookback 90 days
 */
import type { AggregateSpec, ConversionTouchRow, EventLog, MergedRow } from '../events/index.js';
import type { AttributionModel } from '../attribution/models.js';
import { saleCredits } from '../attribution/sale-credits.js';
import { conversionTouches } from '../attribution/touches.js';

export interface AttributionChoice {
  model: AttributionModel;
  lookbackMs: number;
}

type Range = { from: number; to: number };

const keyOf = (g: readonly string[]) => g.join('\u0000');

/** Whether `model` changes the answer: last click is the stored sales; totals and queries without sales do not depend on it. */
const modelChangesAnswer = (spec: AggregateSpec, model: AttributionModel): boolean =>
  model !== 'last_click' && spec.group.length > 0 && spec.kinds.includes('sale');

/**
 * `merged` (the aggregate of the query) with `sales` and `sale_amount` replaced by the model's
 * credit per group. `spec.group` names the columns; a grouping with none (count, timeseries) is
 * returned as it is: the totals do not depend on the model.
 */
export async function attributedRows(
  events: Pick<EventLog, 'buyerConversions'>,
  spec: AggregateSpec,
  range: Range,
  merged: readonly MergedRow[],
  choice: AttributionChoice,
): Promise<MergedRow[]> {
  if (!modelChangesAnswer(spec, choice.model)) return [...merged];
  const { sales, journeys } = await events.buyerConversions(spec, range, range.from - choice.lookbackMs);
  const byCustomer = new Map<string, ConversionTouchRow[]>();
  for (const r of journeys) {
    const list = byCustomer.get(r.customer_id!);
    if (list) list.push(r);
    else byCustomer.set(r.customer_id!, [r]);
  }

  const credit: Credit = new Map();
  const add = (g: string[], share: number, cents: number) => {
    const k = keyOf(g);
    const acc = credit.get(k) ?? { g, sales: 0, cents: 0 };
    acc.sales += share;
    acc.cents += cents;
    credit.set(k, acc);
  };
  const journeyCache = new Map<string, { touches: ReturnType<typeof conversionTouches>['touches']; rows: Map<string, ConversionTouchRow> }>();
  for (const sale of sales) {
    const rows = sale.customer_id ? byCustomer.get(sale.customer_id) : undefined;
    if (!rows) {
      // A refund (a negative sale) moves revenue, not the count of sales (docs/decisions/0006).
      add(sale.g, sale.amount >= 0 ? 1 : 0, sale.amount);
      continue;
    }
    let journey = journeyCache.get(sale.customer_id!);
    if (!journey) {
      const byClick = new Map<string, ConversionTouchRow>();
      for (const r of rows) if (r.click_id && !byClick.has(r.click_id)) byClick.set(r.click_id, r);
      journey = { touches: conversionTouches(rows).touches, rows: byClick };
      journeyCache.set(sale.customer_id!, journey);
    }
    for (const c of saleCredits(choice.model, sale, journey.touches, choice.lookbackMs)) {
      const row = journey.rows.get(c.clickId) ?? sale;
      add(row.g, c.share, c.cents);
    }
  }

  return withCredit(merged, credit);
}

/**
 * The credit rows stored for `model` (default lookback) that `withStoredCredits` puts into the
 * aggregate, or null when the model does not change the answer: a read of its own, so a caller
 * can run it beside the aggregate's.
 */
export function storedCredits(events: Pick<EventLog, 'creditAggregate'>, spec: AggregateSpec, range: Range, model: AttributionModel): Promise<MergedRow[]> | null {
  return modelChangesAnswer(spec, model) ? events.creditAggregate(spec, range, model) : null;
}

/** `merged` with `sales` and `sale_amount` from `storedCredits`' rows (null: as it is). */
export function withStoredCredits(merged: readonly MergedRow[], rows: readonly MergedRow[] | null): MergedRow[] {
  if (!rows) return [...merged];
  const credit: Credit = new Map();
  for (const r of rows) credit.set(keyOf(r.g), { g: r.g, sales: Number(r.sales), cents: Number(r.sale_amount) });
  return withCredit(merged, credit);
}

/** `merged` with `sales` and `sale_amount` from the credits stored for `model` (default lookback). */
export async function creditedRows(
  events: Pick<EventLog, 'creditAggregate'>,
  spec: AggregateSpec,
  range: Range,
  merged: readonly MergedRow[],
  model: AttributionModel,
): Promise<MergedRow[]> {
  return withStoredCredits(merged, await storedCredits(events, spec, range, model));
}

type Credit = Map<string, { g: string[]; sales: number; cents: number }>;

/** The aggregate's rows with the credit per group; groups only credits reach are added. */
function withCredit(merged: readonly MergedRow[], credit: Credit): MergedRow[] {
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
