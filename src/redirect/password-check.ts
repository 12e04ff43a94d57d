/**
 * A password-protected link's check for one visit: a valid proof cookie passes; otherwise the
 * password posted in the form or given as `?pw=` is compared, with the attempts of an address
 * on a link counted and limited (password.ts holds the hashing and the limiter).
 */
import type { LinkInfo, PasswordState } from './decide.js';
import { passwordCookieName, passwordMatches, type AttemptLimiter } from './password.js';
import { readCookie } from './request.js';
import type { Req } from './handler-types.js';

/** The limiter's key for an address's attempts on a link (also read for `Retry-After`). */
export function attemptKey(ip: string, linkId: string): string {
  return `${ip}\n${linkId}`;
}

/** `prefix` names the proof cookie (password.ts); `deps.limiter` counts wrong guesses. */
export function createPasswordCheck(prefix: string, deps: { readonly limiter: AttemptLimiter }) {
  return function checkPassword(r: Req, link: LinkInfo, ip: string, now: number, posted: string | undefined): PasswordState {
    const password = link.password!;
    const limitKey = attemptKey(ip, link.id);
    const cookie = readCookie(r.headers.cookie, passwordCookieName(prefix, link.id));
    // A valid proof cookie always passes; guesses are counted and limited.
    if (cookie !== null && passwordMatches(link.id, password, { proof: cookie })) return 'ok';
    let offered = posted;
    if (offered === undefined && r.query.includes('pw=')) offered = new URLSearchParams(r.query).get('pw') ?? undefined;
    if (offered === undefined) return 'none';
    if (deps.limiter.blocked(limitKey, now) > 0) return 'rate_limited';
    if (passwordMatches(link.id, password, { password: offered })) {
      deps.limiter.reset(limitKey);
      return 'ok';
    }
    deps.limiter.fail(limitKey, now);
    return 'wrong';
  };
}
