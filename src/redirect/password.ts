/**
 * Password-protected links. The form posts the password back to the short link; the right one
 * sets a cookie holding a proof (SHA-256 of link id and password, never the password itself), so
 * the visitor is not asked again until the password changes. Passwords and proofs are compared in
 * constant time, and wrong tries are limited per client IP and link.
 *
 * @example
 * const limiter = createAttemptLimiter();
 * if (limiter.blocked(`${ip}\n${link.id}`, now)) …
 */
import { createHash } from 'node:crypto';
import { boundedCache } from '../bounded-cache.js';
import { safeEqual } from '../workspaces/api-keys.js';

/** Cookie carrying the proof for one link, e.g. `waymark_password_link_01J…`. */
export function passwordCookieName(prefix: string, linkId: string): string {
  return `${prefix}_password_${linkId}`;
}

/** What the cookie holds: changes whenever the password does. */
export function passwordProof(linkId: string, password: string): string {
  return createHash('sha256').update(`${linkId}\n${password}`).digest('base64url');
}

/** Constant-time check of a submitted password or a cookie proof. */
export function passwordMatches(linkId: string, password: string, offered: { password?: string; proof?: string }): boolean {
  if (offered.password !== undefined && safeEqual(offered.password, password)) return true;
  if (offered.proof !== undefined && safeEqual(offered.proof, passwordProof(linkId, password))) return true;
  return false;
}

export interface AttemptLimiterOptions {
  /** Wrong tries allowed per window (default 10). */
  max?: number;
  /** Window length (default 10 minutes). */
  windowMs?: number;
}

export interface AttemptLimiter {
  /** Seconds until the key may try again, or 0 when it may try now. */
  blocked(key: string, now: number): number;
  /** Counts a wrong try. */
  fail(key: string, now: number): void;
  /** Forgets the key after a right try. */
  reset(key: string): void;
}

/** In-memory counter of wrong tries per key (each process counts its own). */
export function createAttemptLimiter(options: AttemptLimiterOptions = {}): AttemptLimiter {
  const max = options.max ?? 10;
  const windowMs = options.windowMs ?? 10 * 60_000;
  const tries = boundedCache<string, { count: number; resetAt: number }>(50_000);
  return {
    blocked(key, now) {
      const t = tries.get(key);
      if (!t || t.resetAt <= now) return 0;
      return t.count >= max ? Math.ceil((t.resetAt - now) / 1000) : 0;
    },
    fail(key, now) {
      const t = tries.get(key);
      if (!t || t.resetAt <= now) tries.set(key, { count: 1, resetAt: now + windowMs });
      else t.count++;
    },
    reset(key) {
      tries.delete(key);
    },
  };
}
