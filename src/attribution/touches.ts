/**
 * Event rows → the touches and sales the models read, pure. A journey read from the event log
 * has its clicks; analytics read only the conversions (leads and sales), which carry the link
 * and click id of the click they were attributed to, so a touch there is a click id, timed by the
 * time Waymark's click ids spell (or, for an id from elsewhere, its first conversion).
 *
 * @example
 * const { touches, sales } = journeyTouches(rows);
 * revenueByLink('linear', sales, touches);
 */
import type { EventRow } from '../events/index.js';
import { clickIdTime } from '../visitors/click-id.js';
import { compareTouches, type SaleTouch, type Touch } from './models.js';

type Row = Pick<EventRow, 'kind' | 'timestamp' | 'link_id' | 'click_id' | 'amount'>;

function saleOf(r: Row): SaleTouch {
  return { time: Number(r.timestamp), amount: Number(r.amount ?? 0), linkId: r.link_id, clickId: r.click_id || null };
}

/** A journey's rows (clicks, leads, sales of one customer) → its clicks as touches, and its sales. */
export function journeyTouches(rows: readonly Row[]): { touches: Touch[]; sales: SaleTouch[] } {
  const touches: Touch[] = [];
  const sales: SaleTouch[] = [];
  for (const r of rows) {
    if (r.kind === 'click') touches.push({ time: Number(r.timestamp), linkId: r.link_id, clickId: r.click_id || `click:${touches.length}` });
    else if (r.kind === 'sale') sales.push(saleOf(r));
  }
  return { touches: touches.sort(compareTouches), sales };
}

/**
 * The time of the click a conversion names: the click id's time when it is Waymark's (16
 * characters, not after the conversion, within a year before it), else the conversion's own.
 */
export function clickTimeOf(clickId: string, conversionTime: number): number {
  if (clickId.length !== 16) return conversionTime;
  const t = clickIdTime(clickId);
  if (!Number.isFinite(t) || t > conversionTime || t < conversionTime - 366 * 86_400_000) return conversionTime;
  return t;
}

/**
 * One customer's conversions → touches (one per click id, at the earliest time known for it)
 * and sales. The rows need not be in order: touches come in `compareTouches` order (time, then
 * click id), whatever order the store read them in.
 */
export function conversionTouches(rows: readonly Row[]): { touches: Touch[]; sales: SaleTouch[] } {
  const byClick = new Map<string, Touch>();
  const sales: SaleTouch[] = [];
  for (const r of rows) {
    const time = Number(r.timestamp);
    if (r.kind === 'sale') sales.push(saleOf(r));
    if (!r.click_id) continue;
    const at = clickTimeOf(r.click_id, time);
    const known = byClick.get(r.click_id);
    const touch = { time: at, linkId: r.link_id, clickId: r.click_id };
    if (!known || compareTouches(touch, known) < 0) byClick.set(r.click_id, touch);
  }
  return { touches: [...byClick.values()].sort(compareTouches), sales };
}
