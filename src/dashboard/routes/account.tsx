/**
 * The account page (`GET /dashboard/account`) and its profile forms: `POST /dashboard/account/name`
 * (no password: a name grants nothing) and `POST /dashboard/account/email` (the current password,
 * guesses counted by the login limiter as for a new password; or a fresh single sign-on,
 * `GET /dashboard/sso/start?reauth=1`, within `sessions.recentlyReauthenticated`'s 5 minutes). The rules are users/profile.ts's; a refusal comes back at its field with
 * what was typed. The new password's form is in routes/session.tsx.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { ApiError } from '../../http/errors.js';
import { whoOf } from '../../audit/record.js';
import { mayChangeEmail, type EmailChangeProof } from '../../users/profile.js';
import { NO_PASSWORD } from '../../users/password.js';
import type { DashboardDeps, Kit } from '../kit.js';
import { HIDDEN, fieldErrorOf, redirect, sendPage, sessionOf } from '../kit.js';
import type { LoginLimiter } from '../login-limit.js';
import { AccountPage, type EmailProofs, type ProfileForm } from '../pages/account.js';

type Form = Record<string, string | undefined>;

const NOTICES: Record<string, string> = {
  password: 'Password changed. Other devices were logged out.',
  name: 'Name saved.',
  email: 'Email address changed. Other devices were logged out.',
};

export function accountRoutes({ config, users }: DashboardDeps, kit: Kit, limiter: LoginLimiter): FastifyPluginAsync {
  /** What the email form may ask for: the password (unless the account has none), a fresh SSO sign-in. */
  function proofsOf(request: FastifyRequest): EmailProofs {
    const { user, session } = sessionOf(request);
    return {
      password: user.password_hash !== NO_PASSWORD,
      sso: config.oidc ? { name: config.oidc.name, fresh: users.sessions.recentlyReauthenticated(session) } : undefined,
    };
  }

  /** The account page again with a refused form's message at its field (a refusal of no field: at `fallback`). */
  async function refused(request: FastifyRequest, err: ApiError, values: ProfileForm['values'], fallback: 'name' | 'email' | 'current') {
    const errors = fieldErrorOf(err, ['name', 'email', 'current']);
    const { form, ...atFields } = errors;
    const profile: ProfileForm = { values, errors: form ? { ...atFields, [fallback]: form } : atFields };
    return <AccountPage frame={await kit.accountFrame(request)} profile={profile} proofs={proofsOf(request)} />;
  }

  return async (app) => {
    app.get<{ Querystring: Form }>('/dashboard/account', { schema: HIDDEN }, async (request, reply) => {
      const notice = NOTICES[String(request.query.changed ?? '')];
      return sendPage(reply, <AccountPage frame={await kit.accountFrame(request)} notice={notice} proofs={proofsOf(request)} />);
    });

    app.post<{ Body: Form }>('/dashboard/account/name', { schema: HIDDEN }, async (request, reply) => {
      const { user } = sessionOf(request);
      const name = String(request.body?.name ?? '').slice(0, 1000);
      try {
        await users.profile.rename(user.id, name, whoOf(request));
      } catch (err) {
        if (!(err instanceof ApiError) || err.status !== 422) throw err;
        return sendPage(reply, await refused(request, err, { name }, 'name'), 422);
      }
      return redirect(reply, '/dashboard/account?changed=name');
    });

    app.post<{ Body: Form }>('/dashboard/account/email', { schema: HIDDEN }, async (request, reply) => {
      const { user, session } = sessionOf(request);
      const email = String(request.body?.email ?? '').slice(0, 1000);
      const current = String(request.body?.current ?? '').slice(0, 1024);
      // Guesses of the current password count for this session alone (as a new password's do).
      const attempt = await limiter.begin({ address: request.clientAddress, email: user.email, device: `session-${session.token_hash.slice(0, 24)}` });
      const proof: EmailChangeProof = {
        passwordCorrect: current !== '' && (await users.service.checkPassword(user.email, current)) !== null,
        recentlyReauthenticated: users.sessions.recentlyReauthenticated(session),
      };
      if (mayChangeEmail(proof)) await attempt.succeeded();
      try {
        await users.profile.changeEmail(user.id, email, proof, session.token_hash, whoOf(request));
      } catch (err) {
        if (!(err instanceof ApiError) || ![403, 409, 422].includes(err.status)) throw err;
        return sendPage(reply, await refused(request, err, { email }, 'email'), err.status);
      }
      return redirect(reply, '/dashboard/account?changed=email');
    });
  };
}
