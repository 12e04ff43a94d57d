/**
 * Single sign-on's two addresses (src/sso/): `GET /dashboard/sso/start?next=…` keeps the
 * sign-in's checks and sends the browser to the provider (`reauth=1`: a fresh sign-in for the
 * logged-in user, which an account change asks for); `GET /dashboard/sso/callback` is where the
 * provider sends it back (the redirect URI: BASE_URL + CALLBACK_PATH). Refusals are the
 * dashboard's error pages (403 for another email domain or a token that does not verify).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { DashboardDeps } from '../kit.js';
import { HIDDEN, isSecure, redirect, safeNext, signInBrowser } from '../kit.js';
import { SSO_COOKIE, cookieHeader, readCookie } from '../cookies.js';
import { ApiError } from '../../http/errors.js';
import { addressKey } from '../../http/client-address.js';
import type { RateCounters } from '../../db/rate-counters.js';
import { LOGIN_WINDOW_MS } from '../login-limit.js';
import { SIGN_IN_TTL_MS, type SsoService } from '../../sso/service.js';

type Query = Record<string, string | undefined>;

export function ssoRoutes({ config, users }: DashboardDeps, sso: SsoService, counters: RateCounters): FastifyPluginAsync {
  const secure = isSecure(config);
  const anonymous = { anonymous: true } as const;
  const clearSso = cookieHeader(SSO_COOKIE, '', { secure, maxAgeSeconds: 0 });

  return async (app) => {
    app.get<{ Querystring: Query }>('/dashboard/sso/start', { config: anonymous, schema: HIDDEN }, async (request, reply) => {
      const next = safeNext(request.query.next);
      const session = request.dashboard?.session?.session;
      const reauth = request.query.reauth === '1';
      if (reauth && !session) return redirect(reply, `/dashboard/login?next=${encodeURIComponent(next)}`);
      if (!reauth && session) return redirect(reply, next);
      const { browserToken, url } = await sso.begin({ next, reauthSession: reauth ? session : undefined });
      reply.header('set-cookie', cookieHeader(SSO_COOKIE, browserToken, { secure, maxAgeSeconds: SIGN_IN_TTL_MS / 1000 }));
      return redirect(reply, url);
    });

    app.get('/dashboard/sso/callback', { config: anonymous, schema: HIDDEN }, async (request, reply) => {
      // Failed callbacks count per client address like failed logins (login-limit.ts); a success gives its count back.
      const key = `sso:ip:${addressKey(request.clientAddress)}`;
      const { hits, resetInMs } = await counters.hit(key, LOGIN_WINDOW_MS);
      if (hits > config.loginRateLimitPerAddress) {
        throw new ApiError('rate_limit_exceeded', 'Too many failed sign-ins from this address. Try again later.', { headers: { 'retry-after': String(Math.ceil(resetInMs / 1000)) } });
      }
      // The sign-in cookie stays through a callback that fails to verify: the pending sign-in does too (sso/service.ts).
      const outcome = await sso.complete({
        browserToken: readCookie(request.headers.cookie, SSO_COOKIE),
        callbackUrl: new URL(request.url, config.baseUrl),
        ip: request.clientAddress ?? null,
        session: request.dashboard?.session?.session ?? null,
      });
      reply.header('set-cookie', clearSso);
      await counters.undo(key, LOGIN_WINDOW_MS);
      if (outcome.kind === 'reauthenticated') {
        await users.sessions.markReauthenticated(request.dashboard!.session!.session);
        return redirect(reply, outcome.next);
      }
      if (request.dashboard?.token) await users.sessions.revoke(request.dashboard.token);
      await signInBrowser({ config, users }, reply, outcome.user, { ssoIdToken: outcome.idToken });
      return redirect(reply, outcome.next);
    });
  };
}
