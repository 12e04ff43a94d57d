/**
 * Single sign-on in Debian's chromium (shares `support.ts` with the other browser tests): the
 * login page's "Sign in with …" button leads to a real OpenID Connect provider's own login page
 * (oidc-provider in this process, test-support/oidc-provider.ts), and its answer into the
 * dashboard as a new account of the first workspace. Every step waits on elements, never on time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startDashboardRun } from './support.js';
import { CLIENT, startOidcProvider } from '../../src/test-support/oidc-provider.js';

const OWNER = { email: 'owner@example.com', name: 'Olga Owner', password: 'correct horse battery' };

test('"Sign in with …" goes through the provider\'s login page into the dashboard (issue 30)', { timeout: 120_000 }, async (t) => {
  const idp = await startOidcProvider({ redirectUri: 'http://127.0.0.1/dashboard/sso/callback' });
  t.after(() => idp.close());
  const run = await startDashboardRun({ OIDC_ISSUER: idp.issuer, OIDC_CLIENT_ID: CLIENT.id, OIDC_CLIENT_SECRET: CLIENT.secret, OIDC_ALLOWED_DOMAINS: 'example.com', OIDC_NAME: 'Example ID' });
  t.after(() => run.close());
  idp.setRedirectUri(`${run.base}/dashboard/sso/callback`);

  // The first owner sets up the workspace that SSO accounts join.
  const setup = await (await run.newContext()).newPage();
  await setup.goto(run.setupUrl);
  await setup.getByLabel('Email').fill(OWNER.email);
  await setup.getByLabel('Name').fill(OWNER.name);
  await setup.getByLabel('Password').fill(OWNER.password);
  await setup.getByRole('button', { name: 'Create account' }).click();
  await setup.waitForURL(/\/dashboard\/w\/[^/]+\/links$/);

  const page = await (await run.newContext()).newPage();
  await page.goto(`${run.base}/dashboard/login`);
  await page.getByRole('link', { name: 'Sign in with Example ID' }).click();
  await page.waitForURL((url) => url.origin === idp.issuer);
  await run.shot(page, 'sso-provider-login');
  await page.locator('input[name="login"]').fill('ann');
  await page.locator('input[name="password"]').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.waitForURL(/\/dashboard\/w\/[^/]+\/links$/);
  assert.ok(page.url().startsWith(run.base));
  await run.shot(page, 'sso-signed-in');
  await page.goto(`${run.base}/dashboard/account`);
  assert.match(await page.locator('main').innerText(), /ann@example\.com/);
});
