/**
 * Shopify `orders/paid` → a sale, `refunds/create` → a refund of that order's sale (pure). The topic and the delivery's id come in headers
 * (`X-Shopify-Topic`, `X-Shopify-Webhook-Id`); the click id in a cart attribute, which Shopify
 * copies onto the order's `note_attributes` (`waymark_id` or `dub_id`, set by the storefront from
 * the landing URL), else in the `landing_site` URL's query. The order id is the invoice id;
 * `current_total_price` (after edits made before payment) is the amount, in major
 * units as a decimal string.
 */
import { minorDigits } from '../tracking/currency.js';
import { CLICK_ID_KEYS, field, first, text, type Intent, type ParsedEvent } from './intent.js';

/** A decimal string in major units ("12.30") → smallest unit (1230), exactly, without floats. */
export function majorToMinor(value: unknown, currency: string): number | null {
  const v = typeof value === 'number' ? String(value) : value;
  if (typeof v !== 'string') return null;
  const m = /^(\d{1,13})(?:\.(\d{1,3}))?$/.exec(v.trim());
  if (!m) return null;
  const digits = minorDigits(currency.toLowerCase());
  const fraction = (m[2] ?? '').padEnd(3, '0');
  if (fraction.slice(digits).replace(/0/g, '')) return null; // more precision than the currency has
  return Number(m[1]) * 10 ** digits + (digits ? Number(fraction.slice(0, digits)) : 0);
}

/**
 * A Shopify object's id as text: from `admin_graphql_api_id` (`gid://shopify/Order/…`) when
 * present, since JSON numbers beyond 2^53 lose digits when parsed; else the numeric `id`.
 */
export function shopifyId(obj: unknown): string | null {
  const gid = text(field(obj, 'admin_graphql_api_id'));
  const tail = gid?.match(/\/(\d{1,30})$/)?.[1];
  return tail ?? text(field(obj, 'id'));
}

function clickIdOfOrder(order: unknown, clickIdParam: string): string | null {
  const attributes = field(order, 'note_attributes');
  if (Array.isArray(attributes)) {
    for (const key of [clickIdParam, ...CLICK_ID_KEYS]) {
      const hit = attributes.find((a) => field(a, 'name') === key);
      const v = text(field(hit, 'value'));
      if (v) return v;
    }
  }
  const landing = text(field(order, 'landing_site'), 2000);
  if (landing) {
    try {
      const q = new URL(landing, 'https://shop.invalid').searchParams;
      for (const key of [clickIdParam, ...CLICK_ID_KEYS]) if (q.get(key)) return q.get(key)!.trim() || null;
    } catch {
      // An unparsable landing URL carries no click id.
    }
  }
  return null;
}

export function parseShopifyEvent(payload: unknown, headers: { topic?: string; webhookId?: string }, clickIdParam: string): ParsedEvent | undefined {
  const type = text(headers.topic);
  // A refund is recorded once by its own id, whichever delivery brings it.
  const refundId = type === 'refunds/create' ? shopifyId(payload) : null;
  const eventId = refundId ? `refund_${refundId}` : text(headers.webhookId);
  if (!type || !eventId) return undefined;
  return { eventId, type, intent: shopifyIntent(type, payload, clickIdParam) };
}

/** `refunds/create`: the refund's successful refund transactions, against the order's sale. */
function refundIntent(refund: unknown): Intent {
  const orderId = text(field(refund, 'order_id'));
  const transactions = field(refund, 'transactions');
  const done = Array.isArray(transactions) ? transactions.filter((t) => field(t, 'kind') === 'refund' && field(t, 'status') === 'success') : [];
  const currency = text(field(done[0], 'currency'));
  if (!orderId || !currency) return { kind: 'ignore', reason: 'The refund has no order id or no successful refund transaction.' };
  let increment = 0;
  for (const t of done) {
    const minor = majorToMinor(field(t, 'amount'), currency);
    if (minor === null || text(field(t, 'currency'))?.toLowerCase() !== currency.toLowerCase()) return { kind: 'ignore', reason: 'The refund transactions have no readable amount in one currency.' };
    increment += minor;
  }
  return { kind: 'refund', invoiceIds: [`shopify_${orderId}`], refunded: { increment }, currency };
}

function shopifyIntent(type: string, order: unknown, clickIdParam: string): Intent {
  if (type === 'refunds/create') return refundIntent(order);
  if (type !== 'orders/paid') return { kind: 'ignore', reason: `Waymark does not use ${type} events.` };
  const currency = text(field(order, 'currency'));
  const orderId = shopifyId(order);
  const amount = currency ? majorToMinor(first(field(order, 'current_total_price'), field(order, 'total_price')), currency) : null;
  if (!currency || !orderId || amount === null) return { kind: 'ignore', reason: 'The order has no id, currency or total price.' };
  const customer = field(order, 'customer');
  const name = [text(field(customer, 'first_name')), text(field(customer, 'last_name'))].filter(Boolean).join(' ');
  return {
    kind: 'sale',
    customer: {
      externalId: null,
      processorId: shopifyId(customer),
      email: first(text(field(customer, 'email')), text(field(order, 'email'))),
      name: name ? name.slice(0, 100) : null,
    },
    clickId: clickIdOfOrder(order, clickIdParam),
    amount,
    currency,
    invoiceId: `shopify_${orderId}`,
    eventName: 'Purchase',
    metadata: { shopifyOrder: orderId, orderName: text(field(order, 'name')) },
  };
}
