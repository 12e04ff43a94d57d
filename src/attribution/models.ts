/**
 * Attribution models, pure: how a sale's revenue is shared among the clicks (touches) of the
 * customer's journey that came before it, within the lookback window.
 *
 * - `last_click`: the click the sale was attributed to when it was tracked (today's figures).
 * - `first_click`: the earliest touch in the window.
 * - `linear`: equal shares.
 * - `time_decay`: shares halving every `halfLifeMs` (7 days) before the sale.
 * - `position_based`: 40 % first, 40 % last, 20 % shared by the ones between (50/50 for two).
 *
 * Revenue is shared in whole cents by largest remainder, so the shares of a sale add up to its
 * amount exactly, and the revenue by link under any model adds up to the total.
 *
 * @example
 * shares('position_based', [t0, t1, t2, t3], sale); // [0.4, 0.1, 0.1, 0.4]
 * splitCents(1000, [1, 1, 1]); // [334, 333, 333]
 */

export const ATTRIBUTION_MODELS = ['last_click', 'first_click', 'linear', 'time_decay', 'position_based'] as const;
export type AttributionModel = (typeof ATTRIBUTION_MODELS)[number];

const DAY_MS = 86_400_000;

export interface AttributionOptions {
  /** Touches older than this before the sale get nothing (the published cookie's 90 days). */
  lookbackMs: number;
  /** Time decay: a touch this much older than another gets half its weight. */
  halfLifeMs: number;
}

export const DEFAULT_ATTRIBUTION: AttributionOptions = { lookbackMs: 90 * DAY_MS, halfLifeMs: 7 * DAY_MS };

/** One click of a journey: when, which link, and the click id that joins it to conversions. */
export interface Touch {
  time: number;
  linkId: string;
  clickId: string;
}

/** A sale of a journey: when, how much (cents), and the click it was attributed to. */
export interface SaleTouch {
  time: number;
  amount: number;
  linkId: string;
  clickId: string | null;
}

/** One share of one sale: a touch, its fraction of the sale, its cents. */
export interface Credit {
  touch: Touch;
  share: number;
  cents: number;
}

/**
 * Weights (summing to 1) of touches in time order, for a sale at `saleTime`. Callers pass the
 * touches already in the window; an empty list has no weights.
 */
export function shares(model: AttributionModel, times: readonly number[], saleTime: number, halfLifeMs = DEFAULT_ATTRIBUTION.halfLifeMs): number[] {
  const n = times.length;
  if (n === 0) return [];
  if (n === 1) return [1];
  switch (model) {
    case 'last_click':
      return times.map((_, i) => (i === n - 1 ? 1 : 0));
    case 'first_click':
      return times.map((_, i) => (i === 0 ? 1 : 0));
    case 'linear':
      return times.map(() => 1 / n);
    case 'time_decay': {
      const raw = times.map((t) => Math.pow(2, -Math.max(0, saleTime - t) / halfLifeMs));
      const sum = raw.reduce((s, w) => s + w, 0);
      return raw.map((w) => w / sum);
    }
    case 'position_based': {
      if (n === 2) return [0.5, 0.5];
      const middle = 0.2 / (n - 2);
      return times.map((_, i) => (i === 0 || i === n - 1 ? 0.4 : middle));
    }
  }
}

/** `amount` cents split by `weights` in whole cents (largest remainder; ties to the earlier touch). */
export function splitCents(amount: number, weights: readonly number[]): number[] {
  if (!weights.length) return [];
  const total = Math.round(amount);
  const exact = weights.map((w) => w * total);
  const out = exact.map((x) => Math.floor(x));
  let left = total - out.reduce((s, c) => s + c, 0);
  const order = exact.map((x, i) => ({ i, r: x - Math.floor(x) })).sort((a, b) => b.r - a.r || a.i - b.i);
  // A negative amount (a refund) floors away from zero: hand the remainder back the same way.
  for (let k = 0; left !== 0 && k < order.length * 2; k++) {
    const idx = order[k % order.length]!.i;
    const step = left > 0 ? 1 : -1;
    out[idx]! += step;
    left -= step;
  }
  return out;
}

/**
 * The order of a journey's touches: by time, then (touches of the same millisecond) by click id,
 * then link id, so that no model depends on the order a store returned the rows in.
 */
export function compareTouches(a: Touch, b: Touch): number {
  return a.time - b.time || (a.clickId < b.clickId ? -1 : a.clickId > b.clickId ? 1 : 0) || (a.linkId < b.linkId ? -1 : a.linkId > b.linkId ? 1 : 0);
}

/**
 * The touches that share a sale: those at or before it and within the lookback window, in
 * `compareTouches` order, one per click id (its earliest), and always the sale's own click (a
 * click older than the window, or one the journey lacks, still carries the sale alone rather than
 * leaving it unattributed).
 */
export function touchesFor(sale: SaleTouch, journey: readonly Touch[], o: AttributionOptions = DEFAULT_ATTRIBUTION): Touch[] {
  const seen = new Set<string>();
  const out: Touch[] = [];
  for (const t of [...journey].sort(compareTouches)) {
    if (t.time > sale.time || t.time < sale.time - o.lookbackMs || seen.has(t.clickId)) continue;
    seen.add(t.clickId);
    out.push(t);
  }
  if (!out.length) out.push({ time: sale.time, linkId: sale.linkId, clickId: sale.clickId ?? '' });
  return out;
}

/** How one sale's revenue is credited under `model`. `last_click` is the sale's own link, as tracked. */
export function creditSale(model: AttributionModel, sale: SaleTouch, journey: readonly Touch[], o: AttributionOptions = DEFAULT_ATTRIBUTION): Credit[] {
  if (model === 'last_click') return [{ touch: { time: sale.time, linkId: sale.linkId, clickId: sale.clickId ?? '' }, share: 1, cents: Math.round(sale.amount) }];
  const touches = touchesFor(sale, journey, o);
  const w = shares(model, touches.map((t) => t.time), sale.time, o.halfLifeMs);
  const cents = splitCents(sale.amount, w);
  return touches.map((touch, i) => ({ touch, share: w[i]!, cents: cents[i]! }));
}

/** Revenue (cents) and sales (fractional) by link for a journey's sales. */
export function revenueByLink(model: AttributionModel, sales: readonly SaleTouch[], journey: readonly Touch[], o: AttributionOptions = DEFAULT_ATTRIBUTION): Map<string, { sales: number; cents: number }> {
  const out = new Map<string, { sales: number; cents: number }>();
  for (const sale of sales) {
    for (const c of creditSale(model, sale, journey, o)) {
      if (c.share === 0 && c.cents === 0) continue;
      const acc = out.get(c.touch.linkId) ?? { sales: 0, cents: 0 };
      acc.sales += c.share;
      acc.cents += c.cents;
      out.set(c.touch.linkId, acc);
    }
  }
  return out;
}
