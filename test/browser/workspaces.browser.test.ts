/**
 * A workspace created from the dashboard in chromium (issue 30), under the CSP: the owner from the
 * first-run setup opens *New workspace* from the workspace switcher, types a name (links.js
 * suggests the slug from it), creates it and lands on its links page, the switcher naming it.
 * The form is audited by axe (no serious or critical violation). Waits on elements, never on time.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { BrowserContext, Page } from 'playwright-core';
import { describeViolations, startDashboardRun, type DashboardRun } from './support.js';

const OWNER = { email: 'founder@example.com', name: 'Fay Founder', password: 'correct horse battery' };

let run: DashboardRun;
let context: BrowserContext;
let page: Page;
before(async () => {
  run = await startDashboardRun();
  context = await run.newContext();
  page = await context.newPage();
  await run.setUpOwner(page, OWNER);
});
after(async () => {
  await run?.close();
});

test('an owner creates a workspace from the switcher and lands in it', { timeout: 120_000 }, async () => {
  await page.locator('details.switcher summary').click();
  await page.getByRole('link', { name: '+ New workspace' }).click();
  await page.waitForURL(/\/dashboard\/workspaces\/new$/);
  await page.getByLabel('Name', { exact: true }).fill('Growth Team 2027');
  // links.js writes the slug as the name is typed.
  assert.equal(await page.getByLabel(/^Slug/).inputValue(), 'growth-team-2027');
  await run.shot(page, 'new-workspace');
  const violations = (await run.audit(page.url(), context)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.equal(violations.length, 0, `axe on the new-workspace page:\n${describeViolations(violations)}`);

  await page.getByRole('button', { name: 'Create workspace' }).click();
  await page.waitForURL(/\/dashboard\/w\/growth-team-2027\/links$/);
  await page.locator('details.switcher summary', { hasText: 'Growth Team 2027' }).waitFor();
  assert.match(await page.locator('details.switcher summary').innerText(), /Growth Team 2027\s+owner/);
  await run.shot(page, 'new-workspace-links');

  // A slug typed by hand is kept as typed; a taken one comes back at its field.
  await page.goto(`${run.base}/dashboard/workspaces/new`);
  await page.getByLabel(/^Slug/).fill('growth-team-2027');
  await page.getByLabel('Name', { exact: true }).fill('Another');
  assert.equal(await page.getByLabel(/^Slug/).inputValue(), 'growth-team-2027');
  await page.getByRole('button', { name: 'Create workspace' }).click();
  await page.locator('#err-slug').waitFor();
  assert.match(await page.locator('#err-slug').innerText(), /already in use/);
  assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'Another');
});
