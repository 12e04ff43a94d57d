/**
 * No reset link outlives a new password: a reset, or a change on the account page, voids every
 * link of the account still unused. Mail through a real SMTP receiver (test-support/smtp-inbox.ts);
 * runs on SQLite, and on PostgreSQL when DATABASE_URL is one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestApp } from '../test-support/harness.js';
import { useMailTestApp } from '../test-support/mail-app.js';
import { addUser, Browser, logIn } from '../dashboard/testing.js';

let t: TestApp;
const smtp = useMailTestApp((app) => (t = app));

/** Asks for a link for `email` and waits for its mail: the link's token. */
async function askForLink(email: string): Promise<string> {
  const before = smtp.inbox.filter((m) => m.to.includes(email)).length;
  await t.modules.users.passwordResets.request(email);
  for (const until = Date.now() + 30_000; Date.now() < until; await new Promise((r) => setTimeout(r, 50))) {
    const mails = smtp.inbox.filter((m) => m.to.includes(email));
    if (mails.length > before) {
      const token = /\/dashboard\/reset\?token=([\w-]+)/.exec(mails[before]!.text)?.[1];
      assert.ok(token, mails[before]!.text);
      return token;
    }
  }
  throw new Error(`no reset mail to ${email}`);
}

/** Sets `password` with the link of `token` through the reset form; the answer's status. */
async function useLink(token: string, password: string): Promise<number> {
  const browser = new Browser(t);
  const page = await browser.get(`/dashboard/reset?token=${token}`);
  if (page.statusCode !== 200) {
    await browser.get('/dashboard/forgot'); // a CSRF field (the refusal page has no form)
  }
  return (await browser.post('/dashboard/reset', { token, password })).statusCode;
}

const passwordWorks = async (email: string, password: string) => (await t.modules.users.service.checkPassword(email, password)) !== null;

test('using the newer of two reset links voids the older one', async () => {
  const user = await addUser(t, 'viewer');
  const older = await askForLink(user.email);
  const newer = await askForLink(user.email);
  assert.notEqual(older, newer);

  assert.equal(await useLink(newer, 'the newer link password'), 200);
  assert.equal((await new Browser(t).get(`/dashboard/reset?token=${older}`)).statusCode, 404, 'the older link is gone');
  assert.equal(await useLink(older, 'the older link password'), 404);
  assert.ok(await passwordWorks(user.email, 'the newer link password'));
  assert.ok(!(await passwordWorks(user.email, 'the older link password')));
  const left = await t.database.db.selectFrom('password_resets').select('used_at').where('user_id', '=', user.id).execute();
  assert.deepEqual(left.map((r) => r.used_at === null), [false], 'only the used link is kept');
});

test('a password changed on the account page voids every outstanding reset link', async () => {
  const user = await addUser(t, 'viewer');
  const first = await askForLink(user.email);
  const second = await askForLink(user.email);
  const browser = await logIn(t, user);
  await browser.get('/dashboard/account');
  const changed = await browser.post('/dashboard/account/password', { current: user.password, password: 'changed on the account page' });
  assert.equal(changed.statusCode, 303, changed.body);

  for (const token of [first, second]) {
    assert.equal((await new Browser(t).get(`/dashboard/reset?token=${token}`)).statusCode, 404);
    assert.equal(await useLink(token, 'set by an old link'), 404);
  }
  assert.ok(await passwordWorks(user.email, 'changed on the account page'));
  assert.ok(!(await passwordWorks(user.email, 'set by an old link')));
  // The session of the change stays; no old link ended it.
  assert.equal((await browser.get('/dashboard/account')).statusCode, 200);
});

test("another account's links are left alone", async () => {
  const ann = await addUser(t, 'viewer');
  const bob = await addUser(t, 'viewer');
  const bobs = await askForLink(bob.email);
  assert.equal(await useLink(await askForLink(ann.email), 'ann resets her own'), 200);
  assert.equal(await useLink(bobs, 'bob resets his own'), 200);
  assert.ok(await passwordWorks(bob.email, 'bob resets his own'));
});
