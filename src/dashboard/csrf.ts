/**
 * CSRF protection of every state-changing dashboard request, two checks:
 *
 * 1. The origin: a browser's `Origin` (or, without one, `Sec-Fetch-Site`) must name this server.
 * 2. A token: forms carry `_csrf` (htmx requests may send `x-csrf-token` instead), which must equal
 *    the token derived from the request's own secret cookie: the session token when logged in,
 *    else the `wm_csrf` cookie. A page on another site can read neither, so it cannot forge the
 *    field. Compared in constant time.
 *
 * @example
 * const token = csrfTokenFor(sessionToken);     // put in a hidden field: <CsrfField token={token} />
 * assertSameOrigin(request, allowedOrigins);    // throws 403
 * assertCsrfToken(sent, sessionToken);          // throws 403
 */
import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../http/errors.js';
import { sameSecret } from '../users/tokens.js';

export const CSRF_FIELD = '_csrf';
export const CSRF_HEADER = 'x-csrf-token';

/** The token forms carry, derived from the secret cookie (one-way: the token does not reveal it). */
export function csrfTokenFor(secret: string): string {
  return createHash('sha256').update(`waymark-csrf\0${secret}`).digest('base64url');
}

/** Throws 403 unless the browser says the request comes from one of `origins` (or sends nothing). */
export function assertSameOrigin(request: FastifyRequest, origins: ReadonlySet<string>): void {
  const origin = request.headers.origin;
  if (origin !== undefined) {
    if (!origins.has(origin.toLowerCase())) throw new ApiError('forbidden', 'This form was sent from another site.');
    return;
  }
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') throw new ApiError('forbidden', 'This form was sent from another site.');
}

/** Throws 403 unless `sent` is the token of `secret`. */
export function assertCsrfToken(sent: unknown, secret: string | undefined): void {
  if (typeof sent !== 'string' || !secret || !sameSecret(sent, csrfTokenFor(secret))) {
    throw new ApiError('forbidden', 'This form has expired or did not come from this site: reload the page and try again.');
  }
}
