/**
 * Settings pages on the engine under test: owners change name, slug, domains, keys and webhooks;
 * members manage tags and folders but not keys or settings (403); viewers change nothing (403);
 * another workspace's resources are 404; typed values are escaped; a new key is shown once and
 * works against the API; a revoked key stops working.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { signInEveryRole, slugOf, type Browser } from './testing.js';

let t: TestApp;
let slug: string;
let owner: Browser;
let member: Browser;
let viewer: Browser;

before(async () => {
  t = await createTestApp();
  ({ slug, owner, member, viewer } = await signInEveryRole(t));
});
after(() => t.close());

const at = (rest: string) => `/dashboard/w/${slug}/settings/${rest}`;

test('roles: viewers and members are refused (403) where only owners manage keys and settings', async () => {
  for (const b of [viewer, member]) {
    await b.get(at('general'));
    assert.equal((await b.post(at('general'), { name: 'Taken over' })).statusCode, 403);
    assert.equal((await b.post(at('domains'), { slug: 'go.example.com' })).statusCode, 403);
    assert.equal((await b.post(at('keys'), { name: 'k' })).statusCode, 403);
    assert.equal((await b.post(at('webhooks'), { name: 'h', url: 'https://example.com/h', 'trigger_link.created': 'on' })).statusCode, 403);
  }
  assert.equal((await viewer.post(at('tags'), { name: 'nope' })).statusCode, 403);
  assert.equal((await viewer.post(at('folders'), { name: 'nope' })).statusCode, 403);
  // Everyone may look.
  for (const page of ['general', 'domains', 'tags', 'folders', 'keys', 'webhooks']) assert.equal((await viewer.get(at(page))).statusCode, 200, page);
  const keysPage = (await member.get(at('keys'))).body;
  assert.doesNotMatch(keysPage, /Create key/);
});

test('tags and folders: members create, rename and delete; names are escaped; API errors shown at the form', async () => {
  await member.get(at('tags'));
  assert.equal((await member.post(at('tags'), { name: '"><img src=x>' })).statusCode, 303);
  const tags = (await t.inject({ method: 'GET', url: '/tags' })).json() as { id: string; name: string }[];
  const tag = tags.find((x) => x.name === '"><img src=x>')!;
  assert.ok(tag);
  const page = (await member.get(at('tags'))).body;
  assert.doesNotMatch(page, /"><img src=x>/, 'the quote is escaped inside the attribute');
  assert.equal((await member.post(at(`tags/${tag.id}/rename`), { name: 'Spring' })).statusCode, 303);
  const dup = await member.post(at('tags'), { name: 'spring' });
  assert.equal(dup.statusCode, 409, 'the API refuses a duplicate name; the page shows it');
  assert.match(dup.body, /role="alert"/);
  assert.equal((await member.post(at(`tags/${tag.id}/delete`))).statusCode, 303);
  assert.deepEqual(((await t.inject({ method: 'GET', url: '/tags' })).json() as unknown[]).length, tags.length - 1);

  await member.get(at('folders'));
  assert.equal((await member.post(at('folders'), { name: 'Campaigns' })).statusCode, 303);
  const folder = ((await t.inject({ method: 'GET', url: '/folders' })).json() as { id: string; name: string }[]).find((f) => f.name === 'Campaigns')!;
  assert.equal((await member.post(at(`folders/${folder.id}/rename`), { name: 'Launch' })).statusCode, 303);
  assert.equal(((await t.inject({ method: 'GET', url: `/folders/${folder.id}` })).json() as { name: string }).name, 'Launch');
  assert.equal((await member.post(at('folders'), { name: '' })).statusCode, 422);
});

test('API keys: the secret is shown once and works; revoking stops it; scopes are the API’s', async () => {
  await owner.get(at('keys'));
  const res = await owner.post(at('keys'), { name: 'CI <key>', access: 'custom', scope_links: 'read' });
  assert.equal(res.statusCode, 201);
  const key = /id="new-api-key">([^<]+)</.exec(res.body)![1]!;
  assert.match(key, /^wm_/);
  assert.match(res.body, /CI &lt;key>/);
  const auth = { authorization: `Bearer ${key}` };
  assert.equal((await t.app.inject({ method: 'GET', url: '/links', headers: auth })).statusCode, 200);
  assert.equal((await t.app.inject({ method: 'POST', url: '/tags', headers: auth, payload: { name: 'x' } })).statusCode, 403, 'links.read only');
  const again = (await owner.get(at('keys'))).body;
  assert.doesNotMatch(again, new RegExp(key), 'not shown again');
  const id = (await t.ctx.workspaces.listKeys(t.workspaceId)).find((k) => k.name === 'CI <key>')!.id;
  assert.equal((await owner.post(at(`keys/${id}/revoke`))).statusCode, 303);
  assert.equal((await t.app.inject({ method: 'GET', url: '/links', headers: auth })).statusCode, 401);
  assert.equal((await owner.post(at('keys'), { name: 'x', access: 'custom' })).statusCode, 422);
});

test('general: owners rename the workspace and change its slug; invalid slugs are refused', async () => {
  await owner.get(at('general'));
  assert.equal((await owner.post(at('general'), { name: 'Acme', slug: 'x' })).statusCode, 422);
  const res = await owner.post(at('general'), { name: 'Acme', slug: 'acme-team' });
  assert.equal(res.statusCode, 303);
  assert.equal(res.headers.location, '/dashboard/w/acme-team/settings/general');
  assert.equal((await t.ctx.workspaces.findWorkspace(t.workspaceId))!.name, 'Acme');
  slug = 'acme-team';
});

test('domains: add, verification instructions, not-found URL; webhooks: create with triggers, deliveries page, delete', async () => {
  await owner.get(at('domains'));
  assert.equal((await owner.post(at('domains'), { slug: 'go.acme.test' })).statusCode, 303);
  const page = (await owner.get(at('domains'))).body;
  assert.match(page, /data-domain="go\.acme\.test"/);
  assert.equal((await owner.post(at('domains/go.acme.test'), { notFoundUrl: 'javascript:alert(1)' })).statusCode, 422);
  assert.equal((await owner.post(at('domains/go.acme.test'), { notFoundUrl: 'https://acme.test/404' })).statusCode, 303);
  assert.equal(((await t.inject({ method: 'GET', url: '/domains/go.acme.test' })).json() as { notFoundUrl: string }).notFoundUrl, 'https://acme.test/404');
  // The DNS record to set, as a table; the first domain added is not silently the default of new links.
  assert.match(page, /<table class="dns-records"[^>]*>.*<td>CNAME<\/td><td><code>go\.acme\.test<\/code><\/td><td><code>[^<]+<\/code><\/td>/s);
  const primaryOf = async (d: string) => ((await t.inject({ method: 'GET', url: `/domains/${d}` })).json() as { primary: boolean }).primary;
  assert.equal(await primaryOf('go.acme.test'), false, 'unticked: not the default');
  assert.equal((await owner.post(at('domains'), { slug: 'deals.acme.test', makeDefault: 'on' })).statusCode, 303);
  assert.equal(await primaryOf('deals.acme.test'), true, 'ticked: the default for new links');
  assert.match((await owner.get(at('domains'))).body, /data-domain="deals\.acme\.test">.*?default for new links/s);

  await owner.get(at('webhooks'));
  const created = await owner.post(at('webhooks'), { name: 'Hook', url: 'https://hooks.example.com/w', 'trigger_link.created': 'on', 'trigger_lead.created': 'on' });
  assert.equal(created.statusCode, 303, created.body.slice(0, 500));
  const hooks = (await t.inject({ method: 'GET', url: '/webhooks' })).json() as { id: string; triggers: string[] }[];
  assert.deepEqual(hooks[0]!.triggers.sort(), ['lead.created', 'link.created']);
  assert.equal((await viewer.get(at(`webhooks/${hooks[0]!.id}`))).statusCode, 200);
  assert.doesNotMatch((await viewer.get(at(`webhooks/${hooks[0]!.id}`))).body, /whsec_/, 'only owners see the secret');

  // Every attempt of a delivery is listed, newest first, with the receiver's answer as text.
  const hookRow = await t.ctx.database.db.selectFrom('webhooks').select(['id', 'workspace_id']).where('id', '=', hooks[0]!.id).executeTakeFirstOrThrow();
  const t0 = Date.now() - 60_000;
  await t.ctx.database.db.insertInto('webhook_deliveries').values({
    id: 'whd_page', webhook_id: hookRow.id, workspace_id: hookRow.workspace_id, event_id: 'evt_page', event: 'link.created', body: '{}',
    attempts: 2, next_attempt_at: null, delivered_at: t0 + 20_000, status_code: 200, latency_ms: 12, error: null, created_at: t0,
  }).execute();
  await t.ctx.database.db.insertInto('webhook_attempts').values([
    { delivery_id: 'whd_page', attempt: 1, webhook_id: hookRow.id, workspace_id: hookRow.workspace_id, sent_at: t0, status_code: 500, latency_ms: 40, response: '<b>broken</b>', error: 'receiver answered 500' },
    { delivery_id: 'whd_page', attempt: 2, webhook_id: hookRow.id, workspace_id: hookRow.workspace_id, sent_at: t0 + 20_000, status_code: 200, latency_ms: 12, response: 'ok', error: null },
  ]).execute();
  const detail = (await owner.get(at(`webhooks/${hooks[0]!.id}`))).body;
  assert.match(detail, /<summary>\s*2 attempts\s*<\/summary>/);
  assert.ok(detail.indexOf('data-attempt="2"') < detail.indexOf('data-attempt="1"'), 'newest first');
  assert.ok(detail.includes("&lt;b>broken&lt;/b>") && !detail.includes("<b>broken"), "the answer is shown escaped");
  assert.match(detail, /receiver answered 500/, 'the failure before the success stays visible');
  assert.equal((await owner.post(at('webhooks'), { name: 'No triggers', url: 'https://hooks.example.com/x' })).statusCode, 422);
  const state = async () => ((await t.inject({ method: 'GET', url: `/webhooks/${hooks[0]!.id}` })).json() as { disabledAt: string | null }).disabledAt;
  assert.equal((await member.post(at(`webhooks/${hooks[0]!.id}/disable`))).statusCode, 403);
  assert.equal((await owner.post(at(`webhooks/${hooks[0]!.id}/disable`))).statusCode, 303);
  assert.notEqual(await state(), null);
  assert.match((await owner.get(at('webhooks'))).body, />Enable</);
  assert.equal((await owner.post(at(`webhooks/${hooks[0]!.id}/enable`))).statusCode, 303);
  assert.equal(await state(), null);
  assert.equal((await owner.post(at(`webhooks/${hooks[0]!.id}/delete`))).statusCode, 303);
});

test("another workspace's tags, folders, keys, domains and webhooks are 404", async () => {
  const other = await t.addWorkspace();
  const tag = (await t.app.inject({ method: 'POST', url: '/tags', headers: other.headers, payload: { name: 'theirs' } })).json() as { id: string };
  const folder = (await t.app.inject({ method: 'POST', url: '/folders', headers: other.headers, payload: { name: 'theirs' } })).json() as { id: string };
  const hook = (await t.app.inject({ method: 'POST', url: '/webhooks', headers: other.headers, payload: { name: 'h', url: 'https://example.com/h', triggers: ['link.created'] } })).json() as { id: string };
  await t.app.inject({ method: 'POST', url: '/domains', headers: other.headers, payload: { slug: 'theirs.test' } });
  const key = (await t.ctx.workspaces.listKeys(other.workspaceId))[0]!;
  await owner.get(at('tags'));
  assert.equal((await owner.post(at(`tags/${tag.id}/rename`), { name: 'mine' })).statusCode, 404);
  assert.equal((await owner.post(at(`tags/${tag.id}/delete`))).statusCode, 404);
  assert.equal((await owner.post(at(`folders/${folder.id}/delete`))).statusCode, 404);
  assert.equal((await owner.post(at(`keys/${key.id}/revoke`))).statusCode, 404);
  assert.equal((await owner.get(at(`webhooks/${hook.id}`))).statusCode, 404);
  assert.equal((await owner.post(at(`webhooks/${hook.id}/delete`))).statusCode, 404);
  assert.equal((await owner.post(at('domains/theirs.test'), { notFoundUrl: 'https://a.test/' })).statusCode, 404);
  assert.equal((await owner.post(at('domains/theirs.test/check'))).statusCode, 404);
  // And a non-member sees none of the other workspace's settings.
  assert.equal((await owner.get(`/dashboard/w/${await slugOf(t, other.workspaceId)}/settings/keys`)).statusCode, 404);
});

test('navigation: /settings opens General; every settings page, Members included, shows all the tabs', async () => {
  const res = await viewer.get(`/dashboard/w/${slug}/settings`);
  assert.equal(res.statusCode, 303);
  assert.equal(res.headers.location, at('general'));
  for (const page of ['general', 'domains', 'tags', 'folders', 'keys', 'webhooks', 'members']) {
    const body = (await viewer.get(at(page))).body;
    for (const tab of ['general', 'domains', 'tags', 'folders', 'keys', 'webhooks', 'members']) assert.ok(body.includes(`href="${at(tab)}"`), `${page} links to ${tab}`);
    assert.match(body, new RegExp(`href="${at(page)}" aria-current="page"`), `${page} is the current tab`);
  }
});

test('webhooks: a receiver on localhost in any spelling (localhost., LOCALHOST.., *.localhost, 127.1) is refused at save, in plain words at the URL field', async () => {
  await owner.get(at('webhooks'));
  for (const url of ['http://localhost.:9/', 'http://LOCALHOST..:9/', 'http://x.localhost/', 'http://127.1:9/', 'http://[::ffff:127.0.0.1]:9/']) {
    const res = await owner.post(at('webhooks'), { name: 'Local', url, 'trigger_link.created': 'on' });
    assert.equal(res.statusCode, 422, url);
    assert.match(res.body, /aria-describedby="err-url"\/><\/label><p class="error" id="err-url" role="alert">This address is on a private or local network/, url);
    assert.doesNotMatch(res.body, /WEBHOOK_ALLOW_PRIVATE|refused:/, 'the operator\'s switch is not the user\'s business');
  }
  const hooks = (await t.inject({ method: 'GET', url: '/webhooks' })).json() as { url: string }[];
  assert.ok(!hooks.some((h) => /localhost|127\.|::ffff/i.test(h.url)), 'none was saved');
});
