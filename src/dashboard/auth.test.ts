/**
 * Dashboard authentication on the engine under test: first-run setup, login and its throttling,
 * the constant-time path for unknown accounts, cookies, CSRF, session expiry and revocation, and
 * the API's bearer keys left as they were.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../test-support/harness.js';
import { scryptRuns } from '../users/password.js';
import { Browser, addUser, logIn, slugOf } from './testing.js';

const DAY = 24 * 60 * 60 * 1000;

test('the setup address creates the first owner once; used, it is refused', async () => {
  const t = await createTestApp();
  try {
    const token = (await t.modules.users.service.issueSetupToken())!;
    const browser = new Browser(t);
    assert.equal((await browser.get('/setup?token=wrong')).statusCode, 404);
    const form = await browser.get(`/setup?token=${token}`);
    assert.equal(form.statusCode, 200);
    const weak = await browser.post('/setup', { token, email: 'ann@example.com', name: 'Ann', password: 'short' });
    assert.equal(weak.statusCode, 422);
    assert.match(weak.body, /password: must be at least 10 characters/);

    const done = await browser.post('/setup', { token, email: 'ann@example.com', name: 'Ann', password: 'correct horse battery' });
    assert.equal(done.statusCode, 303);
    assert.equal(done.headers.location, `/dashboard/w/${await slugOf(t)}/links`);
    assert.equal((await browser.get(done.headers.location!)).statusCode, 200);
    const ann = (await t.modules.users.service.findByEmail('ANN@example.com'))!;
    assert.equal(await t.modules.users.service.roleOf(ann.id, t.workspaceId), 'owner');

    // Single use: the page and the form are refused, and no second token is issued.
    const again = new Browser(t);
    assert.equal((await again.get(`/setup?token=${token}`)).statusCode, 404);
    await again.get('/dashboard/login');
    const replay = await again.post('/setup', { token, email: 'eve@example.com', name: 'Eve', password: 'correct horse battery' });
    assert.equal(replay.statusCode, 404);
    assert.equal(await t.modules.users.service.findByEmail('eve@example.com'), undefined);
    assert.equal(await t.modules.users.service.issueSetupToken(), null);
  } finally {
    await t.close();
  }
});

test('one setup address at a time: each start replaces the earlier ones, and it expires after 24 hours', async () => {
  let clock = Date.parse('2026-03-01T09:00:00Z');
  const t = await createTestApp({ now: () => clock });
  try {
    const users = t.modules.users.service;
    const first = (await users.issueSetupToken())!;
    const second = (await users.issueSetupToken())!;
    assert.notEqual(first, second);
    const browser = new Browser(t);
    assert.equal((await browser.get(`/setup?token=${first}`)).statusCode, 404, 'replaced by the next start');
    assert.equal((await browser.get(`/setup?token=${second}`)).statusCode, 200);
    const owner = { email: 'ann@example.com', name: 'Ann', password: 'correct horse battery' };
    assert.equal((await browser.post('/setup', { token: first, ...owner })).statusCode, 404, 'the replaced token creates nobody');

    clock += 24 * 60 * 60 * 1000 - 60_000;
    assert.equal((await browser.get(`/setup?token=${second}`)).statusCode, 200, 'still valid just before 24 hours');
    clock += 2 * 60_000;
    assert.equal((await browser.get(`/setup?token=${second}`)).statusCode, 404, 'expired');
    assert.equal((await browser.post('/setup', { token: second, ...owner })).statusCode, 404);
    assert.equal(await users.findByEmail(owner.email), undefined);

    // The next start's address works.
    const third = (await users.issueSetupToken())!;
    await browser.get(`/setup?token=${third}`);
    assert.equal((await browser.post('/setup', { token: third, ...owner })).statusCode, 303);
    assert.ok(await users.findByEmail(owner.email));
    const rows = await t.database.db.selectFrom('setup_tokens').select(['used_at']).execute();
    assert.equal(rows.length, 1, 'only the used token is left');
  } finally {
    await t.close();
  }
});

test('login sets an HttpOnly, SameSite=Lax session cookie (Secure on https) that opens pages, not the API', async () => {
  for (const base of ['http://localhost:3999', 'https://links.example.com']) {
    const t = await createTestApp({ env: { BASE_URL: base } });
    try {
      const user = await addUser(t, 'owner');
      const browser = new Browser(t);
      const page = await browser.get('/dashboard/login');
      const csrf = String(page.headers['set-cookie']);
      assert.match(csrf, /^wm_csrf=[\w-]+; /);
      for (const attribute of ['Path=/', 'HttpOnly', 'SameSite=Lax']) assert.ok(csrf.split('; ').includes(attribute), `${attribute} in ${csrf}`);
      const res = await browser.post('/dashboard/login', { email: user.email.toUpperCase(), password: user.password });
      assert.equal(res.statusCode, 303);
      const cookie = String(res.headers['set-cookie']);
      assert.match(cookie, /^wm_session=[\w-]{43}; /);
      const attributes = cookie.split(',wm_')[0]!.split('; ');
      for (const attribute of ['Path=/', 'HttpOnly', 'SameSite=Lax']) assert.ok(attributes.includes(attribute), `${attribute} in ${cookie}`);
      assert.equal(cookie.includes('; Secure'), base.startsWith('https:'));
      // Only the token's hash is stored.
      const rows = await t.database.db.selectFrom('sessions').select('token_hash').execute();
      assert.equal(rows.length, 1);
      assert.notEqual(rows[0]!.token_hash, browser.cookies.get('wm_session'));

      const api = await t.app.inject({ method: 'GET', url: '/links', headers: { cookie: `wm_session=${browser.cookies.get('wm_session')}` } });
      assert.equal(api.statusCode, 401);
      assert.equal((await t.inject({ method: 'GET', url: '/links' })).statusCode, 200, 'bearer keys work as before');
    } finally {
      await t.close();
    }
  }
});

test('pages send the security headers; without a session they lead to the login page', async () => {
  const t = await createTestApp();
  try {
    const res = await t.app.inject({ method: 'GET', url: `/dashboard/w/${await slugOf(t)}/links` });
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, `/dashboard/login?next=${encodeURIComponent(`/dashboard/w/${await slugOf(t)}/links`)}`);
    const csp = String(res.headers['content-security-policy']);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self';/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(res.headers['referrer-policy'], 'same-origin');
    // The page served, with its scripts and styles from this server only.
    const login = await t.app.inject({ method: 'GET', url: '/dashboard/login' });
    assert.doesNotMatch(login.body, /<script>|<style|style="|https?:\/\/(?!localhost)/);
    const htmx = /<script src="([^"]+)"/.exec(login.body)![1]!;
    const js = await t.app.inject({ method: 'GET', url: htmx, headers: { 'accept-encoding': 'gzip' } });
    assert.equal(js.statusCode, 200);
    assert.equal(js.headers['content-encoding'], 'gzip');
    const css = await t.app.inject({ method: 'GET', url: /<link rel="stylesheet" href="([^"]+)"/.exec(login.body)![1]! });
    assert.equal(css.statusCode, 200);
    assert.match(String(css.headers['content-type']), /^text\/css/);
    // A next address outside the dashboard is ignored.
    const user = await addUser(t, 'owner');
    const browser = new Browser(t);
    await browser.get('/dashboard/login');
    const res2 = await browser.post('/dashboard/login', { email: user.email, password: user.password, next: '//evil.example/x' });
    assert.equal(res2.headers.location, '/dashboard');
  } finally {
    await t.close();
  }
});

test('a wrong password and an unknown address get the same answer, and both run scrypt', async () => {
  const t = await createTestApp();
  try {
    const user = await addUser(t, 'owner');
    const browser = new Browser(t);
    await browser.get('/dashboard/login');
    let before = scryptRuns.count;
    const unknown = await browser.post('/dashboard/login', { email: 'nobody@example.com', password: 'correct horse battery' });
    assert.equal(scryptRuns.count, before + 1, 'scrypt ran for an address with no account');
    before = scryptRuns.count;
    const wrong = await browser.post('/dashboard/login', { email: user.email, password: 'wrong horse battery' });
    assert.equal(scryptRuns.count, before + 1);
    assert.equal(unknown.statusCode, 401);
    assert.equal(wrong.statusCode, 401);
    const message = (body: string) => /<p class="error" role="alert">([^<]+)<\/p>/.exec(body)![1];
    assert.equal(message(unknown.body), message(wrong.body));
    assert.equal(browser.cookies.has('wm_session'), false);
  } finally {
    await t.close();
  }
});

test('failed logins are throttled per account and address, and per address; the check runs before the password', async () => {
  const t = await createTestApp({ config: { loginRateLimitPerAccount: 3, loginRateLimitPerAddress: 6 } });
  try {
    const user = await addUser(t, 'owner');
    const browser = new Browser(t);
    await browser.get('/dashboard/login');
    for (let i = 0; i < 3; i++) assert.equal((await browser.post('/dashboard/login', { email: user.email, password: `wrong ${i} password` })).statusCode, 401);
    const before = scryptRuns.count;
    const limited = await browser.post('/dashboard/login', { email: user.email, password: user.password });
    assert.equal(limited.statusCode, 429);
    assert.ok(Number(limited.headers['retry-after']) > 0);
    assert.equal(scryptRuns.count, before, 'past the limit the password is not even checked');
    assert.equal(browser.cookies.has('wm_session'), false, 'even the right password is refused');
    // The address's budget: 3 failures, 3 left for other accounts, then 429 for any account.
    for (const other of ['a', 'b', 'c']) assert.equal((await browser.post('/dashboard/login', { email: `${other}@example.com`, password: 'x' })).statusCode, 401);
    assert.equal((await browser.post('/dashboard/login', { email: 'd@example.com', password: 'x' })).statusCode, 429);
  } finally {
    await t.close();
  }
});

test('CSRF: a state-changing request without the token, with a wrong one or from another origin is refused', async () => {
  const t = await createTestApp();
  try {
    const owner = await addUser(t, 'owner');
    const browser = await logIn(t, owner);
    const slug = await slugOf(t);
    await browser.get(`/dashboard/w/${slug}/settings/members`);
    const invite = `/dashboard/w/${slug}/settings/members/invite`;
    const fields = { email: 'bo@example.com', role: 'viewer' };
    assert.equal((await browser.post(invite, { ...fields, _csrf: null })).statusCode, 403);
    assert.equal((await browser.post(invite, { ...fields, _csrf: 'x'.repeat(43) })).statusCode, 403);
    // The token of another session does not fit this one.
    const other = await logIn(t, await addUser(t, 'owner'));
    await other.get(`/dashboard/w/${slug}/settings/members`);
    assert.equal((await browser.post(invite, { ...fields, _csrf: other.csrf })).statusCode, 403);
    assert.equal((await browser.post(invite, fields, { origin: 'https://evil.example' })).statusCode, 403);
    assert.equal((await browser.post(invite, fields, { 'sec-fetch-site': 'cross-site' })).statusCode, 403);
    assert.equal(await t.modules.users.invitations.pending(t.workspaceId).then((p) => p.length), 0);
    // The login form is protected too (login CSRF).
    const anonymous = new Browser(t);
    assert.equal((await anonymous.post('/dashboard/login', { email: owner.email, password: owner.password, _csrf: null })).statusCode, 403);

    const ok = await browser.post(invite, fields, { origin: 'http://localhost:3999', 'sec-fetch-site': 'same-origin' });
    assert.equal(ok.statusCode, 201);
    // htmx requests send the token as a header instead (hx-headers on <body>).
    const header = /hx-headers="\{&#34;x-csrf-token&#34;:&#34;([\w-]+)&#34;\}"/.exec(ok.body)![1]!;
    assert.equal(header, browser.csrf);
    const viaHeader = await browser.post(invite, { email: 'cy@example.com', role: 'viewer', _csrf: null }, { 'x-csrf-token': header, 'hx-request': 'true' });
    assert.equal(viaHeader.statusCode, 201);
  } finally {
    await t.close();
  }
});

test('log out ends this session; log out everywhere ends every session of the user', async () => {
  const t = await createTestApp();
  try {
    const user = await addUser(t, 'owner');
    const slug = await slugOf(t);
    const page = `/dashboard/w/${slug}/links`;
    const laptop = await logIn(t, user);
    const phone = await logIn(t, user);
    const tablet = await logIn(t, user);
    await laptop.get(page);
    const out = await laptop.post('/dashboard/logout');
    assert.equal(out.statusCode, 303);
    assert.equal(laptop.cookies.has('wm_session'), false);
    assert.equal((await phone.get(page)).statusCode, 200);

    await phone.get('/dashboard/account');
    assert.equal((await phone.post('/dashboard/logout-everywhere')).statusCode, 303);
    assert.equal((await tablet.get(page)).statusCode, 303, 'the other device is logged out');
    assert.equal((await phone.get(page)).statusCode, 303);
    assert.equal((await t.database.db.selectFrom('sessions').selectAll().execute()).length, 0);
  } finally {
    await t.close();
  }
});

test('sessions expire after a week unused, slide with use, and end 30 days after login whatever the use', async () => {
  let clock = Date.UTC(2026, 0, 1);
  const t = await createTestApp({ now: () => clock });
  try {
    const user = await addUser(t, 'owner');
    const page = `/dashboard/w/${await slugOf(t)}/links`;
    const idle = await logIn(t, user);
    const busy = await logIn(t, user);
    clock += 6 * DAY;
    assert.equal((await busy.get(page)).statusCode, 200);
    clock += 1 * DAY + 1000;
    assert.equal((await idle.get(page)).statusCode, 303, 'idle for 7 days: expired');
    assert.equal(idle.cookies.has('wm_session'), false, 'the dead cookie is cleared');
    for (let d = 7; d < 30; d += 5) {
      assert.equal((await busy.get(page)).statusCode, 200, `day ${d}`);
      clock += 5 * DAY;
    }
    // Day 32: used every 5 days, yet past the absolute cap.
    assert.equal((await busy.get(page)).statusCode, 303);
  } finally {
    await t.close();
  }
});

test('a new password needs the current one, ends the other sessions and keeps this browser logged in', async () => {
  const t = await createTestApp();
  try {
    const user = await addUser(t, 'member');
    const here = await logIn(t, user);
    const elsewhere = await logIn(t, user);
    await here.get('/dashboard/account');
    assert.equal((await here.post('/dashboard/account/password', { current: 'not my password', password: 'a brand new secret' })).statusCode, 403);
    const weak = await here.post('/dashboard/account/password', { current: user.password, password: 'short' });
    assert.equal(weak.statusCode, 422);
    assert.match(weak.body, /at least 10 characters/);
    const done = await here.post('/dashboard/account/password', { current: user.password, password: 'a brand new secret' });
    assert.equal(done.statusCode, 303);
    assert.equal((await here.get(done.headers.location!)).statusCode, 200);
    assert.equal((await elsewhere.get('/dashboard/account')).statusCode, 303, 'the other session ended');
    assert.equal(await t.modules.users.service.checkPassword(user.email, user.password), null);
    assert.ok(await t.modules.users.service.checkPassword(user.email, 'a brand new secret'));
  } finally {
    await t.close();
  }
});
