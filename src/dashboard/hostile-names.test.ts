/**
 * Every dashboard route, rendered with hostile values in every field a person, an API client, a
 * visitor or an imported file controls (test-support/hostile-html.ts: each value is
 * `"'><x-hostile-N>`). A page fails when a marker becomes markup or its `<` stands unescaped, and
 * each page must show the fields listed for it (escaped), so "escaped" is told apart from
 * "absent". The routes come from the dashboard plugin itself: a route no case reaches fails the
 * last test by name.
 *
 * Values the API refuses (a domain or a slug with `<`, a URL with a quote) are written straight to
 * the database: the page must escape whatever a row holds (an import, a migration, a rule changed
 * later), not rely on validation.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { HostileNames, inspectHtml } from '../test-support/hostile-html.js';
import { insertClick, insertLink, type FixtureLink } from '../test-support/conversions.js';
import { newId } from '../ids.js';
import { hit, insertLink as insertShortLink } from '../redirect/testing.js';
import { Browser, addUser, logIn } from './testing.js';

const h = new HostileNames();
const enc = encodeURIComponent;

// One value per field; the name is what a failure reports.
const V = {
  workspaceName: h.value('workspace name'),
  workspaceSlug: h.value('workspace slug'),
  userName: h.value('user name'),
  auditActor: h.value('audit actor id'),
  auditIp: h.value('audit address'),
  auditTarget: h.value('audit target id'),
  auditChange: h.value('audit change'),
  auditFilter: h.value('audit filter'),
  userEmail: h.value('user email'),
  viewerName: h.value('viewer name'),
  inviteEmail: h.value('invitation email'),
  tag: h.value('tag name'),
  folder: h.value('folder name'),
  domain: h.value('domain'),
  domainNotFound: h.value('domain not-found URL'),
  domainPlaceholder: h.value('domain placeholder URL'),
  domainExpired: h.value('domain expired URL'),
  linkKey: h.value('link key'),
  linkUrl: h.value('link URL'),
  linkTitle: h.value('link title'),
  linkDescription: h.value('link description'),
  linkComments: h.value('link comments'),
  linkImage: h.value('link image URL'),
  linkExpiredUrl: h.value('link expired URL'),
  linkIos: h.value('link iOS URL'),
  linkAndroid: h.value('link Android URL'),
  linkGeoUrl: h.value('link geo URL'),
  linkVariantUrl: h.value('link A/B variant URL'),
  linkPassword: h.value('link password'),
  linkUtmSource: h.value('link utm_source'),
  linkUtmMedium: h.value('link utm_medium'),
  linkUtmCampaign: h.value('link utm_campaign'),
  linkUtmTerm: h.value('link utm_term'),
  linkUtmContent: h.value('link utm_content'),
  linkExternalId: h.value('link externalId'),
  country: h.value('click country'),
  city: h.value('click city'),
  region: h.value('click region'),
  device: h.value('click device'),
  browser: h.value('click browser'),
  os: h.value('click OS'),
  referer: h.value('click referer'),
  refererUrl: h.value('click referer URL'),
  clickUtmSource: h.value('click utm_source'),
  clickUtmMedium: h.value('click utm_medium'),
  clickUtmCampaign: h.value('click utm_campaign'),
  clickUtmTerm: h.value('click utm_term'),
  clickUtmContent: h.value('click utm_content'),
  leadName: h.value('lead event name'),
  saleName: h.value('sale event name'),
  invoiceId: h.value('sale invoice id'),
  customerName: h.value('customer name'),
  customerEmail: h.value('customer email'),
  customerExternalId: h.value('customer externalId'),
  customerCountry: h.value('customer country'),
  keyName: h.value('API key name'),
  webhookName: h.value('webhook name'),
  webhookUrl: h.value('webhook URL'),
  deliveryEvent: h.value('webhook delivery event'),
  deliveryError: h.value('webhook delivery error'),
  utmTemplateName: h.value('UTM template name'),
  integrationEventId: h.value('integration event id'),
  integrationEventType: h.value('integration event type'),
  integrationMessage: h.value('integration outcome message'),
  utmTemplateValue: h.value('UTM template utm_campaign'),
  // Typed into forms or the address bar (shown back on the answer).
  search: h.value('links search'),
  customerSearch: h.value('customers search'),
  filter: h.value('analytics filter'),
  timezone: h.value('analytics time zone'),
  keyCheckDomain: h.value('key check domain'),
  keyCheckKey: h.value('key check key'),
  builderUrl: h.value('builder url'),
  builderKey: h.value('builder key'),
  builderTitle: h.value('builder title'),
  builderDescription: h.value('builder description'),
  builderUtm: h.value('builder utm_source'),
  builderGeo: h.value('builder geo country'),
  builderImage: h.value('builder image'),
  loginEmail: h.value('login email'),
  setupEmail: h.value('setup email'),
  setupName: h.value('setup name'),
  inviteeName: h.value('invitee name'),
  inviteFormEmail: h.value('invite form email'),
  generalName: h.value('general form name'),
  newWorkspaceName: h.value('new workspace form name'),
  newWorkspaceSlug: h.value('new workspace form slug'),
  profileName: h.value('account form name'),
  profileEmail: h.value('account form email'),
  newDomain: h.value('new domain form'),
  newTag: h.value('new tag form'),
  newKeyName: h.value('new API key name'),
  newWebhookName: h.value('new webhook name'),
  newUtmTemplate: h.value('new UTM template name'),
  bioTitle: h.value('bio page title'),
  bioText: h.value('bio page bio'),
  newBioHandle: h.value('new bio page handle'),
  importKey: h.value('import key'),
  importTitle: h.value('import title'),
  importTag: h.value('import tag'),
  importUrl: h.value('import url'),
  path: h.value('address path'),
  shortQuery: h.value('short-link request query'),
  shortHost: h.value('short-link Host header'),
  emptyWorkspaceName: h.value('name of a workspace without links'),
  webhookScopeName: h.value('link.clicked webhook name'),
};

let t: TestApp;
let owner: Browser;
let viewer: Browser;
let anonymous: Browser;
let link: FixtureLink;
let base: string;
let customerId: string;
let webhookId: string;
/** The app's address once a test made it listen (real HTTP for the short domain's pages). */
let listening: string | undefined;
let inviteToken: string;
let utmTemplateId: string;

/** Every request made, with its route pattern, for the coverage check. */
const reached = new Set<string>();
const failures: string[] = [];

before(async () => {
  t = await createTestApp();
  const db = t.database.db;
  const now = Date.now();
  // The setup page answers only while no user exists: it is checked before any is added.
  await db.updateTable('workspaces').set({ name: V.workspaceName, slug: V.workspaceSlug }).where('id', '=', t.workspaceId).execute();
  const setupToken = (await t.modules.users.service.issueSetupToken())!;
  const setup = new Browser(t);
  await get(setup, `/setup?token=${enc(setupToken)}`, { status: 200 });
  await post(setup, '/setup', { token: setupToken, email: V.setupEmail, name: V.setupName, password: 'short' }, { status: 422, shows: ['setupEmail', 'setupName'] });
  await get(setup, `/setup?token=${enc(V.path)}`, { status: 404 });

  base = `/dashboard/w/${enc(V.workspaceSlug)}`;

  const ownerUser = await addUser(t, 'owner', t.workspaceId, V.userName);
  const viewerUser = await addUser(t, 'viewer', t.workspaceId, V.viewerName);
  owner = await logIn(t, ownerUser);
  viewer = await logIn(t, viewerUser);
  // Logins look the address up by its key; the address shown is the stored one.
  await db.updateTable('users').set({ email: V.userEmail }).where('id', '=', ownerUser.id).execute();
  anonymous = new Browser(t);

  const invited = await t.modules.users.invitations.invite(t.workspaceId, { email: 'invitee@example.com', role: 'viewer' }, ownerUser.id);
  inviteToken = invited.token;
  await db.updateTable('invitations').set({ email: V.inviteEmail }).where('id', '=', invited.invitation.id).execute();

  const api = async (method: 'POST' | 'PATCH', url: string, payload: object) => {
    const res = await t.inject({ method, url, payload });
    assert.ok(res.statusCode < 300, `${method} ${url}: ${res.body}`);
    return res.json();
  };
  const tag = await api('POST', '/tags', { name: V.tag });
  await api('POST', '/folders', { name: V.folder });

  await db
    .insertInto('domains')
    .values({
      id: newId('dom', now), workspace_id: t.workspaceId, slug: V.domain, verified: 0, primary: 0, archived: 0,
      placeholder: `https://example.com/${V.domainPlaceholder}`, expired_url: `https://example.com/${V.domainExpired}`, not_found_url: `https://example.com/${V.domainNotFound}`,
      logo: null, asset_links: null, apple_app_site_association: null, created_at: now, updated_at: now,
    })
    .execute();

  link = await insertLink(t, {
    domain: V.domain, key: V.linkKey, short_link: `https://${V.domain}/${V.linkKey}`, url: `https://example.com/?q=${V.linkUrl}`,
    title: V.linkTitle, description: V.linkDescription, comments: V.linkComments, image: `https://example.com/${V.linkImage}`,
    expired_url: `https://example.com/${V.linkExpiredUrl}`, ios: `https://example.com/${V.linkIos}`, android: `https://example.com/${V.linkAndroid}`,
    geo: JSON.stringify({ DE: `https://example.com/${V.linkGeoUrl}` }),
    test_variants: JSON.stringify([{ url: `https://example.com/${V.linkVariantUrl}`, percentage: 50 }, { url: 'https://example.com/b', percentage: 50 }]),
    password: V.linkPassword, utm_source: V.linkUtmSource, utm_medium: V.linkUtmMedium, utm_campaign: V.linkUtmCampaign, utm_term: V.linkUtmTerm,
    utm_content: V.linkUtmContent, external_id: V.linkExternalId, public_stats: 1,
  });
  await db.insertInto('link_tags').values({ link_id: link.id, tag_id: tag.id, workspace_id: t.workspaceId, position: 0 }).execute();

  const click = await insertClick(t, link, {
    country: V.country, city: V.city, region: V.region, device: V.device, browser: V.browser, os: V.os, referer: V.referer,
    referer_url: `https://example.com/${V.refererUrl}`, utm_source: V.clickUtmSource, utm_medium: V.clickUtmMedium,
    utm_campaign: V.clickUtmCampaign, utm_term: V.clickUtmTerm, utm_content: V.clickUtmContent,
  });
  await api('POST', '/track/lead', {
    clickId: click.click_id, eventName: V.leadName, customerExternalId: V.customerExternalId, customerName: V.customerName,
    customerEmail: 'customer@example.com', mode: 'wait',
  });
  await api('POST', '/track/sale', { customerExternalId: V.customerExternalId, amount: 1200, eventName: V.saleName, invoiceId: V.invoiceId });
  const customer = await db.selectFrom('customers').select('id').where('workspace_id', '=', t.workspaceId).executeTakeFirstOrThrow();
  customerId = customer.id;
  await db.updateTable('customers').set({ email: V.customerEmail, country: V.customerCountry }).where('id', '=', customerId).execute();

  await t.ctx.workspaces.createKey(t.workspaceId, { name: V.keyName });

  utmTemplateId = newId('utm', now);
  await db
    .insertInto('utm_templates')
    .values({
      id: utmTemplateId, workspace_id: t.workspaceId, name: V.utmTemplateName, name_key: V.utmTemplateName.toLowerCase(), utm_source: 'news',
      utm_medium: null, utm_campaign: V.utmTemplateValue, utm_term: null, utm_content: null, created_by: null, created_at: now,
    })
    .execute();

  await db
    .insertInto('integration_events')
    .values({ workspace_id: t.workspaceId, provider: 'stripe', event_id: V.integrationEventId, type: V.integrationEventType, outcome: 'skipped', message: V.integrationMessage, payload: '{}', received_at: now })
    .execute();

  webhookId = newId('wh', now);
  await db
    .insertInto('webhooks')
    .values({
      id: webhookId, workspace_id: t.workspaceId, name: V.webhookName, url: `https://example.com/${V.webhookUrl}`, secret: 'whsec_test',
      triggers: '["link.created"]', link_scope: null, link_ids: '[]', folder_ids: '[]', disabled_at: null, consecutive_failures: 0, created_at: now, updated_at: now,
    })
    .execute();
  await db
    .insertInto('webhook_deliveries')
    .values({
      id: newId('whd', now), webhook_id: webhookId, workspace_id: t.workspaceId, event_id: 'evt_1', event: V.deliveryEvent, body: '{}', attempts: 1,
      next_attempt_at: null, delivered_at: null, status_code: 500, latency_ms: 10, error: V.deliveryError, created_at: now,
    })
    .execute();
});
after(() => t.close());

/** The registered route a concrete address reaches (static segments beat parameters, wildcards last). */
function routeOf(method: string, url: string): string {
  const path = url.split('?')[0]!;
  const candidates = t.modules.dashboard.registered
    .filter((r) => r.method === method)
    .filter((r) => new RegExp(`^${r.url.replace(/[.]/g, '\\.').replace(/:[^/]+/g, '[^/]+').replace(/\*/g, '.*')}$`).test(path))
    .sort((a, b) => score(b.url) - score(a.url));
  return candidates[0] ? `${method} ${candidates[0].url}` : `${method} (no route) ${path}`;
}
const score = (pattern: string) => pattern.split('/').filter((s) => s && !s.startsWith(':') && s !== '*').length * 10 - (pattern.includes('*') ? 5 : 0);

interface Expect {
  status: number;
  /** Fields whose marker the answer must display (escaped). */
  shows?: (keyof typeof V)[];
}

/** Checks one answer: no marker as markup, the listed fields shown, headers of a page. */
function check(label: string, res: Pick<LightMyRequestResponse, 'statusCode' | 'body'> & { headers: Record<string, unknown> }, expect: Expect) {
  const where = `${label} (${res.statusCode})`;
  if (res.statusCode !== expect.status) failures.push(`${where}: expected status ${expect.status}; ${res.body.slice(0, 200)}`);
  const type = String(res.headers['content-type'] ?? '');
  if (res.statusCode >= 300 && res.statusCode < 400) {
    const location = String(res.headers.location ?? '');
    if (!location.startsWith('/') || location.startsWith('//')) failures.push(`${where}: redirects off the site to ${location}`);
    if (res.body) failures.push(`${where}: a redirect with a body`);
    return;
  }
  if (!type.startsWith('text/html')) {
    if (res.headers['x-content-type-options'] !== 'nosniff') failures.push(`${where}: ${type} without nosniff`);
    return;
  }
  const report = inspectHtml(res.body);
  for (const p of report.problems) failures.push(`${where}: ${h.fieldOf(p.marker)} ${p.problem}: …${p.context}…`);
  for (const field of expect.shows ?? []) {
    const n = markerOf(field);
    if (!report.shown.has(n)) failures.push(`${where}: does not show ${h.fieldOf(n)}`);
  }
}
const markerOf = (field: keyof typeof V) => Number(/x-hostile-(\d+)/.exec(V[field])![1]);

async function get(who: Browser, url: string, expect: Expect, label = url) {
  reached.add(routeOf('GET', url));
  check(`GET ${label}`, await who.get(url), expect);
}

async function post(who: Browser, url: string, fields: Record<string, string>, expect: Expect, label = url) {
  reached.add(routeOf('POST', url));
  check(`POST ${label}`, await who.post(url, fields), expect);
}

const FRAME: (keyof typeof V)[] = ['workspaceName', 'userName'];

test('the first-run setup (checked before any user exists), login and invitation pages', async () => {
  await get(anonymous, '/dashboard/login', { status: 200 });
  await get(anonymous, `/dashboard/login?next=${enc(`/dashboard/${V.path}`)}`, { status: 200 });
  await post(anonymous, '/dashboard/login', { email: V.loginEmail, password: 'wrong password', next: `/dashboard/${V.path}` }, { status: 401, shows: ['loginEmail'] });
  // Password resets need mail (SMTP_URL, unset here): the pages answer 404 (src/mail/mail.test.ts covers them with mail).
  await get(anonymous, '/dashboard/forgot', { status: 404 });
  await post(anonymous, '/dashboard/forgot', { email: V.loginEmail }, { status: 404 });
  await get(anonymous, `/dashboard/reset?token=${enc(V.path)}`, { status: 404 });
  await post(anonymous, '/dashboard/reset', { token: V.path, password: 'a long new password' }, { status: 404 });

  const guest = new Browser(t);
  await get(guest, `/dashboard/invite?token=${enc(inviteToken)}`, { status: 200, shows: ['workspaceName', 'inviteEmail'] });
  await post(guest, '/dashboard/invite', { token: inviteToken, name: V.inviteeName, password: 'short' }, { status: 422, shows: ['workspaceName', 'inviteEmail', 'inviteeName'] });
  await get(owner, `/dashboard/invite?token=${enc(inviteToken)}`, { status: 200, shows: ['workspaceName', 'inviteEmail'] });
  await get(guest, `/dashboard/invite?token=${enc(V.path)}`, { status: 404 });
  await post(guest, '/dashboard/invite', { token: V.path }, { status: 404 });
  assert.deepEqual(failures.splice(0), []);
});

test('account, links, the link builder and its key check', async () => {
  await get(owner, '/dashboard', { status: 303 });
  await get(owner, '/dashboard/account', { status: 200, shows: ['userName', 'userEmail', 'workspaceName'] });
  await post(owner, '/dashboard/account/password', { current: 'wrong', password: 'x' }, { status: 403, shows: ['userName', 'userEmail'] });
  await post(owner, '/dashboard/account/name', { name: V.profileName.repeat(8) }, { status: 422, shows: ['userName', 'userEmail', 'profileName'] });
  await post(owner, '/dashboard/account/email', { email: V.profileEmail, current: 'wrong' }, { status: 403, shows: ['userName', 'profileEmail'] });
  await get(owner, '/dashboard/workspaces/new', { status: 200, shows: ['userName', 'workspaceName'] });
  await post(owner, '/dashboard/workspaces/new', { name: V.newWorkspaceName, slug: V.newWorkspaceSlug }, { status: 422, shows: ['workspaceName', 'newWorkspaceName', 'newWorkspaceSlug'] });
  await get(viewer, '/dashboard/workspaces/new', { status: 403, shows: ['viewerName', 'workspaceName'] });

  const links = `${base}/links`;
  const linkShows: (keyof typeof V)[] = [...FRAME, 'domain', 'linkKey', 'linkTitle', 'linkUrl', 'tag', 'folder'];
  await get(owner, links, { status: 200, shows: linkShows });
  await get(viewer, links, { status: 200, shows: ['workspaceName', 'viewerName', 'domain', 'linkKey', 'linkTitle', 'linkUrl', 'tag', 'folder'] });
  await get(owner, `${links}?search=${enc(V.search)}&domain=${enc(V.domain)}`, { status: 200, shows: ['search', 'domain'] });
  await post(owner, `${links}/${enc(V.path)}/archive`, { archived: 'true' }, { status: 404 });
  await post(owner, `${links}/${enc(V.path)}/delete`, {}, { status: 404 });
  await post(viewer, `${links}/${enc(link.id)}/delete`, {}, { status: 403 });
  await post(owner, `${links}/bulk`, { op: 'archive', back: V.path, [`sel_${link.id}`]: 'on' }, { status: 303 });
  await post(owner, `${links}/bulk`, { op: 'unarchive', back: V.path, [`sel_${link.id}`]: 'on' }, { status: 303 });
  await post(owner, `${links}/bulk`, { op: V.path }, { status: 422 });
  await post(owner, `${links}/bulk`, { op: 'delete', back: V.path }, { status: 303 });
  await get(owner, `${links}?empty=1&search=${enc(V.search)}`, { status: 200, shows: ['search'] });
  // "Add tag" without a tag: back to the list, the sentence at the tag's list.
  await post(owner, `${links}/bulk`, { op: 'tag', tagId: '', back: `search=${V.search}`, [`sel_${link.id}`]: 'on' }, { status: 303 });
  await get(owner, `${links}?missing=tag&search=${enc(V.search)}`, { status: 200, shows: ['search', 'tag'] });
  // The read-only page of one link (viewers' way in; the edit address sends them there).
  await get(viewer, `${links}/${enc(link.id)}`, {
    status: 200,
    shows: ['workspaceName', 'viewerName', 'domain', 'linkKey', 'linkUrl', 'linkTitle', 'linkDescription', 'linkExpiredUrl', 'linkIos', 'linkAndroid', 'linkGeoUrl', 'linkUtmSource', 'linkUtmTerm', 'linkComments', 'tag'],
  });
  await get(owner, `${links}/${enc(link.id)}`, { status: 200, shows: [...FRAME, 'linkKey', 'linkTitle'] });
  await get(viewer, `${links}/${enc(link.id)}/edit`, { status: 303 });
  await get(viewer, `${links}/${enc(V.path)}`, { status: 404 });
  // A workspace without links: the getting-started steps, under its hostile name.
  const empty = await t.addWorkspace();
  await t.database.db.updateTable('workspaces').set({ name: V.emptyWorkspaceName }).where('id', '=', empty.workspaceId).execute();
  const fresh = await logIn(t, await addUser(t, 'owner', empty.workspaceId, V.userName));
  const emptySlug = (await t.ctx.workspaces.findWorkspace(empty.workspaceId))!.slug;
  await get(fresh, `/dashboard/w/${enc(emptySlug)}/links`, { status: 200, shows: ['emptyWorkspaceName', 'userName'] });

  await get(owner, `${links}/new`, { status: 200, shows: [...FRAME, 'domain', 'folder', 'tag', 'utmTemplateName', 'utmTemplateValue'] });
  await get(owner, `${links}/new?utmTemplate=${enc(utmTemplateId)}`, { status: 200, shows: ['utmTemplateName', 'utmTemplateValue'] });
  await get(owner, `${links}/new?utmTemplate=${enc(V.path)}`, { status: 404, shows: ['utmTemplateName'] });
  await get(viewer, `${links}/new`, { status: 403 });
  const typed = {
    url: V.builderUrl, key: V.builderKey, title: V.builderTitle, description: V.builderDescription, utm_source: V.builderUtm,
    geo_country_0: V.builderGeo, geo_url_0: V.builderUrl, image: V.builderImage, domain: V.domain, folderId: V.path,
  };
  await post(owner, `${links}/preview-fetch`, typed, { status: 422, shows: ['builderTitle', 'builderDescription', 'builderImage'] });
  await post(owner, `${links}/new`, typed, { status: 422, shows: ['builderUrl', 'builderKey', 'builderTitle', 'builderDescription', 'builderUtm', 'builderGeo', 'builderImage', 'domain', 'folder', 'tag'] });

  const edit = `${links}/${enc(link.id)}/edit`;
  await get(owner, edit, {
    status: 200,
    shows: [...FRAME, 'domain', 'linkKey', 'linkUrl', 'linkTitle', 'linkDescription', 'linkImage', 'linkExpiredUrl', 'linkIos', 'linkAndroid', 'linkGeoUrl', 'linkVariantUrl', 'linkUtmSource', 'linkUtmTerm', 'folder', 'tag'],
  });
  // After a save: the notice and the summary print the short link (domain and key) again.
  await get(owner, `${edit}?saved=created`, { status: 200, shows: ['domain', 'linkKey', 'linkTitle'] });
  await get(owner, `${edit}?saved=${enc(V.path)}`, { status: 422 });
  await post(owner, edit, typed, { status: 422, shows: ['builderUrl', 'builderTitle', 'domain', 'folder', 'tag'] });
  await get(owner, `${links}/${enc(V.path)}/edit`, { status: 404 });
  await get(owner, `${edit}?utmTemplate=${enc(utmTemplateId)}`, { status: 200, shows: ['utmTemplateName', 'utmTemplateValue', 'linkTitle'] });

  // The refusal names the domain typed; a key with `<` is refused without repeating it.
  await get(owner, `${links}/key-check?domain=${enc(V.keyCheckDomain)}&key=${enc(V.keyCheckKey)}`, { status: 200, shows: ['keyCheckDomain'] });
  await get(owner, `${links}/key-check?domain=${enc(V.domain)}&key=${enc(V.keyCheckKey)}`, { status: 200 });
  await get(owner, `${links}/key-check?domain=${enc(V.domain)}&key=${enc(V.linkKey)}&linkId=${enc(link.id)}`, { status: 200 });
  assert.deepEqual(failures.splice(0), []);
});

test('analytics, events, customers and public stats', async () => {
  const cards: (keyof typeof V)[] = ['linkTitle', 'country', 'city', 'device', 'browser', 'os', 'referer', 'clickUtmSource', 'clickUtmMedium', 'clickUtmCampaign', 'clickUtmTerm', 'clickUtmContent'];
  for (const who of [owner, viewer]) {
    await get(who, `${base}/analytics?interval=all`, { status: 200, shows: ['workspaceName', ...cards, 'tag', 'folder'] });
  }
  const filters = ['country', 'city', 'device', 'browser', 'os', 'referer', 'utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content']
    .map((f) => `${f}=${enc(V.filter)}`)
    .join('&');
  await get(owner, `${base}/analytics?interval=all&${filters}`, { status: 200, shows: ['filter'] });
  await get(owner, `${base}/analytics?timezone=${enc(V.timezone)}`, { status: 200, shows: ['timezone'] });
  // Sorted by revenue, the link filter's chip (the link's title), compare and the page's export.
  await get(owner, `${base}/analytics?interval=all&sort=saleAmount&linkId=${enc(link.id)}`, { status: 200, shows: ['linkTitle'] });
  await get(viewer, `${base}/analytics/compare?by=links&interval=all&id=${enc(link.id)}&id=${enc(V.path)}`, { status: 200, shows: ['linkTitle'] });
  await get(viewer, `${base}/analytics/compare?by=campaigns&interval=all&id=${enc(V.clickUtmCampaign)}`, { status: 200, shows: ['clickUtmCampaign'] });
  await get(viewer, `${base}/analytics/compare?by=tags&interval=all`, { status: 200, shows: ['tag'] });
  // The link picker: what is typed, and the links it finds (their domain and key).
  await get(owner, `${base}/analytics?interval=all&linkSearch=${enc(V.search)}&show=countries`, { status: 200, shows: ['search', 'country'] });
  await get(viewer, `${base}/analytics/link-options?linkSearch=&linkId=${enc(V.path)}`, { status: 200, shows: ['domain', 'linkKey'] });

  await get(owner, `${base}/events?event=clicks`, { status: 200, shows: [...FRAME, 'linkTitle', 'country', 'device', 'referer', 'folder'] });
  await get(owner, `${base}/events?event=clicks&linkId=${enc(link.id)}&linkSearch=${enc(V.search)}`, { status: 200, shows: ['linkTitle', 'search'] });
  await get(owner, `${base}/events?event=leads`, { status: 200, shows: ['leadName', 'customerName'] });
  await get(viewer, `${base}/events?event=sales`, { status: 200, shows: ['saleName', 'customerName'] });
  await get(owner, `${base}/customers`, { status: 200, shows: [...FRAME, 'customerName', 'customerEmail', 'customerCountry'] });
  await get(owner, `${base}/customers?search=${enc(V.customerSearch)}`, { status: 200, shows: ['customerSearch'] });
  await get(owner, `${base}/customers?sortBy=saleAmount&sortOrder=asc&search=${enc(V.customerSearch)}`, { status: 200, shows: ['customerSearch'] });
  await get(viewer, `${base}/customers?sortBy=${enc(V.path)}&sortOrder=${enc(V.path)}`, { status: 200, shows: ['customerName', 'customerEmail'] });
  await get(viewer, `${base}/customers/${enc(customerId)}`, {
    status: 200,
    shows: ['customerName', 'customerEmail', 'customerExternalId', 'customerCountry', 'linkKey', 'leadName', 'saleName'],
  });
  await get(owner, `${base}/customers/${enc(V.path)}`, { status: 404 });
  await get(viewer, `${base}/customers/${enc(customerId)}/journey`, {
    status: 200,
    shows: ['customerName', 'domain', 'linkKey', 'leadName', 'saleName', 'country', 'referer'],
  });
  await get(owner, `${base}/customers/${enc(V.path)}/journey`, { status: 404 });
  await get(viewer, `${base}/links/${enc(link.id)}/ab-test?metric=sales`, { status: 200, shows: ['domain', 'linkKey', 'linkVariantUrl'] });
  await get(owner, `${base}/links/${enc(V.path)}/ab-test`, { status: 404 });
  await get(owner, `${base}/links/${enc(link.id)}/ab-test`, { status: 200, shows: ['domain', 'linkKey', 'linkVariantUrl'] });
  await post(owner, `${base}/links/${enc(link.id)}/ab-test/settings`, { metric: V.path, onInconclusive: V.path }, { status: 422 });
  await post(owner, `${base}/links/${enc(V.path)}/ab-test/settings`, { metric: 'sales', onInconclusive: 'stop' }, { status: 404 });

  const stats = `/stats/${enc(V.domain)}/${enc(V.linkKey)}`;
  await get(anonymous, `${stats}?interval=all`, { status: 200, shows: ['domain', 'linkKey', 'country', 'device', 'browser', 'referer'] });
  await get(anonymous, `/stats/${enc(V.path)}/${enc(V.path)}`, { status: 404 });
  assert.deepEqual(failures.splice(0), []);
});

test('settings: general, domains, tags, folders, keys, webhooks, integrations, members', async () => {
  const s = `${base}/settings`;
  await get(owner, s, { status: 303 });
  await get(owner, `${s}/general`, { status: 200, shows: [...FRAME, 'workspaceSlug'] });
  await get(viewer, `${s}/general`, { status: 200, shows: ['workspaceName', 'workspaceSlug'] });
  await post(owner, `${s}/general`, { name: `${V.generalName}${'x'.repeat(40)}`, slug: V.generalName }, { status: 422, shows: ['generalName'] });

  await get(owner, `${s}/domains`, { status: 200, shows: ['domain', 'domainNotFound'] });
  await get(viewer, `${s}/domains`, { status: 200, shows: ['domain', 'domainNotFound'] });
  await post(owner, `${s}/domains`, { slug: V.newDomain }, { status: 422 });
  await post(owner, `${s}/domains/${enc(V.domain)}`, { notFoundUrl: V.newDomain }, { status: 422, shows: ['domain'] });
  await post(owner, `${s}/domains/${enc(V.path)}/check`, {}, { status: 404 });

  for (const kind of ['tags', 'folders'] as const) {
    const name = kind === 'tags' ? 'tag' : 'folder';
    await get(owner, `${s}/${kind}`, { status: 200, shows: [name] });
    await get(viewer, `${s}/${kind}`, { status: 200, shows: [name] });
    await post(owner, `${s}/${kind}`, { name: `${V.newTag}${'x'.repeat(200)}` }, { status: 422, shows: [name] });
    await post(owner, `${s}/${kind}/${enc(V.path)}/rename`, { name: V.newTag }, { status: 404 });
    // A refused rename comes back at the item's own form, with what was typed.
    const [item] = kind === 'tags' ? await t.database.db.selectFrom('tags').select('id').where('workspace_id', '=', t.workspaceId).execute() : await t.database.db.selectFrom('folders').select('id').where('workspace_id', '=', t.workspaceId).execute();
    await post(owner, `${s}/${kind}/${enc(item!.id)}/rename`, { name: `${V.newTag}${'x'.repeat(200)}`, color: V.path }, { status: 422, shows: [name] });
    await post(owner, `${s}/${kind}/${enc(V.path)}/delete`, {}, { status: 404 });
  }

  await get(owner, `${s}/utm`, { status: 200, shows: ['utmTemplateName', 'utmTemplateValue'] });
  await get(viewer, `${s}/utm`, { status: 200, shows: ['utmTemplateName', 'utmTemplateValue'] });
  await post(owner, `${s}/utm`, { name: V.newUtmTemplate, utm_source: 'x'.repeat(191) }, { status: 422, shows: ['utmTemplateName', 'newUtmTemplate'] });
  await post(owner, `${s}/utm/${enc(V.path)}/delete`, {}, { status: 404 });

  await get(viewer, `${s}/keys`, { status: 200, shows: ['keyName'] });
  await post(owner, `${s}/keys`, { name: V.newKeyName, access: 'all' }, { status: 201, shows: ['keyName', 'newKeyName'] });
  await post(owner, `${s}/keys/${enc(V.path)}/revoke`, {}, { status: 404 });

  await get(owner, `${s}/webhooks`, { status: 200, shows: ['webhookName', 'webhookUrl'] });
  await post(owner, `${s}/webhooks`, { name: V.newWebhookName, url: V.newWebhookName }, { status: 422, shows: ['webhookName', 'newWebhookName'] });
  // The link picker lists the link (key, title, URL) and the folder; a choice with a hostile id is refused at its field.
  await post(
    owner,
    `${s}/webhooks`,
    { name: V.webhookScopeName, url: 'https://hooks.example.com/x', 'trigger_link.clicked': 'on', linkScope: 'links', [`link_${V.path}`]: 'on' },
    { status: 422, shows: ['webhookName', 'webhookScopeName', 'linkKey', 'linkTitle', 'folder'] },
  );
  await get(viewer, `${s}/webhooks/${enc(webhookId)}`, { status: 200, shows: ['webhookName', 'webhookUrl', 'deliveryEvent', 'deliveryError'] });
  // The edit page: the webhook's name and URL in its fields, the picker's links and folder; refused as typed.
  await get(owner, `${s}/webhooks/${enc(webhookId)}/edit`, { status: 200, shows: ['webhookName', 'webhookUrl', 'linkKey', 'linkTitle', 'folder'] });
  await post(
    owner,
    `${s}/webhooks/${enc(webhookId)}/edit`,
    { name: V.webhookScopeName, url: 'https://hooks.example.com/x', 'trigger_link.clicked': 'on', linkScope: 'links', [`link_${V.path}`]: 'on' },
    { status: 422, shows: ['webhookName', 'webhookScopeName', 'linkKey', 'linkTitle', 'folder'] },
  );
  for (const action of ['enable', 'disable', 'delete', 'edit']) await post(owner, `${s}/webhooks/${enc(V.path)}/${action}`, {}, { status: 404 });
  await get(owner, `${s}/webhooks/${enc(V.path)}/edit`, { status: 404 });
  await get(owner, `${s}/webhooks/${enc(V.path)}`, { status: 404 });

  for (const who of [owner, viewer]) await get(who, `${s}/integrations`, { status: 200, shows: ['integrationEventId', 'integrationEventType', 'integrationMessage'] });
  await post(viewer, `${s}/integrations/stripe`, { secret: 'whsec_x' }, { status: 403 });
  await post(owner, `${s}/integrations/stripe`, { secret: `${V.integrationMessage} x` }, { status: 422, shows: ['integrationEventId'] });
  await post(owner, `${s}/integrations/stripe`, { secret: V.integrationMessage }, { status: 303 });
  await post(owner, `${s}/integrations/${enc(V.path)}`, { secret: 'whsec_x' }, { status: 404 });
  await post(owner, `${s}/integrations/stripe/events/${enc(V.integrationEventId)}/retry`, {}, { status: 200, shows: ['integrationEventId'] });
  await post(owner, `${s}/integrations/stripe/events/${enc(V.path)}/retry`, {}, { status: 404 });
  await post(owner, `${s}/integrations/stripe/remove`, {}, { status: 303 });

  await get(owner, `${s}/members`, { status: 200, shows: ['userName', 'userEmail', 'viewerName', 'inviteEmail'] });
  await post(owner, `${s}/members/invite`, { email: V.inviteFormEmail, role: 'viewer' }, { status: 422, shows: ['inviteFormEmail'] });
  await post(owner, `${s}/members/${enc(V.path)}/role`, { role: 'viewer' }, { status: 404 });
  await post(owner, `${s}/members/${enc(V.path)}/remove`, {}, { status: 404 });
  // A single sign-on account (no password) of a hostile name: its allow and withdraw buttons name it.
  const ssoUser = await addUser(t, 'viewer', t.workspaceId, V.viewerName);
  await t.database.db.updateTable('users').set({ password_hash: 'none' }).where('id', '=', ssoUser.id).execute();
  await get(owner, `${s}/members`, { status: 200, shows: ['viewerName'] });
  await post(owner, `${s}/members/${enc(ssoUser.id)}/password`, { allowed: 'true' }, { status: 303 });
  await get(owner, `${s}/members`, { status: 200, shows: ['viewerName'] });
  await post(owner, `${s}/members/${enc(V.path)}/password`, { allowed: 'true' }, { status: 404 });
  await post(owner, `${s}/invitations/${enc(V.path)}/revoke`, {}, { status: 404 });

  // The audit log shows what its entries hold (written straight: an actor, a target, changes, an address).
  await t.database.db
    .insertInto('audit_log')
    .values({ id: newId('aud'), workspace_id: t.workspaceId, at: Date.now(), actor_type: 'user', actor_id: V.auditActor, ip: V.auditIp, action: 'tag.update', target_type: 'tag', target: V.auditTarget, target_ids: JSON.stringify([V.auditTarget]), changes: JSON.stringify({ name: V.auditChange }) })
    .execute();
  await get(owner, `${s}/audit`, { status: 200, shows: [...FRAME, 'auditActor', 'auditIp', 'auditTarget', 'auditChange', 'newKeyName'] });
  await get(owner, `${s}/audit?actor=${enc(V.auditFilter)}`, { status: 422, shows: ['auditFilter'] });
  await get(viewer, `${s}/audit`, { status: 403 });
  await get(owner, `${s}/audit.csv`, { status: 200 });
  assert.deepEqual(failures.splice(0), []);
});

test('bio pages: the editor, its preview and the public page', async () => {
  const s = `${base}/settings/bio`;
  const db = t.database.db;
  const pageId = newId('bio');
  await db.insertInto('bio_pages').values({ id: pageId, workspace_id: t.workspaceId, domain: 'go.test', handle: 'hostile', handle_key: 'hostile', root_domain: null, title: V.bioTitle, bio: V.bioText, avatar: null, theme: 'dark', socials: '{}', views: 0, created_at: Date.now(), updated_at: Date.now() }).execute();
  await db.insertInto('bio_page_links').values({ page_id: pageId, link_id: link.id, position: 0 }).execute();
  await get(owner, s, { status: 200, shows: FRAME });
  await get(owner, `${s}?page=${enc(pageId)}`, { status: 200, shows: ['bioTitle', 'bioText', 'linkTitle'] });
  await get(viewer, `${s}?page=${enc(pageId)}`, { status: 200, shows: ['bioTitle', 'bioText'] });
  await get(owner, `${s}?page=${enc(V.path)}`, { status: 404 });
  await post(owner, s, { handle: V.newBioHandle, title: V.newBioHandle, domain: 'go.test' }, { status: 422, shows: ['newBioHandle'] });
  await post(owner, `${s}/${enc(pageId)}`, { handle: 'hostile', title: V.newBioHandle, domain: 'go.test', bio: 'x'.repeat(300) }, { status: 422, shows: ['newBioHandle'] });
  await post(viewer, `${s}/${enc(pageId)}`, { handle: 'hostile', title: 'x', domain: 'go.test' }, { status: 403 });
  await post(owner, `${s}/${enc(V.path)}`, { handle: 'x', title: 'x', domain: 'go.test' }, { status: 404 });
  await post(owner, `${s}/${enc(V.path)}/delete`, {}, { status: 404 });
  listening ??= await t.listen();
  const r = await hit(listening, '/@hostile', { host: 'go.test', headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0' } });
  check('public bio page', { statusCode: r.status, headers: r.headers, body: r.body }, { status: 200, shows: ['bioTitle', 'bioText', 'linkTitle'] });
  assert.deepEqual(failures.splice(0), []);
});

test('import report, downloads and error pages', async () => {
  await get(owner, `${base}/links/import`, { status: 200, shows: FRAME });
  const row = (cells: string[]) => cells.map((c) => `"${c.replaceAll('"', '""')}"`).join(',');
  const csv = [row(['url', 'key', 'title', 'tags']), row(['https://example.com/i', V.importKey, V.importTitle, V.importTag]), row([V.importUrl, 'k2', 't', '']), row(['https://example.com/j', 'k3', 't', V.importTag])].join('\n');
  const boundary = 'hostileboundary';
  const body = [
    `--${boundary}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${owner.csrf}\r\n`,
    `--${boundary}\r\nContent-Disposition: form-data; name="dryRun"\r\n\r\ntrue\r\n`,
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="links.csv"\r\nContent-Type: text/csv\r\n\r\n${csv}\r\n`,
    `--${boundary}--\r\n`,
  ].join('');
  const url = `${base}/links/import`;
  reached.add(routeOf('POST', url));
  const cookie = [...owner.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const res = await t.app.inject({ method: 'POST', url, headers: { cookie, 'content-type': `multipart/form-data; boundary=${boundary}` }, payload: body });
  // Keys with `<` are refused (the reason is listed); the tags an accepted row names are listed as created.
  check(`POST ${url}`, res, { status: 200, shows: ['importTag'] });
  // The recent imports list and an undo (the job's fields are the server's own; the frame holds the hostile names).
  const imported = await t.inject({ method: 'POST', url: '/links/import', headers: { 'content-type': 'text/csv' }, payload: 'url,key\nhttps://example.com/h,hostile-undo\n' });
  const importId = (imported.json() as { importId: string }).importId;
  await get(owner, `${base}/links/import`, { status: 200, shows: FRAME });
  await post(owner, `${base}/links/imports/${importId}/undo`, {}, { status: 200, shows: FRAME });

  for (const path of ['/links/export', '/events/export?event=leads&format=ndjson', '/events/export?event=sales', '/analytics/export?groupBy=countries&interval=all']) {
    await get(viewer, `${base}${path}`, { status: 200 });
  }

  await get(owner, `/dashboard/${enc(V.path)}`, { status: 404 });
  await get(owner, `/dashboard/w/${enc(V.path)}/links`, { status: 404 });
  await get(owner, `${base}/${enc(V.path)}`, { status: 404 });

  // Last: the sessions end.
  await post(viewer, '/dashboard/logout-everywhere', {}, { status: 303 });
  await post(owner, '/dashboard/logout', {}, { status: 303 });
  assert.deepEqual(failures.splice(0), []);
});

test("the short domain's own pages: a crawler's preview, the password form, not found", async () => {
  const server = (listening ??= await t.listen());
  const db = t.database.db;
  await insertShortLink(db, t.workspaceId, { domain: 'go.test', key: 'preview', url: 'https://example.com/a', proxy: 1, title: V.linkTitle, description: V.linkDescription, image: `https://example.com/${V.linkImage}` });
  await insertShortLink(db, t.workspaceId, { domain: 'go.test', key: 'locked', url: 'https://example.com/b', password: V.linkPassword });
  const visit = async (path: string, headers: Record<string, string> = {}) => {
    const r = await hit(server, path, { host: headers.host ?? 'go.test', headers: { 'user-agent': 'Twitterbot/1.0', ...headers } });
    return { statusCode: r.status, headers: r.headers, body: r.body };
  };
  // URLs are written percent-encoded there (web-url.ts), so the image's marker is no `<` at all.
  check('crawler preview', await visit('/preview'), { status: 200, shows: ['linkTitle', 'linkDescription'] });
  check('password form', await visit(`/locked?q=${V.shortQuery}`, { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0' }), { status: 200, shows: ['shortQuery'] });
  check('not found', await visit('/nothing', { host: V.shortHost }), { status: 404 });
  assert.deepEqual(failures.splice(0), []);
});

test('every dashboard route was rendered with hostile values', () => {
  const all = t.modules.dashboard.registered.map((r) => `${r.method} ${r.url}`);
  assert.ok(all.length > 40, `the dashboard registers its routes (${all.length})`);
  const missing = all.filter((r) => !reached.has(r));
  assert.deepEqual(missing, [], 'routes without a hostile-names case: add one to this file');
  assert.deepEqual([...reached].filter((r) => r.includes('(no route)')), []);
});
