/**
 * "Forgot password?" (users/password-resets.ts): `GET|POST /dashboard/forgot` asks for a link,
 * `GET|POST /dashboard/reset?token=` sets the new password. The ask answers the same page
 * whether or not the address has an account, and is rate limited per client address and per
 * address asked for (the rate-limit counters every process shares), counted before the look-up.
 * Only offered when mail is set up (SMTP_URL); otherwise these pages answer 404.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { DashboardDeps } from '../kit.js';
import { HIDDEN, csrfFor, isSecure, sendPage } from '../kit.js';
import { ForgotPage, ResetPage } from '../pages/password-reset.js';
import { ApiError } from '../../http/errors.js';
import { addressKey } from '../../http/client-address.js';
import { emailKey } from '../../users/schema.js';
import type { RateCounters } from '../../db/rate-counters.js';

type Form = Record<string, string | undefined>;

/** Asks per hour: from one client address, and for one address. */
export const RESET_ASKS = { perAddress: 10, perAccount: 3, windowMs: 60 * 60 * 1000 };

export function passwordResetRoutes({ config, users }: DashboardDeps, counters: RateCounters): FastifyPluginAsync {
  const secure = isSecure(config);
  const anonymous = { anonymous: true } as const;
  const resets = users.passwordResets;
  const offered = () => {
    // OIDC_ONLY: a reset would give an SSO account a password; the break-glass one is the CLI's.
    if (config.oidc?.only) throw new ApiError('not_found', 'This server signs people in with single sign-on. The operator resets passwords with `npx waymark users reset-password`.');
    if (!resets.enabled) throw new ApiError('not_found', 'Password resets need mail, which this server does not send. Ask the operator.');
  };

  async function allowed(address: string, email: string): Promise<boolean> {
    const buckets: [string, number][] = [
      [`reset:ip:${addressKey(address)}`, RESET_ASKS.perAddress],
      [`reset:acct:${emailKey(email).slice(0, 254)}`, RESET_ASKS.perAccount],
    ];
    const counts = await Promise.all(buckets.map(([key]) => counters.hit(key, RESET_ASKS.windowMs)));
    return counts.every((c, i) => c.hits <= buckets[i]![1]);
  }

  return async (app) => {
    app.get('/dashboard/forgot', { config: anonymous, schema: HIDDEN }, async (request, reply) => {
      offered();
      return sendPage(reply, <ForgotPage sso={config.oidc?.name} csrf={csrfFor(request, reply, secure)} />);
    });

    app.post<{ Body: Form }>('/dashboard/forgot', { config: anonymous, schema: HIDDEN }, async (request, reply) => {
      offered();
      const email = String(request.body?.email ?? '').trim().slice(0, 254);
      const csrf = csrfFor(request, reply, secure);
      if (!email.includes('@')) return sendPage(reply, <ForgotPage sso={config.oidc?.name} csrf={csrf} error="Enter the email address of your account." />, 422);
      if (!(await allowed(request.clientAddress, email))) {
        return sendPage(reply, <ForgotPage sso={config.oidc?.name} csrf={csrf} error="Too many requests for a reset link. Try again in an hour." />, 429);
      }
      await resets.request(email);
      return sendPage(reply, <ForgotPage sso={config.oidc?.name} csrf={csrf} sent />);
    });

    app.get<{ Querystring: Form }>('/dashboard/reset', { config: anonymous, schema: HIDDEN }, async (request, reply) => {
      offered();
      const token = String(request.query.token ?? '');
      const csrf = csrfFor(request, reply, secure);
      try {
        await resets.check(token);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        return sendPage(reply, <ResetPage csrf={csrf} token="" error={err.message} />, err.status);
      }
      return sendPage(reply, <ResetPage csrf={csrf} token={token} />);
    });

    app.post<{ Body: Form }>('/dashboard/reset', { config: anonymous, schema: HIDDEN }, async (request, reply) => {
      offered();
      const token = String(request.body?.token ?? '');
      const csrf = csrfFor(request, reply, secure);
      try {
        await resets.reset(token, String(request.body?.password ?? '').slice(0, 1024));
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        // A refused password keeps the form; a used or expired link does not.
        return sendPage(reply, <ResetPage csrf={csrf} token={err.status === 422 ? token : ''} error={err.message} />, err.status);
      }
      return sendPage(reply, <ResetPage csrf={csrf} token="" done />);
    });
  };
}
