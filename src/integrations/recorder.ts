/**
 * The one path every provider's event takes into Waymark: a sale intent becomes a `/track/sale`
 * call (same event, same `sale.created` webhook, same counters and analytics, same invoice
 * idempotency), a lead intent a `/track/lead` call, a refund intent a refund (refunds.ts).
 * Returns the outcome stored in the delivery log and shown on the dashboard.
 *
 * Customers are found by the app's own id when the provider carries it (metadata), else by the
 * provider's customer id stored on the customer (`processorCustomerId`, set by the API or by an
 * earlier event of this provider). A sale for a customer Waymark does not know and without a click
 * id, or with a click id that does not exist, is `skipped`: kept with its body, retried when the
 * provider delivers it again or from the dashboard.
 */
import { z } from 'zod';
import { ApiError } from '../http/errors.js';
import type { CustomerRow } from '../customers/schema.js';
import type { TrackDeps, Log } from '../tracking/deps.js';
import type { LeadService } from '../tracking/lead.js';
import type { SaleService } from '../tracking/sale.js';
import { TrackLeadBody, TrackSaleBody } from '../tracking/schema.js';
import type { CustomerRef, Intent, Provider } from './intent.js';
import { recordRefund } from './refunds.js';
import type { Outcome } from './store.js';

export interface RecordResult {
  outcome: Outcome;
  message: string;
}

export interface Recorder {
  record(workspaceId: string, provider: Provider, intent: Intent, log: Log): Promise<RecordResult>;
}

const skipped = (message: string): RecordResult => ({ outcome: 'skipped', message });

export function createRecorder(deps: TrackDeps, services: { sales: SaleService; leads: LeadService }): Recorder {
  async function findCustomer(workspaceId: string, ref: CustomerRef): Promise<CustomerRow | undefined> {
    const store = deps.customers(deps.db);
    if (ref.externalId) {
      const byExternal = await store.findByExternalId(workspaceId, ref.externalId);
      if (byExternal) return byExternal;
    }
    return ref.processorId ? store.findByProcessorId(workspaceId, ref.processorId) : undefined;
  }

  /** Stores the provider's customer id on the customer, so its later invoices find it. */
  async function rememberProcessorId(workspaceId: string, customerId: string | undefined, processorId: string | null): Promise<void> {
    if (!customerId || !processorId) return;
    const store = deps.customers(deps.db);
    const row = await store.findById(workspaceId, customerId);
    if (row && !row.processor_customer_id) await store.update(workspaceId, customerId, { processor_customer_id: processorId, updated_at: deps.now() });
  }

  /** A refusal of the track services that waiting will not fix becomes `skipped`; anything else is thrown (and retried). */
  function skippedOr(err: unknown): RecordResult {
    if (err instanceof ApiError && (err.code === 'not_found' || err.code === 'unprocessable_entity' || err.code === 'bad_request')) return skipped(err.message);
    if (err instanceof z.ZodError) return skipped(`The event's fields do not make a valid sale or lead: ${err.issues[0]?.message ?? 'invalid'}.`);
    throw err;
  }

  async function sale(workspaceId: string, provider: Provider, intent: Extract<Intent, { kind: 'sale' }>, log: Log): Promise<RecordResult> {
    const existing = await deps.conversions.saleByInvoice(workspaceId, intent.invoiceId);
    if (existing) return { outcome: 'duplicate', message: `A sale with invoice id ${intent.invoiceId} is already recorded (${existing.id}); not counted again.` };
    const customer = await findCustomer(workspaceId, intent.customer);
    const externalId = customer?.external_id ?? intent.customer.externalId ?? intent.customer.processorId ?? intent.customer.email;
    if (!externalId || (!customer && !intent.clickId)) {
      const who = intent.customer.externalId ?? intent.customer.processorId ?? intent.customer.email ?? 'without any id';
      return skipped(`Unknown customer ${who} and no click id: the sale is kept and recorded when retried after the customer's lead is tracked.`);
    }
    let answer;
    try {
      const body = TrackSaleBody.parse({
      customerExternalId: externalId,
      amount: intent.amount,
      currency: intent.currency,
      eventName: intent.eventName,
      paymentProcessor: provider,
      invoiceId: intent.invoiceId,
      metadata: intent.metadata,
      clickId: intent.clickId,
      customerName: intent.customer.name,
      customerEmail: validEmail(intent.customer.email),
      });
      answer = await services.sales.track(workspaceId, body, log);
    } catch (err) {
      return skippedOr(err);
    }
    if (!answer.sale) return { outcome: 'ignored', message: 'Nothing to record (amount 0 or no customer).' };
    await rememberProcessorId(workspaceId, answer.customer?.id, intent.customer.processorId);
    return { outcome: 'recorded', message: `Sale of ${answer.sale.amount} US cents recorded for customer ${externalId} (invoice ${intent.invoiceId}).` };
  }

  async function lead(workspaceId: string, intent: Extract<Intent, { kind: 'lead' }>, log: Log): Promise<RecordResult> {
    const customer = await findCustomer(workspaceId, intent.customer);
    const externalId = customer?.external_id ?? intent.customer.externalId ?? intent.customer.processorId;
    if (!externalId) return skipped('The customer has no id to record a lead under.');
    let answer;
    try {
      const body = TrackLeadBody.parse({
      clickId: intent.clickId,
      eventName: intent.eventName,
      customerExternalId: externalId,
      customerName: intent.customer.name,
      customerEmail: validEmail(intent.customer.email),
      mode: 'wait',
      });
      answer = await services.leads.track(workspaceId, body, log);
    } catch (err) {
      return skippedOr(err);
    }
    const row = await deps.customers(deps.db).findByExternalId(workspaceId, externalId);
    await rememberProcessorId(workspaceId, row?.id, intent.customer.processorId);
    if (!answer.link) return { outcome: 'duplicate', message: `The customer ${externalId} already has a "${intent.eventName}" lead from the last 7 days.` };
    return { outcome: 'recorded', message: `Lead "${intent.eventName}" recorded for customer ${externalId} on link ${answer.link.shortLink}.` };
  }

  return {
    async record(workspaceId, provider, intent, log) {
      switch (intent.kind) {
        case 'ignore':
          return { outcome: 'ignored', message: intent.reason };
        case 'sale':
          return sale(workspaceId, provider, intent, log);
        case 'lead':
          return lead(workspaceId, intent, log);
        case 'refund': {
          const r = await recordRefund(deps, { workspaceId, invoiceIds: intent.invoiceIds, refunded: intent.refunded, currency: intent.currency, paymentProcessor: provider, reference: intent.invoiceIds.join(',') });
          const cap = (capped: boolean) => (capped ? ' The refund reported is larger than the sale; it was stopped at the sale amount.' : '');
          switch (r.kind) {
            case 'unknown-sale':
              return skipped(`No sale recorded under ${intent.invoiceIds.join(' or ')}; the refund is kept and recorded when retried after the sale.`);
            case 'other-currency':
              return skipped(`The refund is in ${intent.currency}, the sale ${r.sale.id} in ${r.sale.currency}; not recorded.`);
            case 'nothing-new':
              return { outcome: 'duplicate', message: `Everything this event refunds of sale ${r.sale.id} is already recorded.${cap(r.capped)}` };
            case 'recorded':
              return { outcome: 'recorded', message: `Refund of ${r.step.usdCents} US cents recorded against sale ${r.sale.id}.${cap(r.step.capped)}` };
          }
        }
      }
    },
  };
}

/** The email when the track schemas accept it (a provider may send a malformed one). */
function validEmail(email: string | null): string | null {
  return email && email.length <= 100 && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) ? email : null;
}
