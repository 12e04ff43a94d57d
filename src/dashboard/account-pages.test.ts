/**
 * The new-workspace form and the account page's profile forms, through the dashboard's routes:
 * CSRF is required; who may create a workspace (owners by default, `anyone`, `none`); *New
 * workspace* is offered only to them; a created workspace opens on its links page with its creator
 * as owner; refusals come back at their field with what was typed; a name changes without a
 * password; the email needs the password (guesses counted by the login limiter) and ends the
 * other sessions. Hostile values: hostile-names.test.ts.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { addUser, logIn, type TestUser } from './testing.js';

let t: TestApp;
let anyone: TestApp;
before(async () => {
  t = await createTestApp({ env: { LOGIN_RATE_LIMIT_PER_ACCOUNT: '3' } });
  anyone = await createTestApp({ env: { WORKSPACE_CREATION: 'anyone', WORKSPACE_CREATION_LIMIT: '2' } });
});
after(async () => {
  await t.close();
  await anyone.close();
});

const NEW = '/dashboard/workspaces/new';
const uniq = () => randomBytes(4).toString('hex');

test('an owner creates a workspace: CSRF checked, the switcher offers it, the new one opens on its links page', async () => {
  const owner = await addUser(t, 'owner');
  const b = await logIn(t, owner);
  const account = await b.get('/dashboard/account');
  assert.match(account.body, /href="\/dashboard\/workspaces\/new"/);
  const form = await b.get(NEW);
  assert.equal(form.statusCode, 200);
  assert.match(form.body, /name="name"[^>]*data-slug-source/);
  const slug = `team-${uniq()}`;
  assert.equal((await b.post(NEW, { name: 'Team', slug, _csrf: null })).statusCode, 403, 'no CSRF token');
  assert.equal((await b.post(NEW, { name: 'Team', slug, _csrf: 'x'.repeat(43) })).statusCode, 403, 'a wrong CSRF token');
  assert.equal(await t.ctx.workspaces.findWorkspace(slug), undefined);

  const res = await b.post(NEW, { name: 'Team', slug });
  assert.equal(res.statusCode, 303, res.body.slice(0, 300));
  assert.equal(res.headers.location, `/dashboard/w/${slug}/links`);
  const links = await b.get(String(res.headers.location));
  assert.equal(links.statusCode, 200);
  const ws = (await t.ctx.workspaces.findWorkspace(slug))!;
  assert.equal(await t.modules.users.service.roleOf(owner.id, ws.id), 'owner');
  assert.match(links.body, /<summary>[\s\S]*Team[\s\S]*owner/);
});

test('refusals at their field, with what was typed: a taken slug (409), a bad slug and an empty name (422)', async () => {
  const b = await logIn(t, await addUser(t, 'owner'));
  const slug = `dup-${uniq()}`;
  await b.get(NEW);
  assert.equal((await b.post(NEW, { name: 'First', slug })).statusCode, 303);
  await b.get(NEW);
  const taken = await b.post(NEW, { name: 'Second', slug });
  assert.equal(taken.statusCode, 409);
  assert.match(taken.body, /<p class="error" id="err-slug" role="alert">The slug &#34;dup-\w+&#34; is already in use\.<\/p>/);
  assert.match(taken.body, /name="name" value="Second"/);
  const bad = await b.post(NEW, { name: 'Third', slug: 'no spaces here' });
  assert.equal(bad.statusCode, 422);
  assert.match(bad.body, /id="err-slug" role="alert">The slug is 3 to 48 letters, digits and hyphens\./);
  assert.match(bad.body, /value="no spaces here"/);
  const noName = await b.post(NEW, { name: '', slug: `ok-${uniq()}` });
  assert.equal(noName.statusCode, 422);
  assert.match(noName.body, /id="err-name" role="alert">Give the workspace a name of 1 to 32 characters\./);
  const reserved = await b.post(NEW, { name: 'Docs', slug: 'docs' });
  assert.equal(reserved.statusCode, 422);
  assert.match(reserved.body, /id="err-slug" role="alert">The slug &#34;docs&#34; is reserved\./);
});

test('members and viewers may not create one under the default rule (403, no link offered); under "anyone" they may, up to the cap', async () => {
  for (const role of ['member', 'viewer'] as const) {
    const b = await logIn(t, await addUser(t, role));
    const account = await b.get('/dashboard/account');
    assert.doesNotMatch(account.body, /workspaces\/new/);
    assert.equal((await b.get(NEW)).statusCode, 403);
    const refused = await b.post(NEW, { name: 'Mine', slug: `mine-${uniq()}` });
    assert.equal(refused.statusCode, 403);
    assert.match(refused.body, /Only owners/);
  }
  const viewer = await addUser(anyone, 'viewer');
  const b = await logIn(anyone, viewer);
  await b.get(NEW);
  assert.equal((await b.post(NEW, { name: 'One', slug: `one-${uniq()}` })).statusCode, 303);
  await b.get(NEW);
  assert.equal((await b.post(NEW, { name: 'Two', slug: `two-${uniq()}` })).statusCode, 303);
  const full = await b.get(NEW);
  assert.equal(full.statusCode, 403, 'WORKSPACE_CREATION_LIMIT=2 reached');
  assert.match(full.body, /the most one person can own here \(2\)/);
  assert.equal((await b.post(NEW, { name: 'Three', slug: `three-${uniq()}` })).statusCode, 403);
  assert.equal((await anyone.modules.users.service.workspacesOf(viewer.id)).filter((w) => w.role === 'owner').length, 2);
});

test('the name changes without a password; CSRF checked; an empty one is refused at its field', async () => {
  const u = await addUser(t, 'viewer', t.workspaceId, 'Old Name');
  const b = await logIn(t, u);
  await b.get('/dashboard/account');
  assert.equal((await b.post('/dashboard/account/name', { name: 'New Name', _csrf: null })).statusCode, 403);
  const res = await b.post('/dashboard/account/name', { name: 'New Name' });
  assert.equal(res.statusCode, 303);
  assert.equal(res.headers.location, '/dashboard/account?changed=name');
  assert.equal((await t.modules.users.service.findById(u.id))!.name, 'New Name');
  const page = await b.get('/dashboard/account?changed=name');
  assert.match(page.body, /Name saved\./);
  const empty = await b.post('/dashboard/account/name', { name: '  ' });
  assert.equal(empty.statusCode, 422);
  assert.match(empty.body, /id="err-name"/);
});

async function sessionsOf(user: TestUser) {
  return t.database.db.selectFrom('sessions').select('token_hash').where('user_id', '=', user.id).execute();
}

test('the email needs the current password (403 at the field, guesses limited), is unique (409), and ends the other sessions', async () => {
  const u = await addUser(t, 'member');
  const other = await addUser(t, 'viewer');
  const elsewhere = await logIn(t, u);
  const b = await logIn(t, u);
  await b.get('/dashboard/account');
  assert.equal((await b.post('/dashboard/account/email', { email: `x-${uniq()}@example.com`, current: u.password, _csrf: null })).statusCode, 403, 'no CSRF token');
  const wrong = await b.post('/dashboard/account/email', { email: 'moved@example.com', current: 'not my password' });
  assert.equal(wrong.statusCode, 403);
  assert.match(wrong.body, /id="err-current" role="alert">The current password is wrong\./);
  assert.match(wrong.body, /value="moved@example\.com"/);
  const none = await b.post('/dashboard/account/email', { email: 'moved@example.com' });
  assert.equal(none.statusCode, 403, 'no password at all');
  const taken = await b.post('/dashboard/account/email', { email: other.email.toUpperCase(), current: u.password });
  assert.equal(taken.statusCode, 409);
  assert.match(taken.body, /id="err-email" role="alert">Another account uses this email address\./);
  assert.equal((await sessionsOf(u)).length, 2, 'nothing ended by refusals');

  const fresh = `moved-${uniq()}@example.com`;
  const ok = await b.post('/dashboard/account/email', { email: fresh, current: u.password });
  assert.equal(ok.statusCode, 303, ok.body.slice(0, 300));
  assert.equal((await t.modules.users.service.findById(u.id))!.email, fresh);
  assert.equal((await b.get('/dashboard/account?changed=email')).statusCode, 200, 'this browser stays signed in');
  const gone = await elsewhere.get('/dashboard/account');
  assert.equal(gone.statusCode, 303, 'the other browser is signed out');
  assert.match(String(gone.headers.location), /^\/dashboard\/login/);
  assert.equal((await sessionsOf(u)).length, 1);
});

test('wrong current passwords for an email change run into the login limit (429)', async () => {
  const u = await addUser(t, 'member');
  const b = await logIn(t, u);
  await b.get('/dashboard/account');
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) statuses.push((await b.post('/dashboard/account/email', { email: `g-${uniq()}@example.com`, current: `guess ${i}` })).statusCode);
  assert.deepEqual(statuses.slice(0, 3), [403, 403, 403]);
  assert.ok(statuses.slice(3).every((s) => s === 429), statuses.join(','));
  // The right password is refused too until the window passes: the limit counts guesses, not answers.
  assert.equal((await b.post('/dashboard/account/email', { email: `g-${uniq()}@example.com`, current: u.password })).statusCode, 429);
});
