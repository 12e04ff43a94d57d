/**
 * Credits written with the sale (docs/decisions/0015): the one function every road that stores a
 * sale calls in the sale's transaction (`/track/sale`, the integrations' recorder and refunds, the
 * API migration's import), and the backfill and recomputations call for sales already stored.
 * For each sale it reads the customer's leads and sales within the default lookback
 * (`ConversionStore.customerJourney`, the same journey the read-time path reads), credits the sale
 * under every model but `last_click` (`allModelCredits`) and replaces the sale's credit rows, each
 * touch carrying the dimensions of its click as the customer's lead or sale on it copied them.
 *
 * @example
 * await db.transaction().execute(async (trx) => {
 *   await appendWithCredits(conversions, [lead, sale], trx); // the events, then the sale's credits
 * });
 */
import type { ConversionStore, EventRow, StoredCredit, StoredEvent } from '../events/index.js';
import { allModelCredits } from './sale-credits.js';
import { conversionTouches } from './touches.js';
import { DEFAULT_ATTRIBUTION } from './models.js';

/** The lookback credits are stored for: a query with its own `lookbackDays` reads the raw path. */
export const STORED_LOOKBACK_MS = DEFAULT_ATTRIBUTION.lookbackMs;

type Sale = Pick<StoredEvent, 'workspace_id' | 'timestamp' | 'id' | 'kind' | 'click_id' | 'link_id' | 'customer_id' | 'amount'>;
type Dims = Pick<EventRow, 'link_id' | 'domain' | 'url' | 'utm_source' | 'utm_medium' | 'utm_campaign' | 'utm_term' | 'utm_content' | 'continent' | 'country' | 'region' | 'city' | 'device' | 'browser' | 'os' | 'trigger' | 'referer' | 'referer_url'>;
type JourneyRow = Pick<EventRow, 'kind' | 'timestamp' | 'click_id' | 'link_id' | 'amount'> & Partial<Dims>;

/**
 * One sale's credit rows over its customer's journey (pure): the journey's rows (leads and sales
 * of the customer within the lookback, the sale among them or not) give the touches and each
 * touch's dimensions (the first row naming its click id; the sale's own where none does).
 */
export function creditRowsOf(sale: Sale & Partial<Dims>, journey: readonly JourneyRow[]): StoredCredit[] {
  const { touches } = conversionTouches(journey);
  const dimsOf = new Map<string, Partial<Dims>>();
  for (const r of journey) if (r.click_id && !dimsOf.has(r.click_id)) dimsOf.set(r.click_id, r);
  const amount = Number(sale.amount ?? 0);
  const own = { timestamp: Number(sale.timestamp), amount, link_id: sale.link_id, click_id: sale.click_id };
  return allModelCredits(own, touches, STORED_LOOKBACK_MS).map((c) => {
    const d = dimsOf.get(c.clickId) ?? sale;
    return {
      workspace_id: sale.workspace_id,
      model: c.model,
      timestamp: own.timestamp,
      sale_id: sale.id,
      click_id: c.clickId,
      customer_id: sale.customer_id ?? null,
      sale_link_id: sale.link_id,
      link_id: c.linkId,
      domain: d.domain ?? null,
      url: d.url ?? null,
      utm_source: d.utm_source ?? null,
      utm_medium: d.utm_medium ?? null,
      utm_campaign: d.utm_campaign ?? null,
      utm_term: d.utm_term ?? null,
      utm_content: d.utm_content ?? null,
      continent: d.continent ?? null,
      country: d.country ?? null,
      region: d.region ?? null,
      city: d.city ?? null,
      device: d.device ?? null,
      browser: d.browser ?? null,
      os: d.os ?? null,
      trigger: d.trigger ?? null,
      referer: d.referer ?? null,
      referer_url: d.referer_url ?? null,
      share: c.share,
      cents: c.cents,
    };
  });
}

type CreditStore<Tx> = Pick<ConversionStore<Tx>, 'customerJourney' | 'replaceCredits'>;

/**
 * Writes (or rewrites) the credits of these sales in `tx`, each from its customer's journey as
 * `tx` sees it (the sale itself appended before). A sale without a customer is credited to its
 * own click alone, as the read-time path does.
 */
export async function writeCredits<Tx>(conversions: CreditStore<Tx>, sales: readonly (Sale & Partial<Dims>)[], tx: Tx, options: { fresh?: boolean } = {}): Promise<number> {
  const rows: StoredCredit[] = [];
  for (const sale of sales) {
    if (sale.kind !== 'sale') continue;
    const journey = sale.customer_id
      ? await conversions.customerJourney(sale.workspace_id, sale.customer_id, Number(sale.timestamp) - STORED_LOOKBACK_MS, tx)
      : [];
    rows.push(...creditRowsOf(sale, journey));
  }
  const ids = sales.filter((s) => s.kind === 'sale').map((s) => s.id);
  // Sales appended in `tx` have no rows to replace.
  if (ids.length) await conversions.replaceCredits(options.fresh ? [] : ids, rows, tx);
  return rows.length;
}

/** Appends leads and sales in `tx` and writes the sales' credits in it: what every road calls. */
export async function appendWithCredits<Tx>(conversions: Pick<ConversionStore<Tx>, 'append' | 'customerJourney' | 'replaceCredits'>, events: readonly StoredEvent[], tx: Tx): Promise<void> {
  await conversions.append(events, tx);
  await writeCredits(conversions, events, tx, { fresh: true });
}
