/**
 * Secrets handed to a browser (session cookies, invitation and setup links): 32 random bytes in
 * base64url, stored only as their SHA-256 so that a copy of the database opens no session.
 *
 * @example
 * const token = newToken();          // 'q3…' (43 characters)
 * store.insert({ token_hash: hashToken(token) });
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Compares two secrets in time that depends only on their lengths' digests, not their contents. */
export function sameSecret(a: string, b: string): boolean {
  const x = createHash('sha256').update(a).digest();
  const y = createHash('sha256').update(b).digest();
  return timingSafeEqual(x, y);
}
