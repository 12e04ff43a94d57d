/**
 * Pure attribution rules of the track endpoints: lead de-duplication, which lead a sale belongs
 * to, and the event rows written for leads and sales. No I/O and no clock: callers pass `now`.
 */
import { conversionEvent, type AttributionSource, type StoredEvent } from '../events/index.js';

/** A lead with the same customer and event name inside this window is not counted again (behaviour.md §6.1). */
export const LEAD_DEDUP_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;

/** Name of the lead recorded for a direct sale when the request names none. */
export const DIRECT_SALE_LEAD_NAME = 'Direct sale tracking lead event';

export { dimensionsOf, EVENT_DIMENSIONS, type AttributionSource, type EventDimensions } from '../events/index.js';

/** "Sign up", "sign-up" and "SIGN  UP" are one event name for de-duplication, as published. */
export function normalizeLeadName(name: string): string {
  return name.trim().toLowerCase().replace(/\s+/g, '-');
}

/** True when `eventName` matches one of the customer's lead names recorded inside the window. */
export function isDuplicateLead(recentLeadNames: readonly string[], eventName: string): boolean {
  const wanted = normalizeLeadName(eventName);
  return recentLeadNames.some((n) => normalizeLeadName(n) === wanted);
}

export interface LeadEventInput {
  workspaceId: string;
  customerId: string;
  eventName: string;
  metadata: Record<string, unknown> | null | undefined;
  quantity: number;
  now: number;
  newEventId: () => string;
}

/** `quantity` lead rows attributed to the click, each with its own event id (behaviour.md §6.1, step 7). */
export function leadEventRows(click: AttributionSource, input: LeadEventInput): StoredEvent[] {
  const metadata = input.metadata ? JSON.stringify(input.metadata) : null;
  return Array.from({ length: input.quantity }, () =>
    conversionEvent(click, {
      kind: 'lead',
      workspace_id: input.workspaceId,
      timestamp: input.now,
      id: input.newEventId(),
      customer_id: input.customerId,
      event_name: input.eventName,
      metadata,
    }),
  );
}

export interface SaleEventInput {
  workspaceId: string;
  customerId: string;
  eventName: string;
  amountUsdCents: number;
  /** Lower-case currency as sent, and the amount as sent in its smallest unit. */
  currency: string;
  originalAmount: number;
  paymentProcessor: string;
  invoiceId: string | null;
  metadata: Record<string, unknown> | null | undefined;
  /** True for the customer's first sale on this link: `new`, else `recurring`. */
  firstOnLink: boolean;
  now: number;
  eventId: string;
}

/** The sale row, attributed to the lead's (or click's) dimensions. */
export function saleEventRow(source: AttributionSource, input: SaleEventInput): StoredEvent {
  return conversionEvent(source, {
    kind: 'sale',
    workspace_id: input.workspaceId,
    timestamp: input.now,
    id: input.eventId,
    customer_id: input.customerId,
    event_name: input.eventName,
    amount: input.amountUsdCents,
    currency: input.currency,
    original_amount: input.originalAmount,
    payment_processor: input.paymentProcessor,
    invoice_id: input.invoiceId,
    sale_type: input.firstOnLink ? 'new' : 'recurring',
    metadata: input.metadata ? JSON.stringify(input.metadata) : null,
  });
}

/**
 * How a sale is attributed, decided from what the database holds for the customer:
 * - `lead`: to the latest lead (of the named event, when `leadEventName` is given);
 * - `direct`: to a click, recording a lead first, when the customer has no lead at all and a
 *   click is known (the request's `clickId`, else the click stored on the customer);
 * - `none`: no customer and no click, answered as a no-op like the published API;
 * - `lead-not-found`: the customer has leads, but none with that name, or has neither lead nor click.
 */
export type SaleAttribution =
  | { kind: 'lead' }
  | { kind: 'direct'; clickId: string }
  | { kind: 'none' }
  | { kind: 'lead-not-found' };

export function decideSaleAttribution(input: {
  customerExists: boolean;
  matchingLeadFound: boolean;
  customerHasAnyLead: boolean;
  requestClickId: string | null | undefined;
  customerClickId: string | null | undefined;
}): SaleAttribution {
  if (input.customerExists) {
    if (input.matchingLeadFound) return { kind: 'lead' };
    if (input.customerHasAnyLead) return { kind: 'lead-not-found' };
    const clickId = input.requestClickId || input.customerClickId;
    return clickId ? { kind: 'direct', clickId } : { kind: 'lead-not-found' };
  }
  return input.requestClickId ? { kind: 'direct', clickId: input.requestClickId } : { kind: 'none' };
}
