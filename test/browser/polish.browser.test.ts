/**
 * The dashboard's second pass in Debian's chromium (shares `support.ts` with the other browser
 * tests; one server and one browser for every case of this file):
 *
 * - UTM templates: saved in Settings → UTM templates, chosen in the link builder's picker, which
 *   fills the UTM fields and the destination's query (links.js, under the CSP); the link saved
 *   carries them; axe finds nothing serious on both pages.
 *
 * Every step waits on elements, never on time.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { BrowserContext, Page } from 'playwright-core';
import { describeViolations, startDashboardRun, type DashboardRun } from './support.js';

const OWNER = { email: 'polish@example.com', name: 'Pat Polish', password: 'correct horse battery' };

let run: DashboardRun;
let context: BrowserContext;
let page: Page;
/** `http://127.0.0.1:<port>/dashboard/w/<slug>` */
let ws: string;
const cspViolations: string[] = [];

before(async () => {
  run = await startDashboardRun();
  context = await run.newContext();
  page = await context.newPage();
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
  });
  await page.goto(run.setupUrl);
  await page.getByLabel('Email').fill(OWNER.email);
  await page.getByLabel('Name').fill(OWNER.name);
  await page.getByLabel('Password').fill(OWNER.password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL(/\/dashboard\/w\/[^/]+\/links$/);
  ws = `${run.base}/dashboard/w/${/\/dashboard\/w\/([^/]+)\/links/.exec(page.url())![1]!}`;
});
after(async () => {
  await run?.close();
});

async function assertAccessible(url: string, name: string): Promise<void> {
  const serious = (await run.audit(url, context)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.equal(serious.length, 0, `axe on the ${name} page:\n${describeViolations(serious)}`);
}

test('a UTM template saved in the settings fills the builder’s UTM fields and URL (issue 27)', { timeout: 120_000 }, async () => {
  await page.goto(`${ws}/settings/utm`);
  await page.getByLabel('Name').fill('Spring newsletter');
  await page.getByLabel('Source').fill('newsletter');
  await page.getByLabel('Medium').fill('email');
  await page.getByLabel('Campaign').fill('spring-2026');
  await page.getByRole('button', { name: 'Save template' }).click();
  await page.getByRole('rowheader', { name: 'Spring newsletter' }).waitFor();
  await assertAccessible(`${ws}/settings/utm`, 'UTM templates');

  await page.goto(`${ws}/links/new`);
  assert.equal(await page.getByRole('button', { name: 'Apply template' }).isVisible(), false, 'JavaScript applies on change: no Apply button');
  await page.getByLabel('Destination URL').fill('https://shop.example.com/spring?utm_term=old');
  await page.getByLabel('Key', { exact: true }).fill('spring-template');
  await page.getByLabel('UTM template').selectOption({ label: 'Spring newsletter' });
  const utm = page.locator('fieldset.utm');
  assert.equal(await utm.getByLabel('Source').inputValue(), 'newsletter');
  assert.equal(await utm.getByLabel('Medium').inputValue(), 'email');
  assert.equal(await utm.getByLabel('Campaign').inputValue(), 'spring-2026');
  assert.equal(await utm.getByLabel('Term').inputValue(), '', 'a value the template does not set is cleared');
  const url = new URL(await page.getByLabel('Destination URL').inputValue());
  assert.equal(url.searchParams.get('utm_source'), 'newsletter');
  assert.equal(url.searchParams.get('utm_campaign'), 'spring-2026');
  assert.equal(url.searchParams.get('utm_term'), null);
  assert.match(page.url(), /\/links\/new$/, 'choosing a template leaves the page alone');
  await assertAccessible(`${ws}/links/new`, 'link builder with UTM templates');

  await page.getByRole('button', { name: 'Create link' }).click();
  await page.waitForURL(/\/edit\?saved=created$/);
  const links = (await run.api('GET', '/links')).json as { key: string; utm_source: string | null; utm_medium: string | null; utm_campaign: string | null; url: string }[];
  const saved = links.find((l) => l.key === 'spring-template')!;
  assert.deepEqual([saved.utm_source, saved.utm_medium, saved.utm_campaign], ['newsletter', 'email', 'spring-2026']);
  assert.deepEqual(cspViolations, []);
});
