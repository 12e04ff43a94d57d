/**
 * An account made by single sign-on gets no password unless an owner allows it
 * (users/password-access.ts): "Forgot password?" sends it nothing and answers as for any address;
 * an owner allows a password on the members page (audited), and withdrawing it removes the
 * password, its links and its sessions. A real provider and a real SMTP receiver in this process;
 * SQLite, and PostgreSQL when DATABASE_URL is one.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { startOidcProvider, CLIENT, type OidcTestProvider } from '../test-support/oidc-provider.js';
import { SmtpInbox } from '../test-support/smtp-inbox.js';
import { addUser, Browser, logIn, slugOf } from '../dashboard/testing.js';
import { NO_PASSWORD } from '../users/password.js';

const REDIRECT_URI = 'http://localhost:3999/dashboard/sso/callback';
const smtp = new SmtpInbox();
let t: TestApp;
let idp: OidcTestProvider;
let slug: string;

before(async () => {
  await smtp.start();
  idp = await startOidcProvider({ redirectUri: REDIRECT_URI });
  t = await createTestApp({
    env: {
      OIDC_ISSUER: idp.issuer,
      OIDC_CLIENT_ID: CLIENT.id,
      OIDC_CLIENT_SECRET: CLIENT.secret,
      OIDC_ALLOWED_DOMAINS: 'example.com',
      OIDC_DEFAULT_ROLE: 'member',
      OIDC_NAME: 'Example <ID>',
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      MAIL_FROM: 'Waymark <links@example.com>',
    },
  });
  slug = await slugOf(t);
});
after(async () => {
  await t.close();
  await idp.close();
  await smtp.stop();
});

/** Signs `account` in with SSO (creating their user the first time); the browser and the user's id. */
async function ssoSignIn(account: string): Promise<{ browser: Browser; userId: string }> {
  const browser = new Browser(t);
  const start = await browser.get('/dashboard/sso/start?next=/dashboard/account');
  const back = await idp.signIn(String(start.headers.location), account);
  const res = await browser.get(back.pathname + back.search);
  assert.equal(res.statusCode, 303, res.body);
  const user = await t.database.db.selectFrom('users').select('id').where('email_key', '=', idp.accounts[account]!.email).executeTakeFirstOrThrow();
  return { browser, userId: user.id };
}

/** Posts the forgot-password form for `email`: the answer's notice. */
async function askForLink(email: string): Promise<{ status: number; notice: string | undefined; body: string }> {
  const anon = new Browser(t);
  await anon.get('/dashboard/forgot');
  const res = await anon.post('/dashboard/forgot', { email });
  return { status: res.statusCode, notice: /<p class="notice"[^>]*>([\s\S]*?)<\/p>/.exec(res.body)?.[1], body: res.body };
}

const resetsOf = (userId: string) => t.database.db.selectFrom('password_resets').selectAll().where('user_id', '=', userId).execute();
const entriesOf = (userId: string) => t.database.db.selectFrom('audit_log').selectAll().where('target', '=', userId).where('action', '=', 'member.password').orderBy('id').execute();

async function tokenMailedTo(email: string): Promise<string> {
  const m = await smtp.mailTo(email, 30_000, 'Reset your Waymark password');
  const token = /\/dashboard\/reset\?token=([\w-]+)/.exec(m.text)?.[1];
  assert.ok(token, m.text);
  return token;
}

test('"Forgot password?" gives an SSO account nothing: the same answer as an unknown address, no link, no mail', async () => {
  const { userId } = await ssoSignIn('ann');
  const sso = await askForLink('ann@example.com');
  const unknown = await askForLink('nobody-at-all@example.com');
  const password = await addUser(t, 'viewer');
  const known = await askForLink(password.email);
  assert.equal(sso.status, 200);
  assert.equal(sso.status, unknown.status);
  assert.equal(sso.notice, unknown.notice, 'no account oracle');
  assert.equal(sso.notice, known.notice);
  assert.match(sso.body, /signs in with <span>Example &lt;ID><\/span> gets no link unless an owner/, 'the page says why, for every address, escaped');
  assert.deepEqual(await resetsOf(userId), [], 'no link made');
  await tokenMailedTo(password.email); // mail flows: the password account's came
  assert.ok(!smtp.inbox.some((m) => m.to.includes('ann@example.com')), 'no mail to the SSO account');
  const user = await t.modules.users.service.findById(userId);
  assert.equal(user?.password_hash, NO_PASSWORD);
});

test('an owner allows a password (audited); the person sets one by reset; withdrawing it removes the password, its links and its sessions', async () => {
  idp.accounts.sam = { email: 'sam@example.com', email_verified: true, name: 'Sam <b>Sso</b>' };
  const { browser: ssoBrowser, userId } = await ssoSignIn('sam');
  const owner = await addUser(t, 'owner');
  const ownerBrowser = await logIn(t, owner);
  const members = await ownerBrowser.get(`/dashboard/w/${slug}/settings/members`);
  assert.equal(members.statusCode, 200);
  assert.match(members.body, /<td>Single sign-on only<\/td>/);
  assert.match(members.body, new RegExp(`action="/dashboard/w/${slug}/settings/members/${userId}/password"`));
  assert.match(members.body, /<td>Sam &lt;b>Sso&lt;\/b><\/td>/, 'the name is escaped');

  // A member who is not an owner may not allow it.
  const memberBrowser = await logIn(t, await addUser(t, 'member'));
  await memberBrowser.get(`/dashboard/w/${slug}/settings/members`);
  assert.equal((await memberBrowser.post(`/dashboard/w/${slug}/settings/members/${userId}/password`, { allowed: 'true' })).statusCode, 403);
  assert.deepEqual(await entriesOf(userId), []);

  const allowed = await ownerBrowser.post(`/dashboard/w/${slug}/settings/members/${userId}/password`, { allowed: 'true' });
  assert.equal(allowed.statusCode, 303, allowed.body);
  assert.match((await ownerBrowser.get(`/dashboard/w/${slug}/settings/members`)).body, /<td>Single sign-on; may set a password<\/td>/);
  const [entry] = await entriesOf(userId);
  assert.deepEqual([entry?.actor_id, entry?.workspace_id, JSON.parse(entry!.changes)], [owner.id, t.workspaceId, { allowed: true }]);

  await askForLink('sam@example.com');
  const token = await tokenMailedTo('sam@example.com');
  const resetter = new Browser(t);
  await resetter.get(`/dashboard/reset?token=${token}`);
  assert.equal((await resetter.post('/dashboard/reset', { token, password: 'sam chose a password' })).statusCode, 200);
  const passwordBrowser = await logIn(t, { email: 'sam@example.com', password: 'sam chose a password' });
  const { browser: ssoAgain } = await ssoSignIn('sam'); // the reset ended every session; SSO signs in again
  assert.equal((await ssoBrowser.get('/dashboard/account')).statusCode, 303, 'the reset ended the earlier session');

  // A link asked for before the withdrawal must not give the password back.
  await askForLink('sam@example.com');
  assert.equal((await resetsOf(userId)).filter((r) => r.used_at === null).length, 1);
  const withdrawn = await ownerBrowser.post(`/dashboard/w/${slug}/settings/members/${userId}/password`, { allowed: 'false' });
  assert.equal(withdrawn.statusCode, 303, withdrawn.body);
  assert.equal(await t.modules.users.service.checkPassword('sam@example.com', 'sam chose a password'), null, 'the password no longer works');
  assert.equal((await t.modules.users.service.findById(userId))?.password_hash, NO_PASSWORD);
  assert.equal((await resetsOf(userId)).filter((r) => r.used_at === null).length, 0, 'its unused links are void');
  assert.equal((await passwordBrowser.get('/dashboard/account')).statusCode, 303, 'the password session ended');
  assert.equal((await ssoAgain.get('/dashboard/account')).statusCode, 200, 'the SSO session stays');
  assert.deepEqual((await entriesOf(userId)).map((e) => JSON.parse(e.changes).allowed), [true, false]);

  const again = await askForLink('sam@example.com');
  assert.equal(again.status, 200);
  assert.equal((await resetsOf(userId)).filter((r) => r.used_at === null).length, 0, 'SSO only again: no link');
});

test('allowing a password needs an owner of every workspace of the person; any owner may withdraw it; a password account is left as it is', async () => {
  idp.accounts.pat = { email: 'pat@example.com', email_verified: true, name: 'Pat' };
  const { userId } = await ssoSignIn('pat');
  const other = await t.ctx.workspaces.createWorkspace({ name: 'Other', slug: 'other-ws' });
  await t.modules.users.service.addMembership(userId, other.id, 'viewer');
  const owner = await addUser(t, 'owner');
  const ownerBrowser = await logIn(t, owner);
  await ownerBrowser.get(`/dashboard/w/${slug}/settings/members`);
  const refused = await ownerBrowser.post(`/dashboard/w/${slug}/settings/members/${userId}/password`, { allowed: 'true' });
  assert.equal(refused.statusCode, 403);
  assert.match(refused.body, /belongs to workspaces you do not own/);
  assert.deepEqual(await entriesOf(userId), []);

  await t.modules.users.service.addMembership(owner.id, other.id, 'owner');
  assert.equal((await ownerBrowser.post(`/dashboard/w/${slug}/settings/members/${userId}/password`, { allowed: 'true' })).statusCode, 303);
  const entries = await entriesOf(userId);
  assert.deepEqual(entries.map((e) => e.workspace_id).sort(), [t.workspaceId, other.id].sort(), 'one entry in each workspace of the person');

  // An owner of only the other workspace may withdraw it.
  const otherOwner = await addUser(t, 'owner', other.id);
  const otherBrowser = await logIn(t, otherOwner);
  await otherBrowser.get('/dashboard/w/other-ws/settings/members');
  assert.equal((await otherBrowser.post(`/dashboard/w/other-ws/settings/members/${userId}/password`, { allowed: 'false' })).statusCode, 303);
  assert.equal((await entriesOf(userId)).length, 4);

  const password = await addUser(t, 'viewer');
  const conflict = await ownerBrowser.post(`/dashboard/w/${slug}/settings/members/${password.id}/password`, { allowed: 'true' });
  assert.equal(conflict.statusCode, 409);
  assert.ok(await t.modules.users.service.checkPassword(password.email, password.password), 'their password is untouched');
  const bad = await ownerBrowser.post(`/dashboard/w/${slug}/settings/members/${userId}/password`, { allowed: 'yes' });
  assert.equal(bad.statusCode, 422);
  const stranger = await addUser(t, 'viewer', other.id);
  assert.equal((await ownerBrowser.post(`/dashboard/w/${slug}/settings/members/${stranger.id}/password`, { allowed: 'true' })).statusCode, 404, 'not a member of this workspace');
});
