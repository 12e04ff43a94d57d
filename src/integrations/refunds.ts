/**
 * Refunds. Stripe reports everything refunded of a payment so far, Shopify and Paddle each refund
 * on its own; Waymark records the part not yet recorded as a sale event with a negative amount, attributed like the sale it refunds
 * (same click, link and customer), and takes it off the link's and the customer's `saleAmount`.
 * So `saleAmount` everywhere (links, customers, analytics) is net revenue while `sales` keeps
 * counting sales: a negative sale adds to revenue but not to the count (events/sql/rollup-deltas.ts).
 * The US cents refunded follow the sale's own conversion, not today's rate, so a full refund takes
 * back exactly what the sale added.
 */
import type { EventRow } from '../events/index.js';
import { conversionEvent } from '../events/index.js';
import { newId } from '../ids.js';
import type { TrackDeps } from '../tracking/deps.js';
import { appendWithCredits } from '../attribution/credit-writer.js';

export interface RefundStep {
  /** Newly refunded, in the sale's smallest currency unit and in US cents. */
  original: number;
  usdCents: number;
  /** The provider reported more refunded than the sale's amount; the refund stops at the sale. */
  capped: boolean;
}

/** The part of a cumulative refund total not yet recorded (pure). */
export function refundStep(sale: { usdCents: number; original: number }, before: { original: number; usdCents: number }, refundedTotal: number): RefundStep {
  const capped = refundedTotal > sale.original;
  const total = Math.min(refundedTotal, sale.original);
  const original = Math.max(0, total - before.original);
  // Cumulative rounding: the refunds of one sale sum to its amount exactly when it is fully refunded.
  const usdTotal = sale.original > 0 ? Math.round((sale.usdCents * Math.max(total, before.original)) / sale.original) : 0;
  return { original, usdCents: Math.max(0, usdTotal - before.usdCents), capped };
}

export type RefundResult =
  | { kind: 'recorded'; step: RefundStep; sale: EventRow }
  | { kind: 'nothing-new'; sale: EventRow; capped: boolean }
  | { kind: 'unknown-sale' }
  | { kind: 'other-currency'; sale: EventRow };

/** Records a refund of the first sale stored under one of `invoiceIds`, in one transaction. */
export async function recordRefund(
  deps: TrackDeps,
  input: { workspaceId: string; invoiceIds: readonly string[]; refunded: { total: number } | { increment: number }; currency: string; paymentProcessor: string; reference: string },
): Promise<RefundResult> {
  const { workspaceId } = input;
  const result = await deps.db.transaction().execute(async (trx): Promise<RefundResult> => {
    let sale: EventRow | undefined;
    for (const id of input.invoiceIds) if ((sale = await deps.conversions.saleByInvoice(workspaceId, id, trx))) break;
    if (!sale || Number(sale.amount) < 0) return { kind: 'unknown-sale' };
    if ((sale.currency ?? 'usd').toLowerCase() !== input.currency.toLowerCase()) return { kind: 'other-currency', sale };
    const now = deps.now();
    // Insert-or-touch first: the UPDATE locks the sale's row, so two refunds of one sale queue up.
    await trx.insertInto('sale_refunds')
      .values({ workspace_id: workspaceId, sale_event_id: sale.id, refunded_original: 0, refunded_usd_cents: 0, updated_at: now })
      .onConflict((oc) => oc.columns(['workspace_id', 'sale_event_id']).doUpdateSet({ updated_at: now }))
      .execute();
    const before = await trx.selectFrom('sale_refunds').select(['refunded_original', 'refunded_usd_cents'])
      .where('workspace_id', '=', workspaceId).where('sale_event_id', '=', sale.id).executeTakeFirstOrThrow();
    const original = Number(sale.original_amount ?? sale.amount);
    const refundedTotal = 'total' in input.refunded ? input.refunded.total : Number(before.refunded_original) + input.refunded.increment;
    const step = refundStep({ usdCents: Number(sale.amount), original }, { original: Number(before.refunded_original), usdCents: Number(before.refunded_usd_cents) }, refundedTotal);
    if (step.original === 0 && step.usdCents === 0) return { kind: 'nothing-new', sale, capped: step.capped };
    const row = conversionEvent(sale, {
      kind: 'sale',
      workspace_id: workspaceId,
      timestamp: now,
      id: newId('evt', now),
      customer_id: sale.customer_id,
      event_name: 'Refund',
      amount: -step.usdCents,
      currency: sale.currency,
      original_amount: -step.original,
      payment_processor: input.paymentProcessor,
      invoice_id: null,
      sale_type: sale.sale_type,
      metadata: JSON.stringify({ refundOf: sale.id, invoiceId: sale.invoice_id, reference: input.reference }),
    });
    // A refund's credits: negative cents, zero shares, over the same journey (docs/decisions/0015).
    await appendWithCredits(deps.conversions, [row], trx);
    await deps.counters.addRefund(trx, workspaceId, sale.link_id, step.usdCents);
    if (sale.customer_id) await deps.customers(trx).addRefund(workspaceId, sale.customer_id, step.usdCents, now);
    await trx.updateTable('sale_refunds')
      .set({ refunded_original: Number(before.refunded_original) + step.original, refunded_usd_cents: Number(before.refunded_usd_cents) + step.usdCents, updated_at: now })
      .where('workspace_id', '=', workspaceId).where('sale_event_id', '=', sale.id)
      .execute();
    return { kind: 'recorded', step, sale };
  });
  if (result.kind === 'recorded') await deps.conversions.afterCommit();
  return result;
}
