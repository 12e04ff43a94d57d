/**
 * Every mutating route writes exactly one audit entry, with the right actor. The cases are keyed by
 * route, and the route list comes from the app itself (`/openapi.json` for the API, the registered
 * routes for the dashboard's forms): a new mutating route with neither a case here nor a reason
 * in EXEMPT fails the first two tests.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import type { LightMyRequestResponse } from 'fastify';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { addUser, logIn, slugOf, type Browser } from '../dashboard/testing.js';
import { newId } from '../ids.js';

/** Mutating routes that write no entry, and why. */
const EXEMPT: Record<string, string> = {
  'POST /track/lead': 'a conversion is data the event log records, not a change of the workspace',
  'POST /track/sale': 'a conversion is data the event log records, not a change of the workspace',
  'POST /dashboard/login': 'signing in changes no workspace (sessions: users/sessions.ts)',
  'POST /dashboard/logout': 'signing out changes no workspace',
  'POST /dashboard/logout-everywhere': 'signing out changes no workspace',
  'POST /dashboard/account/password': "a person's own account belongs to no workspace",
  'POST /setup': 'first run: the operator creates the first owner before any workspace log has a reader',
  'POST /dashboard/forgot': 'asking for a reset link changes no workspace (and must not say whether the address has an account)',
  'POST /dashboard/reset': "a person's own password belongs to no workspace",
  'POST /mcp': 'carries MCP tool calls, each a service call that writes its own entry (create_link is a link.create by the key: mcp/mcp.test.ts)',
  'POST /dashboard/w/:slug/settings/integrations/:provider/events/:eventId/retry': 'records a provider\'s sale or lead again: a conversion, like /track/sale',
  'POST /integrations/:provider/:workspaceId': "a payment provider's signed delivery: conversions, like /track/sale; each is in the integration's own event log",
  'POST /dashboard/w/:slug/links/preview-fetch': "reads a destination's page for the builder's preview fields; saves nothing",
};

let t: TestApp;
let owner: { id: string; email: string; password: string };
let browser: Browser;
let slug: string;
let keyId: string;
const uniq = () => randomBytes(4).toString('hex');

before(async () => {
  t = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_INTERVAL_MS: '60000' } });
  owner = await addUser(t, 'owner');
  browser = await logIn(t, owner);
  slug = await slugOf(t);
  keyId = (await t.ctx.workspaces.listKeys(t.workspaceId))[0]!.id;
});
after(() => t.close());

async function api(method: string, url: string, payload?: unknown): Promise<LightMyRequestResponse> {
  const res = await t.inject({ method: method as 'POST', url, ...(payload === undefined ? {} : { payload: payload as object }) });
  assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
  return res;
}
const link = async () => (await api('POST', '/links', { url: `https://example.com/${uniq()}` })).json().id as string;
const tag = async () => (await api('POST', '/tags', { name: `tag-${uniq()}` })).json().id as string;
const utmTemplate = async () => (await t.modules.utmTemplates.service.create(t.workspaceId, { name: `utm-${uniq()}`, utm_source: 'news' }, null)).id;
const folder = async () => (await api('POST', '/folders', { name: `folder-${uniq()}` })).json().id as string;
const domain = async () => (await api('POST', '/domains', { slug: `d${uniq()}.example.com` })).json() as { id: string; slug: string };
const webhook = async () => (await api('POST', '/webhooks', { name: 'hook', url: 'http://127.0.0.1:9/hook', triggers: ['link.created'] })).json().id as string;
async function customer(): Promise<string> {
  const id = newId('cus');
  const at = Date.now();
  await t.ctx.database.db
    .insertInto('customers')
    .values({ id, workspace_id: t.workspaceId, name: 'C', email: null, avatar: null, country: null, processor_customer_id: null, external_id: uniq(), click_id: null, link_id: null, sales: 0, sale_amount: 0, first_sale_at: null, created_at: at, updated_at: at })
    .execute();
  return id;
}
async function member(): Promise<string> {
  return (await addUser(t, 'viewer')).id;
}
/** A member whose account single sign-on made (no password). */
async function ssoMember(): Promise<string> {
  const id = await member();
  await t.ctx.database.db.updateTable('users').set({ password_hash: 'none' }).where('id', '=', id).execute();
  return id;
}
async function invitation(): Promise<string> {
  return (await t.modules.users.invitations.invite(t.workspaceId, { email: `i-${uniq()}@example.com`, role: 'viewer' }, owner.id)).invitation.id;
}

interface Case {
  action: string;
  actor: 'api_key' | 'user';
  send(): Promise<LightMyRequestResponse>;
  /** The workspace whose log gets the entry, when not the harness's (read after `send`). */
  workspaceId?: () => Promise<string>;
  /** The actor's id, when not the owner's or the key's. */
  actorId?: string;
}
type Maker = () => Promise<Case>;
const viaKey = (action: string, method: string, url: string, payload?: unknown): Case => ({ action, actor: 'api_key', send: () => api(method, url, payload) });
const viaForm = (action: string, url: string, fields: Record<string, string> = {}): Case => ({
  action,
  actor: 'user',
  async send() {
    await browser.get(`/dashboard/w/${slug}/settings/general`); // a fresh CSRF field
    const res = await browser.post(url.replace(':slug', slug), fields);
    assert.ok(res.statusCode < 400, `${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
    return res;
  },
});

/** A bio page of the workspace, made without an audit entry: its id. */
async function bioPage(): Promise<string> {
  const made = await t.modules.bio.service.save(t.workspaceId, null, { handle: `b${uniq()}`, title: 'Bio', domain: t.ctx.config.shortDomain, theme: 'light' });
  assert.ok(made.ok, JSON.stringify(made));
  return made.page.id;
}

/** An import over the API that completed: its id. */
async function finishedImport(): Promise<string> {
  const res = await t.inject({ method: 'POST', url: '/links/import', headers: { 'content-type': 'text/csv' }, payload: `url,key\nhttps://example.com/u1,undo-${uniq()}\n` });
  assert.equal(res.statusCode, 200, res.body);
  return (res.json() as { importId: string }).importId;
}

/** An import whose file arrived and whose process then died (it never heartbeats again): its id. */
async function interruptedImport(): Promise<string> {
  const { jobs } = t.modules.imports.runner;
  const job = await jobs.begin(t.workspaceId, { source: 'api', contentType: 'text/csv', mapping: {}, createdBy: null });
  writeFileSync(job.spoolPath!, `url,key\nhttps://example.com/r1,resume-${uniq()}\n`);
  await jobs.uploaded(job.id);
  await t.ctx.database.db.updateTable('import_jobs').set({ heartbeat_at: 0 }).where('id', '=', job.id).execute();
  return job.id;
}

const API: Record<string, Maker> = {
  'PATCH /workspaces/{idOrSlug}': async () => viaKey('workspace.update', 'PATCH', `/workspaces/${t.workspaceId}`, { name: `WS ${uniq()}` }),
  'POST /tags': async () => viaKey('tag.create', 'POST', '/tags', { name: `t-${uniq()}` }),
  'PATCH /tags/{id}': async () => viaKey('tag.update', 'PATCH', `/tags/${await tag()}`, { name: `t-${uniq()}` }),
  'DELETE /tags/{id}': async () => viaKey('tag.delete', 'DELETE', `/tags/${await tag()}`),
  'POST /folders': async () => viaKey('folder.create', 'POST', '/folders', { name: `f-${uniq()}` }),
  'PATCH /folders/{id}': async () => viaKey('folder.update', 'PATCH', `/folders/${await folder()}`, { name: `f-${uniq()}` }),
  'DELETE /folders/{id}': async () => viaKey('folder.delete', 'DELETE', `/folders/${await folder()}`),
  'POST /domains': async () => viaKey('domain.create', 'POST', '/domains', { slug: `n${uniq()}.example.com` }),
  'PATCH /domains/{slug}': async () => viaKey('domain.update', 'PATCH', `/domains/${(await domain()).slug}`, { notFoundUrl: 'https://example.com/nf' }),
  'DELETE /domains/{slug}': async () => viaKey('domain.delete', 'DELETE', `/domains/${(await domain()).slug}`),
  'POST /links': async () => viaKey('link.create', 'POST', '/links', { url: 'https://example.com/a' }),
  'PUT /links/upsert': async () => viaKey('link.create', 'PUT', '/links/upsert', { url: `https://example.com/up-${uniq()}` }),
  'POST /links/bulk': async () => viaKey('links.bulk_create', 'POST', '/links/bulk', [{ url: 'https://example.com/b1' }, { url: 'https://example.com/b2' }]),
  'PATCH /links/bulk': async () => viaKey('links.bulk_update', 'PATCH', '/links/bulk', { linkIds: [await link(), await link()], data: { archived: true } }),
  'DELETE /links/bulk': async () => viaKey('links.bulk_delete', 'DELETE', `/links/bulk?linkIds=${await link()},${await link()}`),
  'PATCH /links/{linkId}': async () => viaKey('link.update', 'PATCH', `/links/${await link()}`, { title: 'New title' }),
  'PATCH /links/{linkId}/ab-test/settings': async () => viaKey('ab_test.update', 'PATCH', `/links/${await link()}/ab-test/settings`, { metric: 'sales' }),
  'DELETE /links/{linkId}': async () => viaKey('link.delete', 'DELETE', `/links/${await link()}`),
  'POST /links/import': async () => ({
    action: 'links.import',
    actor: 'api_key',
    send: async () => {
      const res = await t.inject({ method: 'POST', url: '/links/import', headers: { 'content-type': 'text/csv' }, payload: `url,key\nhttps://example.com/i1,imp-${uniq()}\nhttps://example.com/i2,imp-${uniq()}\n` });
      assert.equal(res.statusCode, 200, res.body);
      return res;
    },
  }),
  'POST /imports/{importId}/resume': async () => {
    const id = await interruptedImport();
    return { action: 'links.import', actor: 'api_key', send: () => api('POST', `/imports/${id}/resume`) };
  },
  'POST /imports/{importId}/undo': async () => viaKey('links.import_undo', 'POST', `/imports/${await finishedImport()}/undo`),
  'PATCH /customers/{id}': async () => viaKey('customer.update', 'PATCH', `/customers/${await customer()}`, { name: 'Renamed' }),
  'DELETE /customers/{id}': async () => viaKey('customer.delete', 'DELETE', `/customers/${await customer()}`),
  'POST /webhooks': async () => viaKey('webhook.create', 'POST', '/webhooks', { name: 'h', url: 'http://127.0.0.1:9/h', triggers: ['link.created'] }),
  'PATCH /webhooks/{webhookId}': async () => viaKey('webhook.update', 'PATCH', `/webhooks/${await webhook()}`, { name: 'renamed' }),
  'DELETE /webhooks/{webhookId}': async () => viaKey('webhook.delete', 'DELETE', `/webhooks/${await webhook()}`),
  'POST /webhooks/{webhookId}/test': async () => viaKey('webhook.test', 'POST', `/webhooks/${await webhook()}/test`, { trigger: 'link.created' }),
  'POST /webhooks/{webhookId}/deliveries/{deliveryId}/redeliver': async () => {
    const hook = await webhook();
    const delivery = (await api('POST', `/webhooks/${hook}/test`, { trigger: 'link.created' })).json().id as string;
    return viaKey('webhook.redeliver', 'POST', `/webhooks/${hook}/deliveries/${delivery}/redeliver`);
  },
};

/** A form sent by a member of the harness's workspace alone (their account's entries land in its log only). */
async function byLoneMember(action: string, url: string, fields: (m: { email: string; password: string }) => Record<string, string>): Promise<Case> {
  const m = await addUser(t, 'member');
  const own = await logIn(t, m);
  return {
    action,
    actor: 'user',
    actorId: m.id,
    async send() {
      await own.get('/dashboard/account');
      const res = await own.post(url, fields(m));
      assert.equal(res.statusCode, 303, `${url}: ${res.body.slice(0, 300)}`);
      return res;
    },
  };
}

const FORMS: Record<string, Maker> = {
  'POST /dashboard/workspaces/new': async () => {
    const newSlug = `made-${uniq()}`;
    return {
      action: 'workspace.create',
      actor: 'user',
      async send() {
        await browser.get('/dashboard/workspaces/new');
        const res = await browser.post('/dashboard/workspaces/new', { name: 'Made here', slug: newSlug });
        assert.equal(res.statusCode, 303, res.body.slice(0, 300));
        return res;
      },
      workspaceId: async () => (await t.ctx.workspaces.findWorkspace(newSlug))!.id,
    };
  },
  'POST /dashboard/account/name': () => byLoneMember('user.update', '/dashboard/account/name', () => ({ name: `Renamed ${uniq()}` })),
  'POST /dashboard/account/email': () => byLoneMember('user.update', '/dashboard/account/email', (m) => ({ email: `moved-${uniq()}@example.com`, current: m.password })),
  'POST /dashboard/invite': async () => {
    const { token } = await t.modules.users.invitations.invite(t.workspaceId, { email: `j-${uniq()}@example.com`, role: 'viewer' }, owner.id);
    return {
      action: 'member.join',
      actor: 'user',
      async send() {
        const fresh = new (browser.constructor as new (t: TestApp) => Browser)(t);
        await fresh.get(`/dashboard/invite?token=${token}`);
        const res = await fresh.post('/dashboard/invite', { token, name: 'Jo', password: 'correct horse battery' });
        assert.equal(res.statusCode, 303, res.body.slice(0, 300));
        return res;
      },
    };
  },
  'POST /dashboard/w/:slug/settings/members/invite': async () => viaForm('invitation.create', '/dashboard/w/:slug/settings/members/invite', { email: `k-${uniq()}@example.com`, role: 'member' }),
  'POST /dashboard/w/:slug/settings/members/:id/role': async () => viaForm('member.role', `/dashboard/w/:slug/settings/members/${await member()}/role`, { role: 'member' }),
  'POST /dashboard/w/:slug/settings/members/:id/password': async () => viaForm('member.password', `/dashboard/w/:slug/settings/members/${await ssoMember()}/password`, { allowed: 'true' }),
  'POST /dashboard/w/:slug/settings/members/:id/remove': async () => viaForm('member.remove', `/dashboard/w/:slug/settings/members/${await member()}/remove`),
  'POST /dashboard/w/:slug/settings/invitations/:id/revoke': async () => viaForm('invitation.revoke', `/dashboard/w/:slug/settings/invitations/${await invitation()}/revoke`),
  'POST /dashboard/w/:slug/links/:id/delete': async () => viaForm('link.delete', `/dashboard/w/:slug/links/${await link()}/delete`),
  'POST /dashboard/w/:slug/links/:id/archive': async () => viaForm('link.update', `/dashboard/w/:slug/links/${await link()}/archive`, { archived: 'true' }),
  'POST /dashboard/w/:slug/links/bulk': async () => viaForm('links.bulk_update', '/dashboard/w/:slug/links/bulk', { op: 'archive', [`sel_${await link()}`]: 'on', [`sel_${await link()}`]: 'on' }),
  'POST /dashboard/w/:slug/links/new': async () => viaForm('link.create', '/dashboard/w/:slug/links/new', { url: 'https://example.com/form', key: `form-${uniq()}` }),
  'POST /dashboard/w/:slug/links/:id/edit': async () => viaForm('link.update', `/dashboard/w/:slug/links/${await link()}/edit`, { url: 'https://example.com/edited' }),
  'POST /dashboard/w/:slug/links/:id/ab-test/settings': async () => viaForm('ab_test.update', `/dashboard/w/:slug/links/${await link()}/ab-test/settings`, { metric: 'revenue', onInconclusive: 'stop' }),
  'POST /dashboard/w/:slug/settings/general': async () => viaForm('workspace.update', '/dashboard/w/:slug/settings/general', { name: `Named ${uniq().slice(0, 4)}`, slug }),
  'POST /dashboard/w/:slug/settings/domains': async () => viaForm('domain.create', '/dashboard/w/:slug/settings/domains', { slug: `f${uniq()}.example.com` }),
  'POST /dashboard/w/:slug/settings/domains/:id': async () => viaForm('domain.update', `/dashboard/w/:slug/settings/domains/${(await domain()).slug}`, { notFoundUrl: 'https://example.com/gone' }),
  'POST /dashboard/w/:slug/settings/domains/:id/check': async () => {
    const d = await domain();
    await t.ctx.database.db.updateTable('domains').set({ verified: 0 }).where('id', '=', d.id).execute();
    return viaForm('domain.verify', `/dashboard/w/:slug/settings/domains/${d.slug}/check`);
  },
  'POST /dashboard/w/:slug/settings/tags': async () => viaForm('tag.create', '/dashboard/w/:slug/settings/tags', { name: `ft-${uniq()}` }),
  'POST /dashboard/w/:slug/settings/tags/:id/rename': async () => viaForm('tag.update', `/dashboard/w/:slug/settings/tags/${await tag()}/rename`, { name: `ft-${uniq()}` }),
  'POST /dashboard/w/:slug/settings/tags/:id/delete': async () => viaForm('tag.delete', `/dashboard/w/:slug/settings/tags/${await tag()}/delete`),
  'POST /dashboard/w/:slug/settings/bio': async () => viaForm('bio_page.create', '/dashboard/w/:slug/settings/bio', { handle: `b${uniq()}`, title: 'Bio', domain: t.ctx.config.shortDomain, theme: 'light' }),
  'POST /dashboard/w/:slug/settings/bio/:id': async () => viaForm('bio_page.update', `/dashboard/w/:slug/settings/bio/${await bioPage()}`, { handle: `b${uniq()}`, title: 'Bio again', domain: t.ctx.config.shortDomain, theme: 'dark' }),
  'POST /dashboard/w/:slug/settings/bio/:id/delete': async () => viaForm('bio_page.delete', `/dashboard/w/:slug/settings/bio/${await bioPage()}/delete`),
  'POST /dashboard/w/:slug/settings/utm': async () => viaForm('utm_template.create', '/dashboard/w/:slug/settings/utm', { name: `fu-${uniq()}`, utm_source: 'news' }),
  'POST /dashboard/w/:slug/settings/utm/:id/delete': async () => viaForm('utm_template.delete', `/dashboard/w/:slug/settings/utm/${await utmTemplate()}/delete`),
  'POST /dashboard/w/:slug/settings/folders': async () => viaForm('folder.create', '/dashboard/w/:slug/settings/folders', { name: `ff-${uniq()}` }),
  'POST /dashboard/w/:slug/settings/folders/:id/rename': async () => viaForm('folder.update', `/dashboard/w/:slug/settings/folders/${await folder()}/rename`, { name: `ff-${uniq()}` }),
  'POST /dashboard/w/:slug/settings/folders/:id/delete': async () => viaForm('folder.delete', `/dashboard/w/:slug/settings/folders/${await folder()}/delete`),
  'POST /dashboard/w/:slug/settings/keys': async () => viaForm('api_key.create', '/dashboard/w/:slug/settings/keys', { name: 'form key', access: 'all' }),
  'POST /dashboard/w/:slug/settings/keys/:id/revoke': async () => {
    const { id } = await t.ctx.workspaces.createKey(t.workspaceId, { name: 'to revoke' });
    return viaForm('api_key.revoke', `/dashboard/w/:slug/settings/keys/${id}/revoke`);
  },
  'POST /dashboard/w/:slug/settings/webhooks': async () => viaForm('webhook.create', '/dashboard/w/:slug/settings/webhooks', { name: 'fh', url: 'http://127.0.0.1:9/fh', 'trigger_link.created': 'on' }),
  'POST /dashboard/w/:slug/settings/webhooks/:id/enable': async () => {
    const id = await webhook();
    await api('POST', `/webhooks/${id}`).catch(() => undefined);
    await t.ctx.database.db.updateTable('webhooks').set({ disabled_at: Date.now() }).where('id', '=', id).execute();
    return viaForm('webhook.update', `/dashboard/w/:slug/settings/webhooks/${id}/enable`);
  },
  'POST /dashboard/w/:slug/settings/integrations/:provider': async () => viaForm('integration.secret_set', '/dashboard/w/:slug/settings/integrations/stripe', { secret: 'whsec_audit' }),
  'POST /dashboard/w/:slug/settings/integrations/:provider/remove': async () => {
    await t.modules.integrations.service.setSecret(t.workspaceId, 'paddle', 'pdl_audit');
    return viaForm('integration.remove', '/dashboard/w/:slug/settings/integrations/paddle/remove');
  },
  'POST /dashboard/w/:slug/settings/webhooks/:id/edit': async () =>
    viaForm('webhook.update', `/dashboard/w/:slug/settings/webhooks/${await webhook()}/edit`, { name: 'edited', url: 'http://127.0.0.1:9/edited', 'trigger_link.clicked': 'on', linkScope: 'workspace' }),
  'POST /dashboard/w/:slug/settings/webhooks/:id/disable': async () => viaForm('webhook.disable', `/dashboard/w/:slug/settings/webhooks/${await webhook()}/disable`),
  'POST /dashboard/w/:slug/settings/webhooks/:id/delete': async () => viaForm('webhook.delete', `/dashboard/w/:slug/settings/webhooks/${await webhook()}/delete`),
  'POST /dashboard/w/:slug/links/imports/:importId/:action': async () => viaForm('links.import_undo', `/dashboard/w/:slug/links/imports/${await finishedImport()}/undo`),
  'POST /dashboard/w/:slug/links/import': async () => ({
    action: 'links.import',
    actor: 'user',
    async send() {
      await browser.get(`/dashboard/w/${slug}/links/import`);
      const boundary = `b${uniq()}`;
      const part = (name: string, value: string, filename?: string) =>
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"` : ''}\r\n${filename ? 'Content-Type: text/csv\r\n' : ''}\r\n${value}\r\n`;
      const payload = part('_csrf', browser.csrf) + part('file', `url,key\nhttps://example.com/d1,dimp-${uniq()}\n`, 'links.csv') + `--${boundary}--\r\n`;
      const res = await t.app.inject({
        method: 'POST',
        url: `/dashboard/w/${slug}/links/import`,
        headers: { cookie: [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; '), 'content-type': `multipart/form-data; boundary=${boundary}`, origin: 'http://localhost:3999' },
        payload,
      });
      assert.equal(res.statusCode, 200, res.body.slice(0, 300));
      return res;
    },
  }),
};

async function mutatingApiRoutes(): Promise<string[]> {
  const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, Record<string, unknown>> };
  return Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).filter((m) => ['post', 'put', 'patch', 'delete'].includes(m)).map((m) => `${m.toUpperCase()} ${path}`));
}
const dashboardForms = () => t.routes.filter((r) => r.hidden && r.method === 'POST').map((r) => `POST ${r.url}`);

async function check(route: string, make: Maker, actorId: () => string): Promise<void> {
  const c = await make();
  const before = new Set((await t.ctx.database.db.selectFrom('audit_log').select('id').execute()).map((r) => r.id));
  await c.send();
  // The new entries by id (not the newest: ids made in one millisecond sort at random).
  const added = (await t.ctx.database.db.selectFrom('audit_log').selectAll().execute()).filter((r) => !before.has(r.id));
  assert.equal(added.length, 1, `${route}: exactly one entry (got ${added.map((e) => e.action).join(', ') || 'none'})`);
  const e = added[0]!;
  assert.equal(e.action, c.action, route);
  assert.equal(e.workspace_id, c.workspaceId ? await c.workspaceId() : t.workspaceId, route);
  assert.equal(e.actor_type, c.actor, route);
  if (c.action !== 'member.join') assert.equal(e.actor_id, c.actorId ?? actorId(), route);
  assert.ok(JSON.parse(e.target_ids).length >= (c.action === 'links.import' ? 0 : 1), `${route}: target ids`);
}

test('every mutating API route of /openapi.json has a case or a reason', async () => {
  for (const route of await mutatingApiRoutes()) assert.ok(API[route] || EXEMPT[route], `${route}: add an audit case to coverage.test.ts (or a reason to EXEMPT)`);
});

test('every dashboard form has a case or a reason', () => {
  for (const route of dashboardForms()) assert.ok(FORMS[route] || EXEMPT[route], `${route}: add an audit case to coverage.test.ts (or a reason to EXEMPT)`);
});

test('each mutating API route writes exactly one entry, its actor the API key', async () => {
  for (const route of await mutatingApiRoutes()) {
    const make = API[route];
    if (make) await check(route, make, () => keyId);
  }
});

test('each dashboard form writes exactly one entry, its actor the signed-in user', async () => {
  for (const route of dashboardForms()) {
    const make = FORMS[route];
    if (make) await check(route, make, () => owner.id);
  }
});

test('exempt routes are really routes (no stale reasons)', async () => {
  const all = new Set([...(await mutatingApiRoutes()), ...dashboardForms()]);
  for (const route of Object.keys(EXEMPT)) assert.ok(all.has(route), `${route} is exempt but no longer a route`);
});
