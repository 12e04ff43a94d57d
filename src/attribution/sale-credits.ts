/**
 * One sale credited over its customer's journey, pure: the step both the read-time path
 * (analytics/attributed.ts) and credits written with the sale share, so the two give the same
 * answer to the cent. A refund (a negative sale) moves revenue, not the count of sales
 * (docs/decisions/0006); shares that credit nothing are left out.
 *
 * @example
 * const { touches } = conversionTouches(customerRows);
 * saleCredits('linear', sale, touches, 90 * DAY); // [{ clickId, linkId, share: 0.5, cents: 500 }, …]
 * allModelCredits(sale, touches, 90 * DAY);      // the same for every model but last_click
 */
import type { ConversionTouchRow } from '../events/index.js';
import { ATTRIBUTION_MODELS, creditSale, DEFAULT_ATTRIBUTION, type AttributionModel, type Touch } from './models.js';

/** One touch's part of one sale: the click it names, the sales it counts, the cents it gets. */
export interface SaleCredit {
  clickId: string;
  linkId: string;
  share: number;
  cents: number;
}

/** A model's credit rows for one sale, as a store would keep them. */
export interface ModelCredit extends SaleCredit {
  model: AttributionModel;
}

type Sale = Pick<ConversionTouchRow, 'timestamp' | 'amount' | 'link_id' | 'click_id'>;

/** The models whose credit differs from the sale as tracked: the ones worth precomputing. */
export const CREDITED_MODELS = ATTRIBUTION_MODELS.filter((m) => m !== 'last_click');

/** `sale` credited under `model` over `touches` (the customer's, `conversionTouches`). */
export function saleCredits(model: AttributionModel, sale: Sale, touches: readonly Touch[], lookbackMs: number): SaleCredit[] {
  const own = { time: sale.timestamp, amount: sale.amount, linkId: sale.link_id, clickId: sale.click_id || null };
  const counted = own.amount >= 0 ? 1 : 0;
  const out: SaleCredit[] = [];
  for (const c of creditSale(model, own, touches, { ...DEFAULT_ATTRIBUTION, lookbackMs })) {
    if (c.share === 0 && c.cents === 0) continue;
    out.push({ clickId: c.touch.clickId, linkId: c.touch.linkId, share: c.share * counted, cents: c.cents });
  }
  return out;
}

/** Every precomputed model's credit for one sale. */
export function allModelCredits(sale: Sale, touches: readonly Touch[], lookbackMs: number): ModelCredit[] {
  return CREDITED_MODELS.flatMap((model) => saleCredits(model, sale, touches, lookbackMs).map((c) => ({ model, ...c })));
}
