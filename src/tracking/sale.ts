/**
 * `POST /track/sale`: records a sale for a customer, attributed to one of the customer's leads
 * (the one named by `leadEventName`, else the latest), or, for a customer without leads, directly
 * to a click (recording a lead for it first).
 *
 * Idempotency: a sale with an `invoiceId` is unique per workspace through the `events_invoice`
 * index. A second request with the same invoice id, sequential or concurrent, in this process or
 * another, rolls back on the unique violation and answers with the stored first sale, so counters
 * move once. Counters, customer totals and the event commit in one transaction.
 */
import type { EventRow, StoredEvent } from '../events/index.js';
import { ApiError } from '../http/errors.js';
import { newId } from '../ids.js';
import { customerDisplayName } from '../customers/names.js';
import {
  decideSaleAttribution,
  DIRECT_SALE_LEAD_NAME,
  leadEventRows,
  saleEventRow,
  type AttributionSource,
} from './attribution.js';
import { customerKey, findClickOrThrow, findLinkOrThrow, type Log, type TrackDeps } from './deps.js';
import { upsertCustomer } from './lead.js';
import type { CurrencyConverter } from './currency.js';
import type { TrackSaleBody, TrackSaleResponse } from './schema.js';
import { conversionOutboxEntry, type Outbox } from '../outbox/outbox.js';
import { appendWithCredits } from '../attribution/credit-writer.js';

/** Retries after a unique violation that was not the invoice (another process created the customer). */
const UNIQUE_RACE_RETRIES = 3;

function parseMetadata(text: string | null): Record<string, unknown> | null {
  if (!text) return null;
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return null;
  }
}

export interface SaleService {
  track(workspaceId: string, body: TrackSaleBody, log: Log): Promise<TrackSaleResponse>;
}

export function createSaleService(deps: TrackDeps, fx: CurrencyConverter, outbox?: Outbox): SaleService {
  /** The answer of the first sale recorded for an invoice, rebuilt from its event row. */
  async function storedResponse(workspaceId: string, row: EventRow): Promise<TrackSaleResponse> {
    const customer = row.customer_id ? await deps.customers(deps.db).findById(workspaceId, row.customer_id) : undefined;
    return {
      eventName: row.event_name ?? '',
      customer: customer
        ? { id: customer.id, name: customer.name, email: customer.email, avatar: customer.avatar, externalId: customer.external_id }
        : null,
      sale: {
        amount: Number(row.amount),
        currency: 'usd',
        paymentProcessor: row.payment_processor ?? 'custom',
        invoiceId: row.invoice_id,
        metadata: parseMetadata(row.metadata),
      },
    };
  }

  async function findInvoice(workspaceId: string, invoiceId: string | null | undefined) {
    return invoiceId ? deps.conversions.saleByInvoice(workspaceId, invoiceId) : undefined;
  }

  async function recordOnce(workspaceId: string, body: TrackSaleBody, amountUsdCents: number): Promise<TrackSaleResponse> {
    const noSale: TrackSaleResponse = { eventName: body.eventName, customer: null, sale: null };
    const customer = await deps.customers(deps.db).findByExternalId(workspaceId, body.customerExternalId);
    const lead = customer ? await deps.conversions.latestLead(workspaceId, customer.id, body.leadEventName) : undefined;
    const decision = decideSaleAttribution({
      customerExists: !!customer,
      matchingLeadFound: !!lead,
      customerHasAnyLead: customer && !lead ? await deps.conversions.hasAnyLead(workspaceId, customer.id) : !!lead,
      requestClickId: body.clickId,
      customerClickId: customer?.click_id,
    });
    if (decision.kind === 'none') return noSale;
    if (decision.kind === 'lead-not-found') {
      const named = body.leadEventName ? ` named "${body.leadEventName}"` : '';
      throw new ApiError('not_found', `No lead event${named} found for the customer with externalId ${body.customerExternalId}.`);
    }
    const source: AttributionSource = decision.kind === 'lead' ? lead! : await findClickOrThrow(deps, workspaceId, decision.clickId);
    await findLinkOrThrow(deps, workspaceId, source, 'sale');
    const direct = decision.kind === 'direct';
    // Nothing to record: no lead to create and a zero amount (behaviour.md §10: amount 0 records nothing).
    if (!direct && body.amount === 0) return noSale;

    const newName = customerDisplayName(body.customerName, body.customerEmail);
    return deps.db.transaction().execute(async (trx) => {
      const now = deps.now();
      const customers = deps.customers(trx);
      const rows: StoredEvent[] = [];
      // Direct sale tracking: the customer (created if needed) gets a lead on the click first.
      let row = customer;
      if (direct) {
        row = await upsertCustomer(deps, trx, workspaceId, body.customerExternalId, body, source, newName);
        rows.push(
          ...leadEventRows(source, {
            workspaceId,
            customerId: row.id,
            eventName: body.leadEventName || DIRECT_SALE_LEAD_NAME,
            metadata: null,
            quantity: 1,
            now,
            newEventId: () => newId('evt', now),
          }),
        );
      }
      const cust = row!;
      let sale: TrackSaleResponse['sale'] = null;
      if (body.amount > 0) {
        // The UPDATE locks the customer row first, so two sales of one customer cannot both see
        // "no sale on this link yet" and both count a conversion.
        await customers.addSale(workspaceId, cust.id, amountUsdCents, now);
        const firstOnLink = !(await deps.conversions.hasSaleOnLink(workspaceId, cust.id, source.link_id, trx));
        const currency = body.currency.toLowerCase();
        rows.push(
          saleEventRow(source, {
            workspaceId,
            customerId: cust.id,
            eventName: body.eventName,
            amountUsdCents,
            currency,
            originalAmount: body.amount,
            paymentProcessor: body.paymentProcessor,
            invoiceId: body.invoiceId ?? null,
            metadata: body.metadata,
            firstOnLink,
            now,
            eventId: newId('evt', now),
          }),
        );
        // A duplicate invoice id fails here (events_invoice) and rolls back everything above.
        // The sale's attribution credits are written with it (docs/decisions/0015).
        await appendWithCredits(deps.conversions, rows, trx);
        await deps.counters.addSale(trx, workspaceId, source.link_id, amountUsdCents, firstOnLink);
        await outbox?.write(trx, [conversionOutboxEntry(rows[rows.length - 1]!, now)]);
        sale = {
          amount: amountUsdCents,
          currency: 'usd',
          paymentProcessor: body.paymentProcessor,
          invoiceId: body.invoiceId ?? null,
          metadata: body.metadata ?? null,
        };
      } else {
        await appendWithCredits(deps.conversions, rows, trx);
      }
      if (direct) await deps.counters.addLeads(trx, workspaceId, source.link_id, 1);
      if (!sale) return noSale;
      return {
        eventName: body.eventName,
        customer: { id: cust.id, name: cust.name, email: cust.email, avatar: cust.avatar, externalId: cust.external_id },
        sale,
      };
    }).finally(() => outbox?.nudge())
      // Committed: readable by analytics before the answer (the column store copies after the commit).
      .then(async (out) => {
        await deps.conversions.afterCommit();
        return out;
      });
  }

  async function record(workspaceId: string, body: TrackSaleBody, amountUsdCents: number): Promise<TrackSaleResponse> {
    for (let attempt = 0; ; attempt++) {
      // Checked again inside the customer's queue: an earlier request may have just recorded it.
      const stored = await findInvoice(workspaceId, body.invoiceId);
      if (stored) return storedResponse(workspaceId, stored);
      try {
        return await recordOnce(workspaceId, body, amountUsdCents);
      } catch (err) {
        if (!deps.conversions.isDuplicateInvoice(err) && !deps.dialect.isUniqueViolation(err)) throw err;
        // Lost the race for the invoice id to another process: answer with the winner's sale.
        const winner = await findInvoice(workspaceId, body.invoiceId);
        if (winner) return storedResponse(workspaceId, winner);
        if (attempt >= UNIQUE_RACE_RETRIES) throw err;
      }
    }
  }

  return {
    async track(workspaceId, body) {
      const amountUsdCents = fx.toUsdCents(body.amount, body.currency);
      if (amountUsdCents === undefined) {
        throw new ApiError(
          'unprocessable_entity',
          `invalid_value: currency: No exchange rate for "${body.currency}" in the currency rate table.`,
        );
      }
      const stored = await findInvoice(workspaceId, body.invoiceId);
      if (stored) return storedResponse(workspaceId, stored);
      return deps.queue.run(customerKey(workspaceId, body.customerExternalId), async () => ({
        value: await record(workspaceId, body, amountUsdCents),
      }));
    },
  };
}
