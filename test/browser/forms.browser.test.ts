/**
 * Issue 42's dashboard defects in Debian's chromium (shares `support.ts`; one server and one
 * browser for the file), under the CSP:
 *
 * - a new workspace opens on its getting-started steps;
 * - the workspace switcher closes on Escape and gives focus back to its summary;
 * - the slug fields' `pattern` compiles (no console error) and the browser's own validation
 *   refuses a slug with spaces before anything is sent;
 * - the webhook form creates a `link.clicked` webhook for one chosen link (the link picker shows
 *   once link.clicked is ticked and "chosen links" is picked), and a webhook's edit page shows
 *   it as saved and changes it (link.clicked added for a chosen link);
 * - *Copy key* and *Copy link* put the new API key and the invitation link on the clipboard;
 * - axe finds nothing serious or critical on the pages these steps use
 *   (lists.browser.test.ts covers the others: the file stays within the runner's 2 minutes).
 *
 * Every step waits on elements, never on time.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { BrowserContext, Page } from 'playwright-core';
import { describeViolations, startDashboardRun, type DashboardRun } from './support.js';

const OWNER = { email: 'forms@example.com', name: 'Fran Forms', password: 'correct horse battery' };

let run: DashboardRun;
let context: BrowserContext;
let page: Page;
/** `http://127.0.0.1:<port>/dashboard/w/<slug>` */
let ws: string;
const consoleErrors: string[] = [];

before(async () => {
  run = await startDashboardRun();
  context = await run.newContext();
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: run.base });
  page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  ws = await run.setUpOwner(page, OWNER);
});
after(async () => {
  await run?.close();
});

async function assertAccessible(url: string, name: string, prepare?: (p: Page) => Promise<void>): Promise<void> {
  const serious = (await run.audit(url, context, prepare)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.equal(serious.length, 0, `axe on the ${name} page:\n${describeViolations(serious)}`);
}

test('a new workspace opens on getting-started steps; Escape closes the workspace switcher', { timeout: 120_000 }, async () => {
  await page.goto(`${ws}/links`);
  const start = page.getByRole('region', { name: 'Get started' });
  await start.waitFor();
  for (const name of ['Create a short link', 'Add your own domain', 'Create an API key']) assert.ok(await start.getByRole('link', { name }).isVisible(), name);
  await run.shot(page, 'getting-started');
  await assertAccessible(`${ws}/links`, 'getting-started links');

  const switcher = page.locator('details.switcher');
  await switcher.locator('summary').click();
  await page.getByRole('link', { name: '+ New workspace' }).waitFor();
  assert.equal(await switcher.evaluate((d) => (d as HTMLDetailsElement).open), true);
  await page.keyboard.press('Tab'); // into the list
  await page.keyboard.press('Escape');
  assert.equal(await switcher.evaluate((d) => (d as HTMLDetailsElement).open), false, 'Escape closes it');
  assert.equal(await page.evaluate(() => document.activeElement?.tagName), 'SUMMARY', 'focus goes back to its summary');
});

test('the slug pattern is valid for the browser, whose own validation refuses a bad slug', { timeout: 120_000 }, async () => {
  consoleErrors.length = 0;
  await page.goto(`${run.base}/dashboard/workspaces/new`);
  const slug = page.getByLabel(/^Slug/);
  await slug.waitFor();
  await page.getByLabel('Name', { exact: true }).fill('Pattern Check');
  await slug.fill('not a slug!');
  assert.equal(await slug.evaluate((i) => (i as HTMLInputElement).validity.patternMismatch), true, 'the pattern is applied');
  await page.getByRole('button', { name: 'Create workspace' }).click();
  assert.notEqual(await slug.evaluate((i) => (i as HTMLInputElement).validationMessage), '', 'the browser says why');
  assert.match(page.url(), /\/dashboard\/workspaces\/new$/, 'nothing was sent');
  await slug.fill('pattern-check');
  assert.equal(await slug.evaluate((i) => (i as HTMLInputElement).validity.valid), true, 'letters, digits and hyphens pass');
  assert.deepEqual(consoleErrors.filter((e) => /pattern/i.test(e)), [], 'no "invalid pattern" console error');

  await page.goto(`${ws}/settings/general`);
  const general = page.getByLabel('Slug', { exact: true });
  await general.fill('with space');
  assert.equal(await general.evaluate((i) => (i as HTMLInputElement).validity.patternMismatch), true);
  assert.deepEqual(consoleErrors.filter((e) => /pattern/i.test(e)), []);
  await assertAccessible(`${ws}/settings/general`, 'settings/general');
});

test('a link.clicked webhook for one chosen link is created from the form', { timeout: 120_000 }, async () => {
  const made = await run.api('POST', '/links', { url: 'https://example.com/autumn', key: 'autumn-hook', title: 'Autumn hook' });
  assert.equal(made.status, 200, JSON.stringify(made.json));
  await run.api('POST', '/links', { url: 'https://example.com/other', key: 'other-hook' });
  await run.api('POST', '/links', { url: 'https://example.com/third', key: 'third-hook' });
  await page.goto(`${ws}/settings/webhooks`);
  const scope = page.locator('fieldset[data-linkscope]');
  await page.getByLabel('Name').fill('Autumn clicks');
  await page.getByLabel('URL').fill('https://hooks.example.com/autumn');
  assert.equal(await scope.isVisible(), false, 'the link choice shows only for link.clicked');
  await page.getByLabel('link.clicked').check();
  await scope.waitFor();
  const picker = page.locator('fieldset[data-linkscope-for="links"]');
  assert.equal(await picker.isVisible(), false, 'every link is the default: no picker');
  await page.getByLabel('The links chosen below').check();
  await picker.waitFor();
  await picker.getByLabel(/autumn-hook/).check();
  // The shared link picker: typing narrows the links, the ticked one stays ticked; Enter sends nothing.
  const search = picker.getByLabel('Find a link');
  assert.equal(await picker.locator('#webhook-link-choices input[type=checkbox]').count(), 3, 'the newest links first');
  await search.fill('other-hook');
  await page.waitForFunction(() => document.querySelectorAll('#webhook-link-choices input[type=checkbox]').length === 2);
  const labels = await picker.locator('#webhook-link-choices label').allInnerTexts();
  assert.ok(/autumn-hook/.test(labels[0]!) && /other-hook/.test(labels[1]!), `the ticked link, then the match: ${labels.join(' | ')}`);
  assert.equal(await picker.getByLabel(/autumn-hook/).isChecked(), true, 'the ticked link is kept');
  assert.equal(await picker.getByLabel(/other-hook/).isChecked(), false);
  await search.press('Enter');
  assert.equal(await page.locator('li[data-webhook-id]', { hasText: 'Autumn clicks' }).count(), 0, 'Enter in the search sent nothing');
  await run.shot(page, 'webhook-link-clicked');
  await page.getByRole('button', { name: 'Create webhook' }).click();
  await page.locator('li[data-webhook-id]', { hasText: 'Autumn clicks' }).waitFor();
  assert.match(await page.locator('li[data-webhook-id]', { hasText: 'Autumn clicks' }).innerText(), /Clicks of 1 chosen link\./);
  const hooks = (await run.api('GET', '/webhooks')).json as { name: string; triggers: string[]; linkScope: string; linkIds: string[] }[];
  const hook = hooks.find((h) => h.name === 'Autumn clicks');
  assert.deepEqual({ triggers: hook?.triggers, linkScope: hook?.linkScope, linkIds: hook?.linkIds }, { triggers: ['link.clicked'], linkScope: 'links', linkIds: [made.json.id] });

  // A refusal comes back at its field, in plain words.
  await page.getByLabel('Name').fill('Local');
  await page.getByLabel('URL').fill('http://127.0.0.1:9/hook');
  await page.getByLabel('lead.created').check();
  await page.getByRole('button', { name: 'Create webhook' }).click();
  await page.locator('#err-url').waitFor();
  assert.match(await page.locator('#err-url').innerText(), /private or local network/);
  assert.doesNotMatch(await page.locator('main').innerText(), /WEBHOOK_ALLOW_PRIVATE/);
  await assertAccessible(`${ws}/settings/webhooks`, 'settings/webhooks (link choice open)', async (p) => {
    await p.getByLabel('link.clicked').check();
    await p.getByLabel('Links in the folders chosen below').check();
  });
});

test('a webhook is edited from its page: the form as saved, the link picker for link.clicked', { timeout: 120_000 }, async () => {
  const link = await run.api('POST', '/links', { url: 'https://example.com/winter', key: 'winter-hook', title: 'Winter hook' });
  const made = await run.api('POST', '/webhooks', { name: 'Sales feed', url: 'https://hooks.example.com/sales', triggers: ['sale.created'] });
  assert.equal(made.status, 200, JSON.stringify(made.json));
  await page.goto(`${ws}/settings/webhooks`);
  await page.getByRole('link', { name: 'Edit the webhook Sales feed' }).click();
  await page.waitForURL(new RegExp(`/settings/webhooks/${made.json.id}/edit$`));
  assert.equal(await page.getByLabel('Name').inputValue(), 'Sales feed');
  assert.equal(await page.getByLabel('sale.created').isChecked(), true);
  const scope = page.locator('fieldset[data-linkscope]');
  // links.js hides the choice once it runs (the page works without it): wait for that, not a moment.
  await scope.waitFor({ state: 'hidden', timeout: 10_000 });
  assert.equal(await scope.isVisible(), false, 'no link choice without link.clicked');
  await page.getByLabel('link.clicked').check();
  await page.getByLabel('The links chosen below').check();
  const picker = page.locator('fieldset[data-linkscope-for="links"]');
  await picker.waitFor();
  await picker.getByLabel(/winter-hook/).check();
  await page.getByLabel('Name').fill('Sales and winter clicks');
  await run.shot(page, 'webhook-edit');
  await page.getByRole('button', { name: 'Save webhook' }).click();
  await page.waitForURL(new RegExp(`/settings/webhooks/${made.json.id}$`));
  const hook = (await run.api('GET', `/webhooks/${made.json.id}`)).json as { name: string; triggers: string[]; linkScope: string; linkIds: string[] };
  assert.deepEqual({ name: hook.name, triggers: [...hook.triggers].sort(), linkScope: hook.linkScope, linkIds: hook.linkIds }, { name: 'Sales and winter clicks', triggers: ['link.clicked', 'sale.created'], linkScope: 'links', linkIds: [link.json.id] });
  // Opened again, the picker shows the choice as saved.
  await page.goto(`${ws}/settings/webhooks/${made.json.id}/edit`);
  assert.equal(await picker.isVisible(), true);
  assert.equal(await picker.getByLabel(/winter-hook/).isChecked(), true);
  await assertAccessible(`${ws}/settings/webhooks/${made.json.id}/edit`, 'settings/webhooks/:id/edit');
});

test('Copy buttons put a new API key and an invitation link on the clipboard', { timeout: 120_000 }, async () => {
  await page.goto(`${ws}/settings/keys`);
  await page.getByLabel('Name', { exact: true }).fill('Copy me');
  await page.getByRole('button', { name: 'Create key' }).click();
  const key = (await page.locator('#new-api-key').innerText()).trim();
  assert.match(key, /^wm_/);
  await page.getByRole('button', { name: 'Copy key' }).click();
  await page.getByRole('button', { name: 'Copied' }).waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), key);
  await assertAccessible(`${ws}/settings/keys`, 'settings/keys');

  await page.goto(`${ws}/settings/members`);
  await page.getByLabel('Email').fill('newcomer@example.com');
  await page.getByRole('button', { name: 'Create invitation link' }).click();
  const url = (await page.locator('#invite-url').innerText()).trim();
  assert.match(url, /\/dashboard\/invite\?token=/);
  await page.getByRole('button', { name: 'Copy link' }).click();
  await page.getByRole('button', { name: 'Copied' }).waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), url);
  await assertAccessible(`${ws}/settings/members`, 'settings/members');
});
