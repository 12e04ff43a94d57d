/**
 * The dashboard's cookies, read and written with the `cookie` package (`parseCookie`,
 * `stringifySetCookie`), without a plugin:
 *
 * - `wm_session`: the session token (users/sessions.ts). `HttpOnly` (no script reads it),
 *   `SameSite=Lax` (not sent on cross-site form posts), `Secure` when BASE_URL is https, `Path=/`.
 * - `wm_csrf`: a random value for forms shown before a session exists (login, setup, an
 *   invitation), the seed of their CSRF token (csrf.ts). Same attributes.
 * - `wm_device`: set at each login, the browser's device token for the account
 *   (users/devices.ts), which exempts its later logins from the limit that every unknown client
 *   shares (login-limit.ts). Kept 180 days, through log outs. Same attributes.
 * - `wm_sso`: between the start of a single sign-on and the provider's answer (10 minutes), a
 *   random value whose hash names the sign-in's checks (sso/service.ts), so only the browser that
 *   started it finishes it. `SameSite=Lax` lets the provider's redirect (a top-level GET) carry it.
 *
 * @example
 * readCookie(request.headers.cookie, 'wm_session');                   // 'q3…' | undefined
 * reply.header('set-cookie', cookieHeader('wm_session', token, { secure: true, maxAgeSeconds: 3600 }));
 */
import { parseCookie, stringifySetCookie } from 'cookie';

export const SESSION_COOKIE = 'wm_session';
export const CSRF_COOKIE = 'wm_csrf';
export const DEVICE_COOKIE = 'wm_device';
export const SSO_COOKIE = 'wm_sso';

/** The value of one cookie in a `Cookie` header (the first one of that name). */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  // Our values are base64url, never percent-encoded: read as sent, and anything else is not ours.
  const value = parseCookie(header, { decode: (v) => v })[name];
  return value !== undefined && /^[A-Za-z0-9_-]{1,100}$/.test(value) ? value : undefined;
}

export interface CookieOptions {
  secure: boolean;
  /** Omitted: a cookie for the browser session; 0 deletes it. */
  maxAgeSeconds?: number;
}

export function cookieHeader(name: string, value: string, { secure, maxAgeSeconds }: CookieOptions): string {
  return stringifySetCookie({
    name, value, path: '/', httpOnly: true, sameSite: 'lax', secure,
    ...(maxAgeSeconds !== undefined ? { maxAge: Math.max(0, Math.floor(maxAgeSeconds)) } : {}),
  });
}
