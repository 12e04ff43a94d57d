/**
 * Logging in and out, the first-run setup, the account's new password and the dashboard's entry
 * (`/dashboard` → the first workspace's links). The account page itself: routes/account.tsx.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { DashboardDeps, Kit } from '../kit.js';
import { HIDDEN, clearSessionCookie, csrfFor, deviceCookie, deviceCookieOf, fullRedirect, isSecure, redirect, safeNext, sendPage, sessionCookie, sessionOf, signInBrowser } from '../kit.js';
import { LeavingPage, LoginPage, SetupPage, type LoginSso } from '../pages/login.js';
import { AccountPage } from '../pages/account.js';
import { workspacePath } from '../layout.js';
import type { LoginLimiter } from '../login-limit.js';
import { ApiError } from '../../http/errors.js';
import type { SsoService } from '../../sso/service.js';

type Form = Record<string, string | undefined>;

export function sessionRoutes({ config, users, workspaces }: DashboardDeps, kit: Kit, limiter: LoginLimiter, sso?: SsoService): FastifyPluginAsync {
  const secure = isSecure(config);
  const anonymous = { anonymous: true } as const;
  // With OIDC_ONLY the password form shows only at /dashboard/login?password=1 (the break-glass password).
  const ssoOf = (query?: Form): LoginSso | undefined => (config.oidc ? { name: config.oidc.name, passwordHidden: config.oidc.only && query?.password !== '1' } : undefined);

  return async (app) => {
    app.get('/dashboard', { schema: HIDDEN }, async (request, reply) => {
      const { user } = sessionOf(request);
      const [first] = await users.service.workspacesOf(user.id);
      return redirect(reply, first ? workspacePath(first.slug, '/links') : '/dashboard/account');
    });

    app.get<{ Querystring: Form }>('/dashboard/login', { config: anonymous, schema: HIDDEN }, async (request, reply) => {
      const next = safeNext(request.query.next);
      if (request.dashboard?.session) return redirect(reply, next);
      return sendPage(reply, <LoginPage csrf={csrfFor(request, reply, secure)} next={next} forgot={users.passwordResets.enabled} sso={ssoOf(request.query)} />);
    });

    app.post<{ Body: Form }>('/dashboard/login', { config: anonymous, schema: HIDDEN }, async (request, reply) => {
      const email = String(request.body?.email ?? '').slice(0, 254);
      const password = String(request.body?.password ?? '').slice(0, 1024);
      const next = safeNext(request.body?.next);
      // Failures only count (login-limit.ts); a browser that logged in to this account before
      // counts on its own, so other clients' failures do not lock it out.
      const device = await users.service.knownDevice(email, deviceCookieOf(request));
      const attempt = await limiter.begin({ address: request.clientAddress, email, device });
      const user = await users.service.checkPassword(email, password);
      if (!user) {
        const page = <LoginPage csrf={csrfFor(request, reply, secure)} next={next} email={email} error="The email address or the password is wrong." forgot={users.passwordResets.enabled} sso={ssoOf({ password: '1' })} />;
        return sendPage(reply, page, 401);
      }
      await attempt.succeeded();
      await signInBrowser({ config, users }, reply, user);
      return redirect(reply, next);
    });

    app.post('/dashboard/logout', { config: anonymous, schema: HIDDEN }, async (request, reply) => {
      if (request.dashboard?.token) await users.sessions.revoke(request.dashboard.token);
      reply.header('set-cookie', clearSessionCookie(config));
      // A session from SSO also ends at the provider when it offers RP-initiated logout. A page that
      // moves on by itself (Refresh), not a redirect: the CSP's form-action would stop a form's redirect to another site.
      const idToken = request.dashboard?.session?.session.sso_id_token;
      const leave = idToken && sso ? await sso.endSessionUrl(idToken, `${config.baseUrl}/dashboard/login`) : null;
      if (leave && config.oidc) {
        if (request.headers['hx-request'] === 'true') return reply.status(200).header('hx-redirect', leave).send('');
        return sendPage(reply.header('refresh', `0;url=${leave}`), <LeavingPage url={leave} name={config.oidc.name} />);
      }
      return fullRedirect(request, reply, '/dashboard/login');
    });

    app.post('/dashboard/logout-everywhere', { schema: HIDDEN }, async (request, reply) => {
      await users.sessions.revokeAll(sessionOf(request).user.id);
      reply.header('set-cookie', clearSessionCookie(config));
      return fullRedirect(request, reply, '/dashboard/login');
    });

    // A new password ends every session of the account; this browser gets a new one.
    app.post<{ Body: Form }>('/dashboard/account/password', { schema: HIDDEN }, async (request, reply) => {
      const { user, session } = sessionOf(request);
      // Guesses of the current password count for this session alone.
      const attempt = await limiter.begin({ address: request.clientAddress, email: user.email, device: `session-${session.token_hash.slice(0, 24)}` });
      const current = String(request.body?.current ?? '').slice(0, 1024);
      const refuse = async (status: number, error: string) => sendPage(reply, <AccountPage frame={await kit.accountFrame(request)} error={error} />, status);
      if (!(await users.service.checkPassword(user.email, current))) return refuse(403, 'The current password is wrong.');
      await attempt.succeeded();
      try {
        await users.service.setPassword(user.id, String(request.body?.password ?? ''));
      } catch (err) {
        if (err instanceof ApiError && err.status === 422) return refuse(422, err.message);
        throw err;
      }
      await users.sessions.revokeAll(user.id);
      const { token } = await users.sessions.start(user.id);
      reply.header('set-cookie', sessionCookie(token, config, users.sessions.settings.absoluteMs));
      // The new password voided every device token of the account; this browser gets a new one.
      const changed = await users.service.findById(user.id);
      if (changed) reply.header('set-cookie', deviceCookie(users.service.deviceToken(changed), config));
      return redirect(reply, '/dashboard/account?changed=password');
    });

    app.get<{ Querystring: Form }>('/setup', { config: anonymous, schema: HIDDEN }, async (request, reply) => {
      const token = String(request.query.token ?? '');
      if (!(await users.service.setupTokenUsable(token))) throw new ApiError('not_found', 'This setup address is unknown or has already been used. Log in instead.');
      return sendPage(reply, <SetupPage csrf={csrfFor(request, reply, secure)} token={token} />);
    });

    app.post<{ Body: Form }>('/setup', { config: anonymous, schema: HIDDEN }, async (request, reply) => {
      const body = request.body ?? {};
      const token = String(body.token ?? '');
      const input = { email: String(body.email ?? ''), name: String(body.name ?? ''), password: String(body.password ?? '') };
      const workspace = (await workspaces.listWorkspaces())[0] ?? (await workspaces.createWorkspace({ name: 'Default workspace', slug: 'default' }));
      let user;
      try {
        user = await users.service.completeSetup(token, input, workspace.id);
      } catch (err) {
        if (!(err instanceof ApiError) || err.status !== 422) throw err;
        const page = <SetupPage csrf={csrfFor(request, reply, secure)} token={token} values={input} error={err.message} />;
        return sendPage(reply, page, 422);
      }
      await signInBrowser({ config, users }, reply, user);
      return redirect(reply, workspacePath(workspace.slug, '/links'));
    });
  };
}
