/**
 * Test helpers for the dashboard: a tiny browser over `app.inject` that keeps cookies and reads
 * the CSRF field of the last page, and users created straight through the users service.
 *
 * @example
 * const owner = await addUser(t, 'owner');
 * const browser = await logIn(t, owner);
 * const page = await browser.get(`/dashboard/w/${slug}/links`);
 * await browser.post(`/dashboard/w/${slug}/settings/members/invite`, { email: 'bo@example.com', role: 'viewer' });
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import type { TestApp } from '../test-support/harness.js';
import type { Role } from '../users/roles.js';

export interface TestUser {
  id: string;
  email: string;
  password: string;
}

/** A user with a role in `workspaceId` (default: the harness's workspace). */
export async function addUser(t: TestApp, role: Role, workspaceId = t.workspaceId, name = 'Test user'): Promise<TestUser> {
  const email = `u-${randomBytes(4).toString('hex')}@example.com`;
  const password = 'correct horse battery';
  const user = await t.modules.users.service.createWithMembership({ email, name, password }, workspaceId, role, undefined);
  return { id: user.id, email, password };
}

export class Browser {
  readonly cookies = new Map<string, string>();
  /** The CSRF token of the last page that had a form. */
  csrf = '';
  constructor(private readonly t: TestApp) {}

  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private keep(res: LightMyRequestResponse): LightMyRequestResponse {
    const set = res.headers['set-cookie'];
    for (const line of set === undefined ? [] : Array.isArray(set) ? set : [set]) {
      const [pair, ...attrs] = line.split(';');
      const [name, value] = pair!.split('=');
      if (attrs.some((a) => a.trim() === 'Max-Age=0')) this.cookies.delete(name!);
      else this.cookies.set(name!, value!);
    }
    const field = /name="_csrf" value="([^"]+)"/.exec(res.body);
    if (field) this.csrf = field[1]!;
    return res;
  }

  async get(url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    return this.keep(await this.t.app.inject({ method: 'GET', url, headers: { cookie: this.cookieHeader(), ...headers } }));
  }

  /** Posts a form; the CSRF field of the last page is added unless `fields._csrf` is given (null: none). */
  async post(url: string, fields: Record<string, string | null> = {}, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    const form = new URLSearchParams();
    if (!('_csrf' in fields)) form.set('_csrf', this.csrf);
    for (const [k, v] of Object.entries(fields)) if (v !== null) form.set(k, v);
    const res = await this.t.app.inject({
      method: 'POST',
      url,
      headers: { cookie: this.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded', ...headers },
      payload: form.toString(),
    });
    return this.keep(res);
  }
}

/** Logs `user` in through the login form; asserts it worked. */
export async function logIn(t: TestApp, user: { email: string; password: string }): Promise<Browser> {
  const browser = new Browser(t);
  await browser.get('/dashboard/login');
  const res = await browser.post('/dashboard/login', { email: user.email, password: user.password });
  assert.equal(res.statusCode, 303, res.body);
  assert.ok(browser.cookies.has('wm_session'));
  return browser;
}

/** The slug of the harness's workspace. */
export async function slugOf(t: TestApp, workspaceId = t.workspaceId): Promise<string> {
  return (await t.ctx.workspaces.findWorkspace(workspaceId))!.slug;
}

/** A workspace's slug and a signed-in browser for each role: the setup the dashboard's page tests share. */
export interface EveryRole {
  slug: string;
  owner: Browser;
  member: Browser;
  viewer: Browser;
}

/**
 * Signs in an owner, a member and a viewer of the test app's workspace.
 *
 * @example
 * before(async () => { t = await createTestApp(); ({ slug, owner, member, viewer } = await signInEveryRole(t)); });
 */
export async function signInEveryRole(t: TestApp): Promise<EveryRole> {
  const slug = await slugOf(t);
  const owner = await logIn(t, await addUser(t, 'owner'));
  const member = await logIn(t, await addUser(t, 'member'));
  const viewer = await logIn(t, await addUser(t, 'viewer'));
  return { slug, owner, member, viewer };
}

/** A link as `GET /links/{id}` answers it (200 asserted). */
export async function apiLink(t: TestApp, id: string, headers = t.headers) {
  const res = await t.app.inject({ method: 'GET', url: `/links/${id}`, headers });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

/** A link made through `POST /links` (200 asserted). */
export async function createLink(t: TestApp, body: Record<string, unknown>, headers = t.headers): Promise<{ id: string; key: string; domain: string }> {
  const res = await t.app.inject({ method: 'POST', url: '/links', headers, payload: body });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

/** The link id of the edit page the builder's create redirected to. */
export function createdId(location: string | undefined): string {
  const m = /\/links\/(link_\w+)\/edit\?saved=created$/.exec(location ?? '');
  assert.ok(m, `redirect to the edit page, got ${location}`);
  return m[1]!;
}
