/**
 * What a provider's event asks Waymark to do, decided by pure functions (stripe.ts, shopify.ts,
 * paddle.ts) from the parsed payload, then carried out by one shared path (recorder.ts), so a
 * provider's sale is exactly a `/track/sale`.
 */

export const PROVIDERS = ['stripe', 'shopify', 'paddle'] as const;
export type Provider = (typeof PROVIDERS)[number];

/** How the provider's customer is known: by the app's own id, by the provider's, by email. */
export interface CustomerRef {
  externalId: string | null;
  processorId: string | null;
  email: string | null;
  name: string | null;
}

export type Intent =
  | {
      kind: 'sale';
      customer: CustomerRef;
      clickId: string | null;
      /** In the currency's smallest unit, as the provider sends it. */
      amount: number;
      currency: string;
      /** Idempotency key shared with `/track/sale`: one sale per invoice id and workspace. */
      invoiceId: string;
      eventName: string;
      metadata: Record<string, unknown> | null;
    }
  | { kind: 'lead'; customer: CustomerRef; clickId: string; eventName: string }
  | {
      kind: 'refund';
      /** Invoice ids the refunded sale may have been recorded under, first match wins. */
      invoiceIds: string[];
      /**
       * Stripe sends everything refunded of the payment so far (`total`); Shopify and Paddle send
       * one refund at a time (`increment`, recorded once by its own id), in the smallest unit.
       */
      refunded: { total: number } | { increment: number };
      currency: string;
    }
  | { kind: 'ignore'; reason: string };

/** The event as received: the provider's id for it, its type, and the intent. */
export interface ParsedEvent {
  eventId: string;
  type: string;
  intent: Intent;
}

/** A field of an object-like value, or undefined. */
export function field(o: unknown, key: string): unknown {
  return o && typeof o === 'object' && !Array.isArray(o) ? (o as Record<string, unknown>)[key] : undefined;
}

/** A non-empty string (trimmed, at most `max` characters), else null. */
export function text(v: unknown, max = 255): string | null {
  if (typeof v === 'number' && Number.isFinite(v)) v = String(v);
  if (typeof v !== 'string') return null;
  const t = v.trim();
  return t && t.length <= max ? t : null;
}

/** The first non-null of some candidate values. */
export function first<T>(...values: (T | null | undefined)[]): T | null {
  for (const v of values) if (v !== null && v !== undefined) return v;
  return null;
}

/** A whole, non-negative amount in the smallest unit; strings of digits are accepted (Paddle sends them). */
export function minorAmount(v: unknown): number | null {
  if (typeof v === 'string' && /^\d{1,15}$/.test(v)) return Number(v);
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : null;
}

/** Metadata keys that carry the click id, in the order they are looked for (docs/integrations/). */
export const CLICK_ID_KEYS = ['waymark_id', 'waymarkClickId', 'dub_id', 'dubClickId'] as const;
/** Metadata keys that carry the app's own customer id. */
export const CUSTOMER_ID_KEYS = ['waymarkCustomerExternalId', 'dubCustomerExternalId', 'dubCustomerId', 'customerExternalId'] as const;

/** The first of `keys` present in a metadata object. */
export function fromMetadata(metadata: unknown, keys: readonly string[]): string | null {
  for (const k of keys) {
    const v = text(field(metadata, k));
    if (v) return v;
  }
  return null;
}
