/**
 * Login limits (issue 26, class 6): only failures count; a browser that logged in to an account
 * before keeps its own allowance whatever others do; behind one trusted proxy a made-up
 * `X-Forwarded-For` entry changes nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { Browser, addUser } from './testing.js';

/** A browser whose requests come through one proxy that appends `address` (TRUST_PROXY=1). */
function browserAt(t: TestApp, address: string, spoof?: () => string) {
  const browser = new Browser(t);
  const via = () => ({ 'x-forwarded-for': spoof ? `${spoof()}, ${address}` : address });
  return {
    browser,
    open: () => browser.get('/dashboard/login', via()),
    login: (email: string, password: string) => browser.post('/dashboard/login', { email, password }, via()),
    /** Logs out (the form's token comes from a page of the session), then opens the login form again. */
    async logOut() {
      await browser.get('/dashboard/account', via());
      assert.equal((await browser.post('/dashboard/logout', {}, via())).statusCode, 303);
      assert.equal(browser.cookies.has('wm_session'), false);
      await browser.get('/dashboard/login', via());
    },
  };
}

const limits = { loginRateLimitPerAccount: 3, loginRateLimitPerAddress: 100, loginRateLimitPerAccountAnywhere: 5 };

test('ten normal sign-ins in a row do not lock anyone out: successes do not count', async () => {
  const t = await createTestApp({ env: { TRUST_PROXY: '1' }, config: { loginRateLimitPerAccount: 10 } });
  try {
    const user = await addUser(t, 'owner');
    for (let i = 0; i < 11; i++) {
      const fresh = browserAt(t, '198.51.100.20');
      await fresh.open();
      assert.equal((await fresh.login(user.email, user.password)).statusCode, 303, `sign-in ${i + 1}`);
    }
  } finally {
    await t.close();
  }
});

test('behind one trusted proxy, made-up X-Forwarded-For entries do not spread failures over addresses', async () => {
  const t = await createTestApp({ env: { TRUST_PROXY: '1' }, config: limits });
  try {
    const user = await addUser(t, 'owner');
    let n = 0;
    const attacker = browserAt(t, '203.0.113.66', () => `10.${n % 250}.${++n % 250}.1`);
    await attacker.open();
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await attacker.login(user.email, `guess number ${i}`)).statusCode);
    assert.deepEqual(statuses, [401, 401, 401, 429, 429, 429], 'the proxy-added address is counted, not the spoofed ones');
    // Another real address has its own count for the account.
    const elsewhere = browserAt(t, '198.51.100.7');
    await elsewhere.open();
    assert.equal((await elsewhere.login(user.email, user.password)).statusCode, 303);
  } finally {
    await t.close();
  }
});

test("an attacker's failures from many addresses do not lock out a browser that logged in before", async () => {
  const t = await createTestApp({ env: { TRUST_PROXY: '1' }, config: limits });
  try {
    const user = await addUser(t, 'owner');
    const owner = browserAt(t, '198.51.100.10');
    await owner.open();
    assert.equal((await owner.login(user.email, user.password)).statusCode, 303);
    assert.match(owner.browser.cookies.get('wm_device') ?? '', /^[0-9a-z]+_[0-9a-f]{24}_[0-9a-f]{32}$/, 'a login sets the device cookie');
    await owner.logOut();

    // 20 failures, each from another address: under every per-address limit, over the account's (5).
    for (let i = 0; i < 20; i++) {
      const bot = browserAt(t, `203.0.113.${i + 1}`);
      await bot.open();
      const status = (await bot.login(user.email, `guess number ${i}`)).statusCode;
      assert.equal(status, i < 5 ? 401 : 429, `attempt ${i + 1}`);
    }
    // A browser the account does not know, even with the right password: 429 for now.
    const unknown = browserAt(t, '198.51.100.99');
    await unknown.open();
    assert.equal((await unknown.login(user.email, user.password)).statusCode, 429);
    // The owner's browser, with its device cookie, from the same address an attacker used too.
    const back = await owner.browser.post('/dashboard/login', { email: user.email, password: user.password }, { 'x-forwarded-for': '203.0.113.1' });
    assert.equal(back.statusCode, 303);
    assert.ok(owner.browser.cookies.has('wm_session'));
  } finally {
    await t.close();
  }
});

test("a device cookie counts its own failures, is the account's own, and is void after a password change", async () => {
  const t = await createTestApp({ env: { TRUST_PROXY: '1' }, config: limits });
  try {
    const user = await addUser(t, 'owner');
    const other = await addUser(t, 'member');
    const owner = browserAt(t, '198.51.100.10');
    await owner.open();
    assert.equal((await owner.login(user.email, user.password)).statusCode, 303);
    const device = owner.browser.cookies.get('wm_device')!;
    await owner.logOut();

    // Another account's token, or one altered, is no device of this account: the anywhere limit applies.
    for (let i = 0; i < 5; i++) {
      const bot = browserAt(t, `203.0.113.${i + 1}`);
      await bot.open();
      assert.equal((await bot.login(other.email, `guess number ${i}`)).statusCode, 401);
    }
    const borrowed = browserAt(t, '198.51.100.11');
    await borrowed.open();
    borrowed.browser.cookies.set('wm_device', device);
    assert.equal((await borrowed.login(other.email, other.password)).statusCode, 429, "the owner's token does not exempt another account");
    const altered = browserAt(t, '198.51.100.12');
    await altered.open();
    altered.browser.cookies.set('wm_device', device.replace(/.$/, (c) => (c === '0' ? '1' : '0')));
    await altered.login(user.email, 'a wrong password');

    // The device's own failures: 3, then even this browser waits.
    for (let i = 0; i < 3; i++) assert.equal((await owner.login(user.email, `typo number ${i}`)).statusCode, 401);
    assert.equal((await owner.login(user.email, user.password)).statusCode, 429);

    // A new password voids the account's device tokens.
    const fresh = browserAt(t, '198.51.100.13');
    await fresh.open();
    assert.equal((await fresh.login(user.email, user.password)).statusCode, 303);
    const oldToken = fresh.browser.cookies.get('wm_device')!;
    assert.ok(await t.modules.users.service.knownDevice(user.email, oldToken));
    await fresh.browser.get('/dashboard/account', { 'x-forwarded-for': '198.51.100.13' });
    const changed = await fresh.browser.post('/dashboard/account/password', { current: user.password, password: 'a brand new passphrase' }, { 'x-forwarded-for': '198.51.100.13' });
    assert.equal(changed.statusCode, 303, changed.body);
    assert.equal(await t.modules.users.service.knownDevice(user.email, oldToken), null);
    assert.ok(await t.modules.users.service.knownDevice(user.email, fresh.browser.cookies.get('wm_device')), 'this browser got a new one');
  } finally {
    await t.close();
  }
});
