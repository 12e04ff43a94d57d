/** `/` for browsers, `/favicon.ico`, and log out as a full navigation (entry.ts, kit.tsx fullRedirect). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../test-support/harness.js';
import { addUser, logIn } from './testing.js';

test('/ sends browsers to the dashboard and API clients keep their JSON 404; /favicon.ico is an icon', async () => {
  const t = await createTestApp();
  try {
    const browser = await t.app.inject({ method: 'GET', url: '/', headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } });
    assert.equal(browser.statusCode, 302);
    assert.equal(browser.headers.location, '/dashboard');
    for (const accept of [undefined, 'application/json', '*/*']) {
      const api = await t.app.inject({ method: 'GET', url: '/', headers: accept ? { accept } : {} });
      assert.equal(api.statusCode, 404, String(accept));
      assert.equal(api.json().error.code, 'not_found');
    }
    const icon = await t.app.inject({ method: 'GET', url: '/favicon.ico' });
    assert.equal(icon.statusCode, 200);
    assert.equal(icon.headers['content-type'], 'image/x-icon');
    const body = icon.rawPayload;
    assert.deepEqual([...body.subarray(0, 6)], [0, 0, 1, 0, 1, 0], 'an ICO header with one image');
    assert.equal(body.readUInt32LE(18), 22, 'the image starts after the directory');
    assert.equal(body.subarray(22, 30).toString('latin1'), '\x89PNG\r\n\x1a\n', 'a PNG inside');
    assert.equal(body.readUInt32LE(14), body.length - 22);
    assert.equal(body.readUInt32BE(22 + 16), 32, 'the PNG is 32 px wide');
  } finally {
    await t.close();
  }
});

test('log out is a full navigation: the form is not boosted, and an htmx request gets HX-Redirect', async () => {
  const t = await createTestApp();
  try {
    const user = await addUser(t, 'owner');
    const browser = await logIn(t, user);
    const page = await browser.get('/dashboard/account');
    assert.match(page.body, /<form method="post" action="\/dashboard\/logout" hx-boost="false">/);
    assert.match(page.body, /<form method="post" action="\/dashboard\/logout-everywhere" hx-boost="false">/);
    assert.match(page.body, /<link rel="icon" href="\/favicon.ico"\/>/);
    const htmx = await browser.post('/dashboard/logout', {}, { 'hx-request': 'true' });
    assert.equal(htmx.statusCode, 200);
    assert.equal(htmx.headers['hx-redirect'], '/dashboard/login');
    assert.match(String(htmx.headers['set-cookie']), /wm_session=;.*Max-Age=0/);
    assert.equal((await browser.get('/dashboard/account')).statusCode, 303, 'logged out');

    const again = await logIn(t, user);
    await again.get('/dashboard/account');
    const plain = await again.post('/dashboard/logout');
    assert.equal(plain.statusCode, 303);
    assert.equal(plain.headers.location, '/dashboard/login');
  } finally {
    await t.close();
  }
});
