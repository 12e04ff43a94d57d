/**
 * Mail through a real SMTP receiver in the test process (`smtp-server`): invitations, password
 * resets (single use, same answer for unknown addresses, rate limited) and webhook alerts, each
 * message's recipients, subject and working link; and a mail server that is down, then up.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { SmtpInbox, type Received } from '../test-support/smtp-inbox.js';
import { addUser, Browser, logIn, slugOf } from '../dashboard/testing.js';
import { RESET_ASKS } from '../dashboard/routes/password-reset.js';

const smtp = new SmtpInbox();
const inbox = smtp.inbox;
const startSmtp = (listenPort = 0) => smtp.start(listenPort);
const stopSmtp = () => smtp.stop();
const mailTo = (address: string, timeoutMs?: number) => smtp.mailTo(address, timeoutMs);

const linkIn = (m: Received, path: string) => {
  const url = new RegExp(`http://localhost:3999(${path}\\S*)`).exec(m.text)?.[1];
  assert.ok(url, `a ${path} link in: ${m.text}`);
  return url;
};

let t: TestApp;
before(async () => {
  await startSmtp();
  t = await createTestApp({ env: { SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, MAIL_FROM: 'Waymark <links@example.com>', WEBHOOK_ALLOW_PRIVATE: 'true' } });
});
after(async () => {
  await t.close();
  await stopSmtp();
});

test('an invitation is mailed to the invited address with a working link', async () => {
  const owner = await addUser(t, 'owner');
  const browser = await logIn(t, owner);
  const slug = await slugOf(t);
  await browser.get(`/dashboard/w/${slug}/settings/members`);
  const res = await browser.post(`/dashboard/w/${slug}/settings/members/invite`, { email: 'invitee@example.com', role: 'viewer' });
  assert.equal(res.statusCode, 201, res.body);
  assert.match(res.body, /An email with this link is on its way/);
  const m = await mailTo('invitee@example.com');
  assert.deepEqual(m.to, ['invitee@example.com']);
  assert.match(m.subject, /^Join .+ on Waymark$/);
  const page = await new Browser(t).get(linkIn(m, '/dashboard/invite'));
  assert.equal(page.statusCode, 200, page.body);
  assert.match(page.body, /invitee@example\.com/);
});

test('"Forgot password?": a single-use link by mail; the same answer for an unknown address', async () => {
  const user = await addUser(t, 'viewer');
  const login = await new Browser(t).get('/dashboard/login');
  assert.match(login.body, /href="\/dashboard\/forgot"/);

  const anon = new Browser(t);
  await anon.get('/dashboard/forgot');
  const known = await anon.post('/dashboard/forgot', { email: user.email.toUpperCase() });
  await anon.get('/dashboard/forgot');
  const unknown = await anon.post('/dashboard/forgot', { email: 'nobody-here@example.com' });
  assert.equal(known.statusCode, 200);
  assert.equal(unknown.statusCode, known.statusCode);
  const answer = (body: string) => /<p class="notice"[^>]*>([\s\S]*?)<\/p>/.exec(body)?.[1];
  assert.equal(answer(unknown.body), answer(known.body), 'no user oracle');

  const m = await mailTo(user.email);
  assert.deepEqual(m.to, [user.email]);
  assert.equal(m.subject, 'Reset your Waymark password');
  const link = linkIn(m, '/dashboard/reset');
  const browser = new Browser(t);
  assert.equal((await browser.get(link)).statusCode, 200);
  const done = await browser.post('/dashboard/reset', { token: new URL(link, 'http://x').searchParams.get('token')!, password: 'a brand new password' });
  assert.equal(done.statusCode, 200, done.body);
  assert.match(done.body, /Your password was changed/);
  await logIn(t, { email: user.email, password: 'a brand new password' });

  // Used twice: refused, and the password stays the one set the first time.
  const again = new Browser(t);
  assert.equal((await again.get(link)).statusCode, 404);
  await again.get('/dashboard/forgot'); // a CSRF field (the refusal page has no form)
  const second = await again.post('/dashboard/reset', { token: new URL(link, 'http://x').searchParams.get('token')!, password: 'another new password' });
  assert.equal(second.statusCode, 404);
  await logIn(t, { email: user.email, password: 'a brand new password' });
  assert.ok(!inbox.some((m) => m.to.includes('nobody-here@example.com')), 'no mail for an unknown address');
});

test('asking for reset links is rate limited per address asked for', async () => {
  const user = await addUser(t, 'viewer');
  const anon = new Browser(t);
  const codes: number[] = [];
  for (let i = 0; i <= RESET_ASKS.perAccount; i++) {
    await anon.get('/dashboard/forgot');
    codes.push((await anon.post('/dashboard/forgot', { email: user.email })).statusCode);
  }
  assert.deepEqual(codes, [...Array(RESET_ASKS.perAccount).fill(200), 429]);
});

test('a mail server that is down delays mail and loses none', async () => {
  const user = await addUser(t, 'viewer');
  const listening = smtp.port;
  await stopSmtp();
  await t.modules.users.passwordResets.request(user.email);
  await new Promise((r) => setTimeout(r, 1500)); // at least one refused attempt
  assert.ok(!inbox.some((m) => m.to.includes(user.email)));
  await startSmtp(listening);
  const m = await mailTo(user.email, 60_000);
  assert.equal(m.subject, 'Reset your Waymark password');
});

test("a failing webhook's owners are mailed at 5 failures and when the 20th disables it", async () => {
  const owner = await addUser(t, 'owner', t.workspaceId, 'Hook Owner');
  const hook = (await t.inject({ method: 'POST', url: '/webhooks', payload: { name: 'Flaky', url: 'http://127.0.0.1:9/hook', triggers: ['link.created'] } })).json().id as string;
  const failNext = async (failuresBefore: number) => {
    await t.ctx.database.db.updateTable('webhooks').set({ consecutive_failures: failuresBefore }).where('id', '=', hook).execute();
    assert.equal((await t.inject({ method: 'POST', url: `/webhooks/${hook}/test`, payload: { trigger: 'link.created' } })).statusCode, 200);
  };
  await failNext(4);
  const failing = await mailTo(owner.email);
  assert.ok(failing.to.includes(owner.email));
  assert.equal(failing.subject, 'Webhook failing: Flaky (5 failures)');
  const slug = await slugOf(t);
  const hookPage = linkIn(failing, '/dashboard/w/');
  assert.equal(hookPage, `/dashboard/w/${slug}/settings/webhooks/${hook}`);
  assert.equal((await (await logIn(t, owner)).get(hookPage)).statusCode, 200);

  inbox.length = 0;
  await failNext(19);
  const disabled = await mailTo(owner.email);
  assert.equal(disabled.subject, 'Webhook disabled: Flaky');
  const row = await t.ctx.database.db.selectFrom('webhooks').select('disabled_at').where('id', '=', hook).executeTakeFirstOrThrow();
  assert.notEqual(row.disabled_at, null);
});
