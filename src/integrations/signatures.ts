/**
 * The three providers' webhook signatures, checked over the raw body exactly as sent. Pure
 * functions with the clock passed in; every comparison is constant-time (timingSafeEqual over
 * equal-length digests).
 *
 * - Stripe: `Stripe-Signature: t=<unix s>,v1=<hex>[,v1=…]`, HMAC-SHA256 of `<t>.<body>`; any `v1`
 *   may match (during a secret roll Stripe signs with both); `t` within the tolerance.
 * - Shopify: `X-Shopify-Hmac-Sha256: <base64>`, HMAC-SHA256 of the body; no timestamp, so replays
 *   are stopped by the webhook id alone (the event log).
 * - Paddle: `Paddle-Signature: ts=<unix s>;h1=<hex>[;h1=…]`, HMAC-SHA256 of `<ts>:<body>`.
 *
 * @example
 * verifyStripe(rawBody, req.headers['stripe-signature'], secret, Date.now()); // { ok: true }
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Stripe's and Paddle's default: a signature older (or newer) than 5 minutes is refused. */
export const DEFAULT_TOLERANCE_S = 300;

export type Verdict = { ok: true } | { ok: false; reason: 'missing' | 'malformed' | 'mismatch' | 'expired' };

function hmac(secret: string, data: Buffer | string, encoding: 'hex' | 'base64'): string {
  return createHmac('sha256', secret).update(data).digest(encoding);
}

/** Constant-time equality of two texts (different lengths are unequal without a timing leak of content). */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** `k=v` pairs of a signature header; repeated keys keep every value. */
function pairs(header: string, separator: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const part of header.split(separator)) {
    const at = part.indexOf('=');
    if (at <= 0) continue;
    const k = part.slice(0, at).trim();
    const list = out.get(k) ?? [];
    list.push(part.slice(at + 1).trim());
    out.set(k, list);
  }
  return out;
}

function timestamped(
  body: Buffer,
  header: string | undefined,
  secret: string,
  nowMs: number,
  scheme: { separator: string; time: string; sig: string; joiner: string },
  toleranceS: number,
): Verdict {
  if (!header) return { ok: false, reason: 'missing' };
  const p = pairs(header, scheme.separator);
  const t = p.get(scheme.time)?.[0];
  const sigs = p.get(scheme.sig) ?? [];
  if (!t || !/^\d{1,12}$/.test(t) || !sigs.length) return { ok: false, reason: 'malformed' };
  const expected = hmac(secret, Buffer.concat([Buffer.from(t + scheme.joiner), body]), 'hex');
  // Every candidate is compared, so the time taken does not say which one matched.
  let match = false;
  for (const s of sigs) match = safeEqual(s.toLowerCase(), expected) || match;
  if (!match) return { ok: false, reason: 'mismatch' };
  if (Math.abs(nowMs / 1000 - Number(t)) > toleranceS) return { ok: false, reason: 'expired' };
  return { ok: true };
}

export function verifyStripe(body: Buffer, header: string | undefined, secret: string, nowMs: number, toleranceS = DEFAULT_TOLERANCE_S): Verdict {
  return timestamped(body, header, secret, nowMs, { separator: ',', time: 't', sig: 'v1', joiner: '.' }, toleranceS);
}

export function verifyPaddle(body: Buffer, header: string | undefined, secret: string, nowMs: number, toleranceS = DEFAULT_TOLERANCE_S): Verdict {
  return timestamped(body, header, secret, nowMs, { separator: ';', time: 'ts', sig: 'h1', joiner: ':' }, toleranceS);
}

export function verifyShopify(body: Buffer, header: string | undefined, secret: string): Verdict {
  if (!header) return { ok: false, reason: 'missing' };
  return safeEqual(header.trim(), hmac(secret, body, 'base64')) ? { ok: true } : { ok: false, reason: 'mismatch' };
}
