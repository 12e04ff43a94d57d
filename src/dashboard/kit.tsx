/**
 * What a dashboard route uses: the hooks that resolve the session cookie, enforce CSRF and send
 * the security headers (`installDashboardHooks`), and the helpers a handler calls:
 *
 * - `sessionOf(request)`: the logged-in user and session (routes without `config.anonymous`
 *   never run without one: the hook sends the browser to the login page first);
 * - `kit.workspacePage(request, slug, action)`: the workspace of the address, the user's role
 *   there and the `Frame` for `<Layout>`; 404 when the user is not a member (other workspaces
 *   stay invisible), 403 when `can(role, action)` says no;
 * - `csrfFor(request, reply, secure)`: the token for `<CsrfField>` on pages without a session;
 * - `sendPage(reply, html, status)`, `redirect(reply, path)`; `HIDDEN` as every route's schema;
 * - `<DataTable>` and `<PostButton>`: a page's table of records and a record's one-button form.
 *
 * @example
 * app.get('/dashboard/w/:slug/things', { schema: HIDDEN }, async (request, reply) => {
 *   const page = await kit.workspacePage(request, request.params.slug, 'workspace.read');
 *   return sendPage(reply, <Layout frame={page.frame} title="Things" section="links">…</Layout>);
 * });
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../http/errors.js';
import type { Config } from '../config.js';
import type { UsersModule } from '../users/module.js';
import type { ResolvedSession } from '../users/sessions.js';
import type { UserRow } from '../users/store.js';
import type { WorkspaceService } from '../workspaces/service.js';
import type { WorkspaceRow } from '../workspaces/store.js';
import { can, type Action, type Role } from '../users/roles.js';
import { CSRF_COOKIE, DEVICE_COOKIE, SESSION_COOKIE, cookieHeader, readCookie } from './cookies.js';
import { CSRF_FIELD, CSRF_HEADER, assertCsrfToken, assertSameOrigin, csrfTokenFor } from './csrf.js';
import { CsrfField, TableWrap, type Frame } from './layout.js';
import type { Children } from '@kitajs/html';
import { whoOf, type Who } from '../audit/record.js';
import { DEVICE_MAX_AGE_MS } from '../users/devices.js';
import { creationRefusal } from '../workspaces/creation.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The dashboard's view of the request (null outside the dashboard's routes). */
    dashboard: { session: ResolvedSession | null; token?: string } | null;
  }
  interface FastifyContextConfig {
    /** A dashboard page that needs no login (login, setup, invitations). */
    anonymous?: boolean;
  }
}

/**
 * Headers of every dashboard answer: scripts and styles only from this server (no inline script
 * or style: htmx is told not to add its own), forms only to this server, never framed, no MIME
 * sniffing, the address not leaked to other sites, and pages with personal data never cached.
 */
export const DASHBOARD_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
});

export interface DashboardDeps {
  config: Config;
  users: UsersModule;
  workspaces: WorkspaceService;
}

export function sessionOf(request: FastifyRequest): ResolvedSession & { token: string } {
  const state = request.dashboard;
  if (!state?.session || !state.token) throw new ApiError('unauthorized', 'Log in to continue.');
  return { ...state.session, token: state.token };
}

/** The CSRF token for this request's forms; before login it seeds (and sets) the `wm_csrf` cookie. */
export function csrfFor(request: FastifyRequest, reply: FastifyReply, secure: boolean): string {
  if (request.dashboard?.token) return csrfTokenFor(request.dashboard.token);
  let seed = readCookie(request.headers.cookie, CSRF_COOKIE);
  if (!seed) {
    seed = randomBytes(24).toString('base64url');
    reply.header('set-cookie', cookieHeader(CSRF_COOKIE, seed, { secure }));
  }
  return csrfTokenFor(seed);
}

export function sendPage(reply: FastifyReply, html: string | Promise<string>, status = 200) {
  return reply.status(status).type('text/html; charset=utf-8').send(html);
}

/** 303 See Other: after a form, the browser loads `path` with GET. */
export function redirect(reply: FastifyReply, path: string) {
  return reply.status(303).header('location', path).send();
}

/**
 * A redirect that leaves the current page entirely (log out): an htmx request (`HX-Request`,
 * e.g. from a page loaded before its form opted out of boosting) gets `HX-Redirect`, which makes
 * htmx load the address as a full navigation instead of swapping it into the old body.
 */
export function fullRedirect(request: FastifyRequest, reply: FastifyReply, path: string) {
  if (request.headers['hx-request'] === 'true') return reply.status(200).header('hx-redirect', path).send('');
  return redirect(reply, path);
}

/** A `next` address that stays inside the dashboard (no `//evil.example`, no other host). */
export function safeNext(next: unknown): string {
  return typeof next === 'string' && /^\/dashboard(\/[^\\\s]*)?$/.test(next) && next.length < 2000 ? next : '/dashboard';
}

/** The session cookie's attributes: `Secure` on https, kept until the session's absolute end. */
export function sessionCookie(token: string, config: Config, maxAgeMs: number): string {
  return cookieHeader(SESSION_COOKIE, token, { secure: isSecure(config), maxAgeSeconds: maxAgeMs / 1000 });
}

/** The device cookie (users/devices.ts), kept as long as the token is valid. */
export function deviceCookie(token: string, config: Config): string {
  return cookieHeader(DEVICE_COOKIE, token, { secure: isSecure(config), maxAgeSeconds: DEVICE_MAX_AGE_MS / 1000 });
}

/**
 * Signs `user` in in this browser (a password login, the first-run setup, single sign-on): a new
 * session, the session and device cookies on `reply`. Sessions that expired unused are deleted
 * here: sign-ins are rare, and the index makes it cheap.
 */
export async function signInBrowser({ config, users }: Pick<DashboardDeps, 'config' | 'users'>, reply: FastifyReply, user: UserRow, options: { ssoIdToken?: string } = {}): Promise<void> {
  const { token } = await users.sessions.start(user.id, options);
  await users.sessions.sweep();
  reply.header('set-cookie', sessionCookie(token, config, users.sessions.settings.absoluteMs));
  reply.header('set-cookie', deviceCookie(users.service.deviceToken(user), config));
}

/** The device token this browser sent, if any. */
export const deviceCookieOf = (request: FastifyRequest): string | undefined => readCookie(request.headers.cookie, DEVICE_COOKIE);

export function clearSessionCookie(config: Config): string {
  return cookieHeader(SESSION_COOKIE, '', { secure: isSecure(config), maxAgeSeconds: 0 });
}

export const isSecure = (config: Config): boolean => config.baseUrl.startsWith('https:');

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Call inside the dashboard's encapsulated plugin: applies to its routes only. */
export function installDashboardHooks(app: FastifyInstance, { config, users }: DashboardDeps): void {
  const baseOrigin = new URL(config.baseUrl).origin.toLowerCase();

  // Bearer keys are the API's; dashboard routes authenticate by session instead (auth.ts skips
  // `public` routes). The reverse holds too: API routes never read the session cookie.
  app.addHook('onRoute', (route) => {
    route.config = { ...(route.config as object), public: true } as typeof route.config;
  });

  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_request, body, done) => {
    const fields: Record<string, string> = Object.create(null);
    for (const [k, v] of new URLSearchParams(body as string)) fields[k] = v;
    done(null, fields);
  });

  app.decorateRequest('dashboard', null);
  app.addHook('onRequest', async (request, reply) => {
    reply.headers(DASHBOARD_HEADERS);
    const token = readCookie(request.headers.cookie, SESSION_COOKIE);
    const session = token ? await users.sessions.resolve(token) : null;
    if (token && !session) reply.header('set-cookie', clearSessionCookie(config));
    request.dashboard = { session, token: session ? token : undefined };
    if (!session && !request.routeOptions.config.anonymous) {
      const next = request.method === 'GET' ? `?next=${encodeURIComponent(request.url)}` : '';
      return redirect(reply, `/dashboard/login${next}`);
    }
  });

  app.addHook('preValidation', async (request) => {
    if (!UNSAFE.has(request.method)) return;
    assertSameOrigin(request, new Set([baseOrigin, `${request.protocol}://${request.host}`.toLowerCase()]));
    const body = request.body as Record<string, unknown> | undefined;
    const sent = body?.[CSRF_FIELD] ?? request.headers[CSRF_HEADER];
    const secret = request.dashboard?.token ?? readCookie(request.headers.cookie, CSRF_COOKIE);
    assertCsrfToken(sent, secret);
  });
}

/** A workspace page's context: the workspace row, the role and the layout's frame. */
export interface WorkspacePage {
  workspace: WorkspaceRow;
  role: Role;
  userId: string;
  frame: Frame;
  /** The signed-in user and the client's address: what the page's changes are recorded as (audit/record.ts). */
  who: Who;
}

export function createKit({ config, users, workspaces }: DashboardDeps) {
  /** The frame's workspaces and whether its user may create one (the switcher's *New workspace*). */
  async function memberships(userId: string): Promise<Pick<Frame, 'workspaces' | 'mayCreateWorkspace'>> {
    const list = await users.service.workspacesOf(userId);
    return { workspaces: list, mayCreateWorkspace: creationRefusal(config.workspaceCreation, list) === null };
  }
  return {
    /** The frame of a page about the account (no workspace chosen). */
    async accountFrame(request: FastifyRequest): Promise<Frame> {
      const { user, token } = sessionOf(request);
      return { user: { name: user.name, email: user.email }, ...(await memberships(user.id)), csrf: csrfTokenFor(token) };
    },

    /** 404 unless the user is a member of `slug`; 403 unless their role may do `action` there. */
    async workspacePage(request: FastifyRequest, slug: string, action: Action = 'workspace.read'): Promise<WorkspacePage> {
      const { user, token } = sessionOf(request);
      const workspace = await workspaces.findWorkspace(slug);
      const role = workspace ? await users.service.roleOf(user.id, workspace.id) : undefined;
      if (!workspace || !role) throw new ApiError('not_found', 'Workspace not found.');
      if (!can(role, action)) throw new ApiError('forbidden', `Your role in this workspace (${role}) does not allow this.`);
      const frame: Frame = {
        user: { name: user.name, email: user.email },
        ...(await memberships(user.id)),
        workspace: { id: workspace.id, slug: workspace.slug, name: workspace.name },
        role,
        csrf: csrfTokenFor(token),
      };
      return { workspace, role, userId: user.id, frame, who: whoOf(request) };
    },
  };
}

export type Kit = ReturnType<typeof createKit>;

/** Every dashboard route's schema: pages are not part of the API's OpenAPI document. */
export const HIDDEN = { hide: true } as const;

/**
 * A service refusal as a form shows it: `{ <field>: message }` when the error names one of
 * `fields` (`ApiError.field`), else `{ form: message }`; parseInput's `field: ` prefix becomes
 * the field's name when the message needs a subject.
 */
export function fieldErrorOf(err: ApiError, fields: readonly string[]): Record<string, string> {
  const field = err.field && fields.includes(err.field) ? err.field : 'form';
  const message = err.message.replace(`${err.field}: `, '');
  // "is required" reads as "Name is required" under its field.
  return { [field]: /^[a-z]/.test(message) && field !== 'form' ? `${field[0]!.toUpperCase()}${field.slice(1)} ${message}` : message };
}

/** A column heading: its text, or `{ hidden }` for one read by screen readers only (an actions column). */
export type Column = string | { hidden: string };

/**
 * A page's table of records in its scrolling wrapper (a named, focusable region, so a keyboard can scroll it): the headings, then the rows it is given.
 *
 * @example
 * <DataTable label="Things" columns={['Name', { hidden: 'Actions' }]}>{rows.map((r) => <tr>…</tr>)}</DataTable>
 */
export function DataTable({ columns, label, class: className, children }: { columns: readonly Column[]; label: string; class?: string; children?: Children }): JSX.Element {
  return (
    <TableWrap label={label}>
      <table class={className}>
        <thead>
          <tr>
            {columns.map((c) =>
              typeof c === 'string' ? (
                <th scope="col" safe>
                  {c}
                </th>
              ) : (
                <th scope="col">
                  <span class="visually-hidden" safe>
                    {c.hidden}
                  </span>
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </TableWrap>
  );
}

/**
 * A one-button form that posts to `action` with the CSRF field: a record's Resume, Delete, Undo.
 * `confirm` (what is lost) asks first (links.js); `danger` marks a destructive one.
 */
export function PostButton({ action, csrf, label, danger, confirm, confirmButton }: { action: string; csrf: string; label: string; danger?: boolean; confirm?: string; confirmButton?: string }): JSX.Element {
  return (
    <form method="post" action={action} class="inline">
      <CsrfField token={csrf} />
      <button type="submit" class={danger ? 'danger' : undefined} data-confirm={confirm} data-confirm-button={confirmButton} safe>
        {label}
      </button>
    </form>
  );
}
