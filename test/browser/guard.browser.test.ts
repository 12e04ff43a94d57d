/**
 * Guard rails in Debian's chromium (shares `support.ts` with the other browser tests):
 *
 * - a delete asks first: the edit page's *Delete link* opens the native `<dialog>` naming the
 *   short link; *Cancel* keeps the link, *Delete link* deletes it (the list says so, the API
 *   answers 404); the bulk *Delete* names how many links are ticked; axe finds nothing serious
 *   with the dialog open. The CSP stays on for the flow (links.js opens the dialog);
 * - log out loads the login page as a full navigation; `/` leads a browser to the dashboard;
 * - the expiry is typed and shown in the browser's time zone (Europe/Berlin), seconds kept.
 *
 * Every step waits on elements, never on time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeViolations, startDashboardRun } from './support.js';

const OWNER = { email: 'guard@example.com', name: 'Gus Guard', password: 'correct horse battery' };

test('a confirmation dialog before a delete (issue 27)', { timeout: 120_000 }, async (t) => {
  const run = await startDashboardRun();
  t.after(() => run.close());
  const context = await run.newContext();
  const page = await context.newPage();
  const cspViolations: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
  });
  const ws = await run.setUpOwner(page, OWNER);
  const doomed = await run.api('POST', '/links', { url: 'https://shop.example.com/doomed', key: 'doomed' });
  assert.equal(doomed.status, 200, JSON.stringify(doomed.json));
  for (const key of ['bulk-a', 'bulk-b']) assert.equal((await run.api('POST', '/links', { url: `https://shop.example.com/${key}`, key })).status, 200);

  await page.goto(`${ws}/links/${doomed.json.id}/edit`);
  const dialog = page.locator('dialog#confirm');
  assert.equal(await dialog.isVisible(), false, 'closed until asked');
  await page.getByRole('button', { name: 'Delete link' }).click();
  await dialog.waitFor({ state: 'visible' });
  assert.match((await dialog.locator('#confirm-text').textContent()) ?? '', /^Delete http:\/\/[^ ]+\/doomed\? It stops redirecting/);
  assert.equal(await dialog.evaluate((d) => d.matches(':modal')), true, 'a modal dialog (the page behind is inert)');
  await run.shot(page, 'confirm-delete');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'hidden' });
  assert.equal((await run.api('GET', `/links/${doomed.json.id}`)).status, 200, 'Cancel keeps the link');
  assert.match(page.url(), /\/edit$/, 'and stays on the page');

  await page.getByRole('button', { name: 'Delete link' }).click();
  await dialog.waitFor({ state: 'visible' });
  await dialog.getByRole('button', { name: 'Delete link' }).click();
  await page.waitForURL(/\/links\?done=delete&n=1$/);
  await assert.doesNotReject(page.getByText('1 link deleted.').waitFor());
  assert.equal((await run.api('GET', `/links/${doomed.json.id}`)).status, 404, 'confirmed: deleted');

  // Bulk: the dialog counts the ticked rows; Escape cancels.
  await page.getByRole('checkbox', { name: /Select .*\/bulk-a$/ }).check();
  await page.getByRole('checkbox', { name: /Select .*\/bulk-b$/ }).check();
  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  await dialog.waitFor({ state: 'visible' });
  assert.match((await dialog.locator('#confirm-text').textContent()) ?? '', /^Delete the 2 selected links\?/);
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  const left = (await run.api('GET', '/links')).json as { key: string }[];
  assert.deepEqual(left.map((l) => l.key).sort(), ['bulk-a', 'bulk-b'], 'Escape deletes nothing');
  assert.deepEqual(cspViolations, []);

  // axe with the dialog open (its own audit context, which bypasses the CSP to inject axe).
  const other = await run.api('POST', '/links', { url: 'https://shop.example.com/audit', key: 'audit' });
  const serious = (
    await run.audit(`${ws}/links/${other.json.id}/edit`, context, async (p) => {
      await p.getByRole('button', { name: 'Delete link' }).click();
      await p.locator('dialog#confirm').waitFor({ state: 'visible' });
    })
  ).filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.equal(serious.length, 0, `axe with the dialog open:\n${describeViolations(serious)}`);
  // Log out is a full navigation: the login page with its own head, body and address.
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.waitForURL(/\/dashboard\/login$/);
  assert.equal(await page.evaluate(() => document.body.className), 'bare');
  assert.match(await page.title(), /Log in/);
  // A browser at the server's address lands on the dashboard (here: its login page).
  await page.goto(`${run.base}/`);
  await page.waitForURL(/\/dashboard\/login/);
});

test('the expiry is typed in the browser’s time zone, seconds kept, with a warning for a past date (issue 27)', { timeout: 120_000 }, async (t) => {
  const run = await startDashboardRun();
  t.after(() => run.close());
  // A zone with daylight saving: 1 June is UTC+2 there.
  const context = await run.newContext({ timezoneId: 'Europe/Berlin' });
  const page = await context.newPage();
  const ws = await run.setUpOwner(page, OWNER);

  await page.goto(`${ws}/links/new`);
  await page.getByLabel('Destination URL').fill('https://shop.example.com/summer');
  await page.getByLabel('Key', { exact: true }).fill('summer-expiry');
  const expiry = page.locator('input[name="expiresAtLocal"]');
  assert.equal(await page.locator('#expiry-zone').textContent(), 'In your time zone (Europe/Berlin).');
  await expiry.fill('2020-06-01T12:30:15');
  assert.equal(await page.locator('#expiry-past').isVisible(), true, 'a past date warns as it is typed');
  await expiry.fill('2030-06-01T12:30:15');
  assert.equal(await page.locator('#expiry-past').isVisible(), false);
  assert.equal(await page.locator('input[name="expiresAt"]').inputValue(), '2030-06-01T10:30:15.000Z');
  await page.getByRole('button', { name: 'Create link' }).click();
  await page.waitForURL(/\/edit\?saved=created$/);
  const id = /\/links\/(link_\w+)\/edit/.exec(page.url())![1]!;
  assert.equal((await run.api('GET', `/links/${id}`)).json.expiresAt, '2030-06-01T10:30:15.000Z', 'saved in UTC, seconds kept');
  // The edit page shows it in Berlin time again (once links.js has run on the swapped-in page), and saving unchanged keeps it.
  await page.locator('input[name="expiresAtLocal"][data-local-ready]').waitFor({ state: 'attached' });
  assert.equal(await page.locator('input[name="expiresAtLocal"]').inputValue(), '2030-06-01T12:30:15');
  await page.getByRole('button', { name: 'Save link' }).click();
  await page.waitForURL(/\/edit\?saved=saved$/);
  assert.equal((await run.api('GET', `/links/${id}`)).json.expiresAt, '2030-06-01T10:30:15.000Z', 'unchanged by a save');
});
