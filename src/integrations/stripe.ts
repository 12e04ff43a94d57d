/**
 * Stripe events → intents (pure). The click id travels as the published integration documents:
 * `client_reference_id=dub_id_<clickId>` on Checkout (the redirect sets it when the destination
 * asks with `dub_client_reference_id=1`), or `metadata.dubClickId` / `metadata.waymark_id` on the
 * session or the customer. The app's customer id travels in `metadata.dubCustomerExternalId`
 * (or `dubCustomerId`, `waymarkCustomerExternalId`).
 *
 * - `checkout.session.completed` (paid) and `checkout.session.async_payment_succeeded`: a sale
 *   under the session's invoice, else its payment intent, else the session id;
 * - `invoice.paid`: a sale under the invoice id (a subscription's first invoice is the same sale
 *   as its Checkout session; renewals are recurring sales of the same customer);
 * - `charge.refunded`: the charge's cumulative `amount_refunded` against the sale of its invoice
 *   or payment intent;
 * - `customer.created` with a click id: a lead.
 */
import { CLICK_ID_KEYS, CUSTOMER_ID_KEYS, field, first, fromMetadata, minorAmount, text, type CustomerRef, type Intent, type ParsedEvent } from './intent.js';

const REFERENCE_PREFIX = 'dub_id_';

/** An expandable Stripe field: the id string, or the expanded object's id. */
function idOf(v: unknown): string | null {
  return text(v) ?? text(field(v, 'id'));
}

function clickIdOf(obj: unknown): string | null {
  const ref = text(field(obj, 'client_reference_id'));
  if (ref?.startsWith(REFERENCE_PREFIX) && ref.length > REFERENCE_PREFIX.length) return ref.slice(REFERENCE_PREFIX.length);
  return fromMetadata(field(obj, 'metadata'), CLICK_ID_KEYS);
}

function customerOf(obj: unknown, processorId: string | null, email: unknown, name: unknown): CustomerRef {
  return {
    externalId: fromMetadata(field(obj, 'metadata'), CUSTOMER_ID_KEYS),
    processorId,
    email: text(email),
    name: text(name, 100),
  };
}

function stripeIntent(type: string, obj: unknown): Intent {
  switch (type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded': {
      if (field(obj, 'payment_status') === 'unpaid') return { kind: 'ignore', reason: 'The session is not paid yet; its async_payment_succeeded event records the sale.' };
      const amount = minorAmount(field(obj, 'amount_total'));
      const currency = text(field(obj, 'currency'));
      const invoiceId = first(idOf(field(obj, 'invoice')), idOf(field(obj, 'payment_intent')), text(field(obj, 'id')));
      if (amount === null || !currency || !invoiceId) return { kind: 'ignore', reason: 'The session has no amount_total, currency or id.' };
      const details = field(obj, 'customer_details');
      return {
        kind: 'sale',
        customer: customerOf(obj, idOf(field(obj, 'customer')), field(details, 'email'), field(details, 'name')),
        clickId: clickIdOf(obj),
        amount,
        currency,
        invoiceId,
        eventName: 'Purchase',
        metadata: { stripeCheckoutSession: text(field(obj, 'id')) },
      };
    }
    case 'invoice.paid': {
      const amount = minorAmount(field(obj, 'amount_paid'));
      const currency = text(field(obj, 'currency'));
      const invoiceId = text(field(obj, 'id'));
      if (amount === null || !currency || !invoiceId) return { kind: 'ignore', reason: 'The invoice has no amount_paid, currency or id.' };
      if (amount === 0) return { kind: 'ignore', reason: 'The invoice paid nothing (a trial or a full discount); no sale.' };
      // The subscription's metadata is copied onto the invoice's parent; either may name the customer.
      const sub = field(field(obj, 'subscription_details'), 'metadata') ?? field(field(field(obj, 'parent'), 'subscription_details'), 'metadata');
      const customer = customerOf(obj, idOf(field(obj, 'customer')), field(obj, 'customer_email'), field(obj, 'customer_name'));
      customer.externalId ??= fromMetadata(sub, CUSTOMER_ID_KEYS);
      return {
        kind: 'sale',
        customer,
        clickId: first(fromMetadata(field(obj, 'metadata'), CLICK_ID_KEYS), fromMetadata(sub, CLICK_ID_KEYS)),
        amount,
        currency,
        invoiceId,
        eventName: field(obj, 'billing_reason') === 'subscription_cycle' ? 'Subscription renewal' : 'Invoice paid',
        metadata: { stripeInvoice: invoiceId },
      };
    }
    case 'charge.refunded': {
      const refundedTotal = minorAmount(field(obj, 'amount_refunded'));
      const currency = text(field(obj, 'currency'));
      const invoiceIds = [idOf(field(obj, 'invoice')), idOf(field(obj, 'payment_intent'))].filter((v): v is string => !!v);
      if (refundedTotal === null || !currency || !invoiceIds.length) return { kind: 'ignore', reason: 'The charge has no amount_refunded, currency, invoice or payment intent.' };
      return { kind: 'refund', invoiceIds, refunded: { total: refundedTotal }, currency };
    }
    case 'customer.created': {
      const clickId = fromMetadata(field(obj, 'metadata'), CLICK_ID_KEYS);
      if (!clickId) return { kind: 'ignore', reason: 'The customer carries no click id in its metadata; no lead.' };
      return { kind: 'lead', customer: customerOf(obj, text(field(obj, 'id')), field(obj, 'email'), field(obj, 'name')), clickId, eventName: 'Sign up' };
    }
    default:
      return { kind: 'ignore', reason: `Waymark does not use ${type} events.` };
  }
}

/** The event of a verified body; undefined when it is not a Stripe event object. */
export function parseStripeEvent(payload: unknown): ParsedEvent | undefined {
  const eventId = text(field(payload, 'id'));
  const type = text(field(payload, 'type'));
  const obj = field(field(payload, 'data'), 'object');
  if (!eventId || !type || !obj || typeof obj !== 'object') return undefined;
  return { eventId, type, intent: stripeIntent(type, obj) };
}
