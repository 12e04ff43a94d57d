/**
 * Single sign-on with a provider that follows OpenID Connect Core to the letter: oidc-provider in
 * its default configuration (`conformIdTokenClaims: true`), whose ID token in the code flow holds
 * no `email` or `name`; they come from the userinfo endpoint, whose `sub` must be the ID token's.
 * (sso.test.ts runs the same flows with the claims in the ID token.) SQLite, and PostgreSQL when
 * DATABASE_URL is one.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { startOidcProvider, CLIENT, type OidcTestProvider } from '../test-support/oidc-provider.js';
import { Browser, slugOf } from '../dashboard/testing.js';
import { claimsNeeded } from './provider.js';

const REDIRECT_URI = 'http://localhost:3999/dashboard/sso/callback';
const open: { close(): Promise<void> }[] = [];
after(async () => {
  for (const o of open.reverse()) await o.close();
});

async function setUp(env: Record<string, string> = {}): Promise<{ t: TestApp; idp: OidcTestProvider }> {
  const idp = await startOidcProvider({ redirectUri: REDIRECT_URI });
  open.push(idp);
  const t = await createTestApp({ env: { OIDC_ISSUER: idp.issuer, OIDC_CLIENT_ID: CLIENT.id, OIDC_CLIENT_SECRET: CLIENT.secret, OIDC_ALLOWED_DOMAINS: 'example.com', ...env } });
  open.push(t);
  return { t, idp };
}

async function signIn(t: TestApp, idp: OidcTestProvider, account: string, browser = new Browser(t)) {
  const start = await browser.get('/dashboard/sso/start?next=/dashboard/account');
  assert.equal(start.statusCode, 303, start.body);
  const back = await idp.signIn(String(start.headers.location), account);
  return { res: await browser.get(back.pathname + back.search), browser };
}

/** The claims of the next ID token, as the provider signed them (left unchanged). */
function watchIdToken(idp: OidcTestProvider): { claims?: Record<string, unknown> } {
  const seen: { claims?: Record<string, unknown> } = {};
  idp.tamperIdToken((claims) => (seen.claims = claims));
  return seen;
}

const userByEmail = (t: TestApp, email: string) => t.database.db.selectFrom('users').selectAll().where('email_key', '=', email).executeTakeFirst();

test('claimsNeeded: userinfo is asked for only when the ID token lacks a claim Waymark reads', () => {
  assert.deepEqual(claimsNeeded({ sub: 'a', email: 'a@example.com', name: 'A' }), []);
  assert.deepEqual(claimsNeeded({ sub: 'a' }), ['email', 'name']);
  assert.deepEqual(claimsNeeded({ sub: 'a', email: 'a@example.com', name: 'A' }, 'groups'), ['groups']);
  assert.deepEqual(claimsNeeded({ sub: 'a', email: 'a@example.com', name: 'A', groups: [] }, 'groups'), []);
});

test('the ID token without email or name: the first sign-in reads them from userinfo and creates the user; the next finds them', async () => {
  const { t, idp } = await setUp();
  const idToken = watchIdToken(idp);
  const { res, browser } = await signIn(t, idp, 'ann');
  assert.equal(res.statusCode, 303, res.body);
  assert.equal(idToken.claims?.sub, 'ann');
  assert.equal(idToken.claims?.email, undefined, 'the conformant provider keeps the email out of the ID token');
  assert.equal(idToken.claims?.name, undefined);
  assert.equal(idp.userinfoRequests(), 1);
  const ann = await userByEmail(t, 'ann@example.com');
  assert.ok(ann, 'created from the userinfo claims');
  assert.equal(ann.name, 'Ann Admin');
  assert.ok(browser.cookies.has('wm_session'));
  assert.match((await browser.get('/dashboard/account')).body, /ann@example\.com/);

  assert.equal((await signIn(t, idp, 'ann')).res.statusCode, 303);
  const identities = await t.database.db.selectFrom('user_identities').selectAll().execute();
  assert.deepEqual(identities.map((i) => [i.subject, i.user_id]), [['ann', ann.id]], 'one identity, one user');
});

test("userinfo's email_verified decides the link to an existing account, and the domain rule holds", async () => {
  const { t, idp } = await setUp();
  const password = 'correct horse battery';
  const ann = await t.modules.users.service.createWithMembership({ email: 'ann@example.com', name: 'Ann', password }, t.workspaceId, 'member', undefined);
  await t.modules.users.service.createWithMembership({ email: 'una@example.com', name: 'Una', password }, t.workspaceId, 'member', undefined);
  const unverified = await signIn(t, idp, 'una');
  assert.equal(unverified.res.statusCode, 403);
  assert.match(unverified.res.body, /has not verified the address/);
  assert.equal((await signIn(t, idp, 'ann')).res.statusCode, 303);
  assert.equal((await t.database.db.selectFrom('user_identities').select('user_id').where('subject', '=', 'ann').executeTakeFirstOrThrow()).user_id, ann.id);
  const foreign = await signIn(t, idp, 'bob');
  assert.equal(foreign.res.statusCode, 403);
  assert.match(foreign.res.body, /other\.test may not sign in/);
});

test('OIDC_ROLE_CLAIM read from userinfo sets the role', async () => {
  const { t, idp } = await setUp({ OIDC_ROLE_CLAIM: 'groups' });
  idp.accounts.ann!.groups = [`waymark:${await slugOf(t)}:owner`];
  assert.equal((await signIn(t, idp, 'ann')).res.statusCode, 303);
  const ann = (await userByEmail(t, 'ann@example.com'))!;
  assert.equal(await t.modules.users.service.roleOf(ann.id, t.workspaceId), 'owner');
});

test("a userinfo answer of another subject is refused (no account, no session), and one without an email says so", async () => {
  const { t, idp } = await setUp();
  idp.tamperUserinfo((claims) => ({ ...claims, sub: 'someone-else', email: 'eve@example.com' }));
  const other = await signIn(t, idp, 'ann');
  assert.equal(other.res.statusCode, 403);
  assert.match(other.res.body, /could not be verified/);
  assert.ok(!other.browser.cookies.has('wm_session'));
  assert.equal(await userByEmail(t, 'eve@example.com'), undefined);
  assert.equal(await userByEmail(t, 'ann@example.com'), undefined);

  idp.tamperUserinfo(({ email: _email, email_verified: _verified, ...rest }) => rest);
  const noEmail = await signIn(t, idp, 'ann');
  assert.equal(noEmail.res.statusCode, 403);
  assert.match(noEmail.res.body, /did not share an email address/);

  // The same provider, untouched, signs Ann in: the refusals were the tampering's.
  assert.equal((await signIn(t, idp, 'ann')).res.statusCode, 303);
});
