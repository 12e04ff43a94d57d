/**
 * Issue 42's list pages in Debian's chromium (shares `support.ts`; forms.browser.test.ts has the
 * forms): "Add tag" with no tag chosen is held and said at the tag's list, the ticks kept; a tag's
 * colour is chosen and shown; the audit log's table takes keyboard focus; no strip of another
 * colour above an error page; axe finds nothing serious or critical on the links list, a link's
 * read-only page, customers (sorted), and Settings → Tags, Domains, Folders and Audit log.
 *
 * Every step waits on elements, never on time.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { BrowserContext, Page } from 'playwright-core';
import { describeViolations, startDashboardRun, type DashboardRun } from './support.js';

const OWNER = { email: 'lists@example.com', name: 'Lee Lists', password: 'correct horse battery' };

let run: DashboardRun;
let context: BrowserContext;
let page: Page;
/** `http://127.0.0.1:<port>/dashboard/w/<slug>` */
let ws: string;

before(async () => {
  run = await startDashboardRun();
  context = await run.newContext();
  page = await context.newPage();
  ws = await run.setUpOwner(page, OWNER);
});
after(async () => {
  await run?.close();
});

async function assertAccessible(url: string, name: string): Promise<void> {
  const serious = (await run.audit(url, context)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.equal(serious.length, 0, `axe on the ${name} page:\n${describeViolations(serious)}`);
}

test('"Add tag" without a tag is held at the tag list; tags, details, customers, audit and error pages pass', { timeout: 180_000 }, async () => {
  const made = await run.api('POST', '/links', { url: 'https://example.com/autumn', key: 'autumn-hook', title: 'Autumn hook' });
  assert.equal(made.status, 200, JSON.stringify(made.json));
  await page.goto(`${ws}/settings/tags`);
  await page.getByLabel('New tag').fill('Autumn');
  await page.locator('form[action$="/settings/tags"] select[name=color]').selectOption('green');
  await page.getByRole('button', { name: 'Create tag' }).click();
  await page.locator('.tag-swatch.tag-green').first().waitFor();
  await assertAccessible(`${ws}/settings/tags`, 'settings/tags');

  await page.goto(`${ws}/links`);
  const row = page.locator('tr', { hasText: 'autumn-hook' });
  await row.getByRole('checkbox').check();
  await page.getByRole('button', { name: 'Add tag' }).click();
  const tagList = page.getByLabel('Tag to add');
  assert.equal(await tagList.evaluate((s) => (s as HTMLSelectElement).validationMessage), 'Choose the tag to add.');
  assert.match(page.url(), /\/links$/, 'nothing was sent');
  assert.equal(await row.getByRole('checkbox').isChecked(), true, 'the ticks stay');
  await tagList.selectOption({ label: 'Autumn' });
  await page.getByRole('button', { name: 'Add tag' }).click();
  await page.locator('p.notice', { hasText: '1 link tagged.' }).waitFor();
  await assertAccessible(`${ws}/links`, 'links');

  await assertAccessible(`${ws}/links/${made.json.id}`, 'link details');
  for (const part of ['customers', 'customers?sortBy=saleAmount&sortOrder=desc', 'settings/domains', 'settings/folders', 'settings/audit']) {
    await assertAccessible(`${ws}/${part}`, part);
  }
  // The audit log's table is a named region that takes focus, so the keyboard scrolls it.
  await page.goto(`${ws}/settings/audit`);
  const region = page.getByRole('region', { name: 'Audit log entries' });
  await region.focus();
  assert.equal(await region.evaluate((r) => r === document.activeElement), true);

  // An error page: its body (the grey backdrop) starts at the very top, no strip above it.
  const missing = await page.goto(`${ws}/links/link_nothing`);
  assert.equal(missing?.status(), 404);
  assert.equal(await page.evaluate(() => document.elementFromPoint(innerWidth / 2, 4)?.tagName), 'BODY');
});
