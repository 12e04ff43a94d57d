/**
 * Single sign-on end to end against a real provider in this process (test-support/oidc-provider.ts):
 * the app's own routes (app.inject), the provider's own login form and token endpoint. Runs on
 * SQLite, and on PostgreSQL when DATABASE_URL is one.
 */
import assert from 'node:assert/strict';
import { after, mock, test } from 'node:test';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { startOidcProvider, CLIENT, type OidcTestProvider } from '../test-support/oidc-provider.js';
import { Browser, addUser, slugOf } from '../dashboard/testing.js';
import { NO_PASSWORD } from '../users/password.js';

const REDIRECT_URI = 'http://localhost:3999/dashboard/sso/callback';
const open: { close(): Promise<void> }[] = [];
after(async () => {
  for (const o of open.reverse()) await o.close();
});

async function setUp(env: Record<string, string> = {}, options: { now?: () => number } = {}): Promise<{ t: TestApp; idp: OidcTestProvider; slug: string }> {
  // The claims in the ID token, as many providers send them (userinfo.test.ts: the conformant default).
  const idp = await startOidcProvider({ redirectUri: REDIRECT_URI, claimsInIdToken: true });
  open.push(idp);
  const base = { OIDC_ISSUER: idp.issuer, OIDC_CLIENT_ID: CLIENT.id, OIDC_CLIENT_SECRET: CLIENT.secret, OIDC_ALLOWED_DOMAINS: 'example.com' };
  const t = await createTestApp({ env: { ...base, ...env }, ...options });
  open.push(t);
  return { t, idp, slug: await slugOf(t) };
}

/** Starts a sign-in in `browser`, signs in at the provider as `account`; the callback's address (not yet visited). */
async function toCallback(idp: OidcTestProvider, browser: Browser, account: string, start = '/dashboard/sso/start?next=/dashboard/account'): Promise<string> {
  const res = await browser.get(start);
  assert.equal(res.statusCode, 303, res.body);
  const location = String(res.headers.location);
  assert.ok(location.startsWith(`${idp.issuer}/auth?`), location);
  const back = await idp.signIn(location, account);
  assert.equal(back.origin + back.pathname, REDIRECT_URI);
  return back.pathname + back.search;
}

async function signIn(t: TestApp, idp: OidcTestProvider, account: string, browser = new Browser(t)) {
  const res = await browser.get(await toCallback(idp, browser, account));
  return { res, browser };
}

const userByEmail = (t: TestApp, email: string) => t.database.db.selectFrom('users').selectAll().where('email_key', '=', email).executeTakeFirst();
const auditOf = (t: TestApp, userId: string) => t.database.db.selectFrom('audit_log').selectAll().where('target', '=', userId).orderBy('id').execute();

test('first sign-in creates the user (default role, no usable password, identity by issuer and subject, audited) and starts a session; the next finds the same user', async () => {
  const { t, idp, slug } = await setUp({ OIDC_DEFAULT_ROLE: 'member' });
  const start = await new Browser(t).get('/dashboard/sso/start?next=/dashboard/account');
  const authUrl = new URL(String(start.headers.location));
  assert.equal(authUrl.searchParams.get('code_challenge_method'), 'S256');
  assert.ok(authUrl.searchParams.get('code_challenge') && authUrl.searchParams.get('state') && authUrl.searchParams.get('nonce'));
  assert.equal(authUrl.searchParams.get('scope'), 'openid email profile');
  assert.equal(authUrl.searchParams.get('redirect_uri'), REDIRECT_URI);

  const { res, browser } = await signIn(t, idp, 'ann');
  assert.equal(res.statusCode, 303, res.body);
  assert.equal(res.headers.location, '/dashboard/account');
  assert.ok(browser.cookies.has('wm_session'));
  assert.ok(!browser.cookies.has('wm_sso'), 'the sign-in cookie is cleared');
  const user = await userByEmail(t, 'ann@example.com');
  assert.ok(user);
  assert.equal(user.name, 'Ann Admin');
  assert.equal(idp.userinfoRequests(), 0, 'the ID token had every claim: no userinfo request');
  assert.equal(user.password_hash, NO_PASSWORD);
  assert.equal(await t.modules.users.service.checkPassword('ann@example.com', NO_PASSWORD), null, 'no password opens an SSO account');
  assert.equal(await t.modules.users.service.roleOf(user.id, t.workspaceId), 'member');
  const identity = await t.database.db.selectFrom('user_identities').selectAll().executeTakeFirstOrThrow();
  assert.deepEqual([identity.issuer, identity.subject, identity.user_id], [idp.issuer, 'ann', user.id]);
  const entries = await auditOf(t, user.id);
  assert.deepEqual(entries.map((e) => [e.action, e.actor_type, e.actor_id, JSON.parse(e.changes).via]), [['member.join', 'user', user.id, 'sso']]);
  const page = await browser.get('/dashboard/account');
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /ann@example\.com/);
  assert.match((await browser.get(`/dashboard/w/${slug}/links`)).body, /Links/);

  const again = await signIn(t, idp, 'ann');
  assert.equal(again.res.statusCode, 303);
  assert.equal(Number((await t.database.db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).where('email_key', '=', 'ann@example.com').executeTakeFirstOrThrow()).n), 1);
  assert.equal((await auditOf(t, user.id)).length, 1, 'a known identity changes nothing');
});

test('OIDC_ROLE_CLAIM: the claim sets the role at creation and the memberships at each sign-in, audited; a workspace keeps its last owner', async () => {
  const { t, idp, slug } = await setUp({ OIDC_ROLE_CLAIM: 'groups' });
  const other = await t.ctx.workspaces.createWorkspace({ name: 'Second', slug: 'second' });
  idp.accounts.ann!.groups = [`waymark:${slug}:owner`, 'staff'];
  assert.equal((await signIn(t, idp, 'ann')).res.statusCode, 303);
  const ann = (await userByEmail(t, 'ann@example.com'))!;
  assert.equal(await t.modules.users.service.roleOf(ann.id, t.workspaceId), 'owner');
  assert.equal(await t.modules.users.service.roleOf(ann.id, other.id), undefined);

  await addUser(t, 'owner'); // so that Ann may stop being one
  idp.accounts.ann!.groups = [`waymark:${slug}:viewer`, 'waymark:second:member', 'waymark:missing:owner'];
  assert.equal((await signIn(t, idp, 'ann')).res.statusCode, 303);
  assert.equal(await t.modules.users.service.roleOf(ann.id, t.workspaceId), 'viewer');
  assert.equal(await t.modules.users.service.roleOf(ann.id, other.id), 'member');
  idp.accounts.ann!.groups = ['waymark:second:member'];
  assert.equal((await signIn(t, idp, 'ann')).res.statusCode, 303);
  assert.equal(await t.modules.users.service.roleOf(ann.id, t.workspaceId), undefined, 'a membership the claim no longer names is removed');
  const entries = await auditOf(t, ann.id);
  // Entries of one transaction share their millisecond: compared in a fixed order.
  const seen = entries.map((e) => [e.action, e.workspace_id, JSON.parse(e.changes).role, e.actor_id]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
  assert.deepEqual(seen, [
    ['member.add', other.id, 'member', ann.id],
    ['member.join', t.workspaceId, 'owner', ann.id],
    ['member.remove', t.workspaceId, null, ann.id],
    ['member.role', t.workspaceId, 'viewer', ann.id],
  ]);

  // Bob (another domain is allowed here) is the only owner of a workspace: the claim cannot demote him.
  const solo = await t.ctx.workspaces.createWorkspace({ name: 'Solo', slug: 'solo' });
  idp.accounts.una = { email: 'una@example.com', email_verified: true, name: 'Una', groups: ['waymark:solo:owner'] };
  await signIn(t, idp, 'una');
  const una = (await userByEmail(t, 'una@example.com'))!;
  idp.accounts.una.groups = ['waymark:solo:viewer'];
  await signIn(t, idp, 'una');
  assert.equal(await t.modules.users.service.roleOf(una.id, solo.id), 'owner');
});

test('a person of another email domain is refused with a page (403) and no account', async () => {
  const { t, idp } = await setUp();
  const { res, browser } = await signIn(t, idp, 'bob');
  assert.equal(res.statusCode, 403);
  assert.match(res.headers['content-type'] as string, /text\/html/);
  assert.match(res.body, /other\.test may not sign in/);
  assert.doesNotMatch(res.body, /at .*\.ts:\d+/, 'no stack trace');
  assert.equal(await userByEmail(t, 'bob@other.test'), undefined);
  assert.ok(!browser.cookies.has('wm_session'));
});

test('an existing password user is linked only when the provider verified the email', async () => {
  const { t, idp } = await setUp();
  const password = 'correct horse battery';
  const ann = await t.modules.users.service.createWithMembership({ email: 'Ann@Example.com', name: 'Ann', password }, t.workspaceId, 'member', undefined);
  const una = await t.modules.users.service.createWithMembership({ email: 'una@example.com', name: 'Una', password }, t.workspaceId, 'member', undefined);

  const refused = await signIn(t, idp, 'una');
  assert.equal(refused.res.statusCode, 403);
  assert.match(refused.res.body, /has not verified the address/);
  assert.equal(await t.database.db.selectFrom('user_identities').selectAll().where('user_id', '=', una.id).executeTakeFirst(), undefined);

  const linked = await signIn(t, idp, 'ann');
  assert.equal(linked.res.statusCode, 303);
  const identity = await t.database.db.selectFrom('user_identities').selectAll().where('subject', '=', 'ann').executeTakeFirstOrThrow();
  assert.equal(identity.user_id, ann.id);
  assert.ok(await t.modules.users.service.checkPassword('ann@example.com', password), 'the password still works');
  assert.equal((await linked.browser.get('/dashboard/account')).statusCode, 200);
});

test("a forged callback (another state, an attacker's code, the provider's error) is refused and leaves the genuine pending sign-in alone", async () => {
  const { t, idp } = await setUp();
  const browser = new Browser(t);
  const callback = new URL(await toCallback(idp, browser, 'ann'), REDIRECT_URI);
  const pending = browser.cookies.get('wm_sso');
  // The attacker's own sign-in (as Una, in their browser): its code and state, sent to Ann's browser.
  const attackers = new URL(await toCallback(idp, new Browser(t), 'una'), REDIRECT_URI);
  const forgedState = new URL(callback);
  forgedState.searchParams.set('state', 'forged-state-value');
  const theirCodeOurState = new URL(callback);
  theirCodeOurState.searchParams.set('code', attackers.searchParams.get('code')!);
  for (const forged of [forgedState, attackers, theirCodeOurState]) {
    const res = await browser.get(forged.pathname + forged.search);
    assert.equal(res.statusCode, 403, forged.search);
    assert.match(res.body, /could not be verified/);
    assert.equal(browser.cookies.get('wm_sso'), pending, 'the sign-in cookie stays');
    assert.ok(!browser.cookies.has('wm_session'));
  }
  const denied = await browser.get(`${callback.pathname}?error=access_denied&state=${callback.searchParams.get('state')}`);
  assert.equal(denied.statusCode, 403);
  assert.equal(await userByEmail(t, 'una@example.com'), undefined, "the attacker's account was never signed in");

  const genuine = await browser.get(callback.pathname + callback.search);
  assert.equal(genuine.statusCode, 303, genuine.body);
  assert.ok(browser.cookies.has('wm_session'));
  assert.ok(!browser.cookies.has('wm_sso'));
  assert.ok(await userByEmail(t, 'ann@example.com'));
  browser.cookies.set('wm_sso', pending!);
  assert.equal((await browser.get(callback.pathname + callback.search)).statusCode, 400, 'one use only');
  // Without the browser's cookie (another browser), a genuine callback is refused too.
  const stranger = new Browser(t);
  const elsewhere = await toCallback(idp, new Browser(t), 'ann');
  assert.equal((await stranger.get(elsewhere)).statusCode, 400);
});

test('a replayed code is refused: the same callback twice, and the code under a new sign-in', async () => {
  const { t, idp } = await setUp();
  const browser = new Browser(t);
  const callback = await toCallback(idp, browser, 'ann');
  const sso = browser.cookies.get('wm_sso')!;
  assert.equal((await browser.get(callback)).statusCode, 303);
  browser.cookies.set('wm_sso', sso);
  assert.equal((await browser.get(callback)).statusCode, 400, 'the same callback again');

  // A new sign-in in another browser, answered with the old code: the provider refuses it.
  const other = new Browser(t);
  const fresh = new URL(await toCallback(idp, other, 'ann'), REDIRECT_URI);
  const replay = new URL(callback, REDIRECT_URI);
  replay.searchParams.set('state', fresh.searchParams.get('state')!);
  const res = await other.get(replay.pathname + replay.search);
  assert.equal(res.statusCode, 403);
  assert.ok(!other.cookies.has('wm_session'));
});

test('an ID token for another audience is refused', async () => {
  const { t, idp } = await setUp();
  idp.tamperIdToken((claims) => ({ ...claims, aud: 'another-client' }));
  const { res, browser } = await signIn(t, idp, 'ann');
  assert.equal(res.statusCode, 403);
  assert.ok(!browser.cookies.has('wm_session'));
  // The same re-signing with the right audience passes: the refusal was the audience's.
  idp.tamperIdToken((claims) => claims);
  assert.equal((await signIn(t, idp, 'ann')).res.statusCode, 303);
});

test('an expired ID token is refused (the app\'s clock two hours after the provider\'s)', async () => {
  const { t, idp } = await setUp({}, { now: () => Date.now() + 2 * 60 * 60 * 1000 });
  const { res, browser } = await signIn(t, idp, 'ann');
  assert.equal(res.statusCode, 403);
  assert.ok(!browser.cookies.has('wm_session'));
  assert.equal(await userByEmail(t, 'ann@example.com'), undefined);
});

test('a key rotation at the provider is followed: the next sign-in verifies with the new key', async () => {
  const { t, idp } = await setUp();
  assert.equal((await signIn(t, idp, 'ann')).res.statusCode, 303);
  const before = idp.kid();
  await idp.rotateKeys();
  assert.notEqual(idp.kid(), before);
  const jwks = (await (await fetch(`${idp.issuer}/jwks`)).json()) as { keys: { kid: string }[] };
  assert.deepEqual(jwks.keys.map((k) => k.kid), [idp.kid()], 'the old key is gone');
  // openid-client fetches the JWKS again for an unknown kid once its copy is a minute old
  // (a bound on the fetches forged kids can cause): move the clock on rather than wait.
  mock.timers.enable({ apis: ['Date'], now: Date.now() + 90_000 });
  try {
    const { res } = await signIn(t, idp, 'ann');
    assert.equal(res.statusCode, 303, res.body);
  } finally {
    mock.timers.reset();
  }
});

test('logout ends the session and sends the browser on to the provider\'s end_session_endpoint with the ID token hint', async () => {
  const { t, idp } = await setUp();
  const { browser } = await signIn(t, idp, 'ann');
  await browser.get('/dashboard/account');
  const res = await browser.post('/dashboard/logout');
  assert.equal(res.statusCode, 200);
  const target = new URL(String(res.headers.refresh).replace(/^0;url=/, ''));
  assert.equal(target.origin + target.pathname, `${idp.issuer}/session/end`);
  assert.equal(target.searchParams.get('post_logout_redirect_uri'), 'http://localhost:3999/dashboard/login');
  assert.ok(target.searchParams.get('id_token_hint')?.split('.').length === 3);
  assert.match(res.body, /session\/end/);
  assert.ok(!browser.cookies.has('wm_session'));
  assert.equal((await browser.get('/dashboard/account')).statusCode, 303, 'the Waymark session ended');
  const end = await fetch(target, { redirect: 'manual' });
  assert.equal(end.status, 200, 'the provider accepts the logout request (its confirmation page)');

  // A password session logs out as before.
  const user = await addUser(t, 'viewer');
  const plain = new Browser(t);
  await plain.get('/dashboard/login');
  await plain.post('/dashboard/login', { email: user.email, password: user.password });
  await plain.get('/dashboard/account');
  const out = await plain.post('/dashboard/logout');
  assert.equal(out.statusCode, 303);
  assert.equal(out.headers.location, '/dashboard/login');
});

test('reauthentication: prompt=login and max_age=0, then the session records the fresh sign-in; another person is refused', async () => {
  const { t, idp } = await setUp();
  const { browser } = await signIn(t, idp, 'ann');
  const session = async () => (await t.modules.users.sessions.resolve(browser.cookies.get('wm_session')!))!.session;
  assert.equal(t.modules.users.sessions.recentlyReauthenticated(await session(), 5 * 60_000), false);
  const start = await browser.get('/dashboard/sso/start?reauth=1&next=/dashboard/account');
  const auth = new URL(String(start.headers.location));
  assert.equal(auth.searchParams.get('prompt'), 'login');
  assert.equal(auth.searchParams.get('max_age'), '0');
  const back = await idp.signIn(auth.href, 'ann');
  const res = await browser.get(back.pathname + back.search);
  assert.equal(res.statusCode, 303, res.body);
  assert.equal(res.headers.location, '/dashboard/account');
  assert.equal(t.modules.users.sessions.recentlyReauthenticated(await session(), 5 * 60_000), true);

  idp.accounts.eve = { email: 'eve@example.com', email_verified: true, name: 'Eve' };
  const other = await browser.get(await toCallback(idp, browser, 'eve', '/dashboard/sso/start?reauth=1&next=/dashboard/account'));
  assert.equal(other.statusCode, 403);
  assert.match(other.body, /another person/);
  assert.equal(await userByEmail(t, 'eve@example.com'), undefined, 'a reauthentication creates no one');
});

test('an SSO account (no password) changes its email only after a fresh sign-in at the provider, which the account page offers', async () => {
  const { t, idp } = await setUp({ OIDC_NAME: 'Example ID' });
  const { browser } = await signIn(t, idp, 'ann');
  const page = await browser.get('/dashboard/account');
  assert.doesNotMatch(page.body, /name="current"/, 'no password field for an account without one');
  assert.match(page.body, /href="\/dashboard\/sso\/start\?reauth=1&next=%2Fdashboard%2Faccount"/);
  assert.match(page.body, /sign in again with <span>Example ID<\/span>/);

  const refused = await browser.post('/dashboard/account/email', { email: 'ann.new@example.com' });
  assert.equal(refused.statusCode, 403, 'no proof yet');
  assert.ok(await userByEmail(t, 'ann@example.com'), 'unchanged');

  const start = await browser.get('/dashboard/sso/start?reauth=1&next=/dashboard/account');
  const back = await idp.signIn(String(start.headers.location), 'ann');
  assert.equal((await browser.get(back.pathname + back.search)).statusCode, 303);
  const fresh = await browser.get('/dashboard/account');
  assert.match(fresh.body, /You signed in again with <span>Example ID<\/span>/);
  const changed = await browser.post('/dashboard/account/email', { email: 'ann.new@example.com' });
  assert.equal(changed.statusCode, 303, changed.body);
  assert.equal(changed.headers.location, '/dashboard/account?changed=email');
  const user = await userByEmail(t, 'ann.new@example.com');
  assert.ok(user, 'the new address is the login');
  const again = await signIn(t, idp, 'ann');
  assert.equal(again.res.statusCode, 303, 'the identity still signs in to the same account');
  assert.equal((await userByEmail(t, 'ann.new@example.com'))?.id, user.id);
});

test('the login page offers "Sign in with …"; OIDC_ONLY hides the password form, which stays at ?password=1', async () => {
  const { t } = await setUp({ OIDC_ONLY: 'true', OIDC_NAME: 'Acme <ID>' });
  const page = await new Browser(t).get('/dashboard/login?next=/dashboard/account');
  assert.match(page.body, /href="\/dashboard\/sso\/start\?next=%2Fdashboard%2Faccount"/);
  assert.match(page.body, /Sign in with <span>Acme &lt;ID/, "the name is escaped");
  assert.doesNotMatch(page.body, /name="password"/);
  const forgot = await new Browser(t).get('/dashboard/forgot');
  assert.equal(forgot.statusCode, 404);
  assert.match(forgot.body, /single sign-on/, 'no password reset gives an SSO account a password');
  const breakGlass = await new Browser(t).get('/dashboard/login?password=1');
  assert.match(breakGlass.body, /name="password"/);
  const owner = await addUser(t, 'owner');
  const browser = new Browser(t);
  await browser.get('/dashboard/login?password=1');
  assert.equal((await browser.post('/dashboard/login', { email: owner.email, password: owner.password })).statusCode, 303);
});

test('the provider down: the sign-in answers a 503 page, and discovery is tried again once it is back', async () => {
  const { t, idp } = await setUp();
  await idp.close();
  const down = await new Browser(t).get('/dashboard/sso/start');
  assert.equal(down.statusCode, 503);
  assert.match(down.body, /could not be reached/);
  await idp.rotateKeys(); // starts it again on the same address
  assert.equal((await signIn(t, idp, 'ann')).res.statusCode, 303);
});
