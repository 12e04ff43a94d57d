/**
 * The dashboard on a phone-sized screen and with the keyboard (issue 17), in Debian's chromium
 * (shares `support.ts` with dashboard.browser.test.ts):
 *
 * - at 390×844, every main page fits the screen's width (no horizontal scrolling of the page:
 *   wide tables scroll inside their wrapper, forms stack);
 * - a CSV import through the upload form (htmx sends it as multipart) shows its report, and axe
 *   finds nothing serious on the import page;
 * - from the login page, Tab reaches the email, the password and *Log in* in that order, and the
 *   focused control has a visible outline (`:focus-visible`);
 * - on the links page, Tab reaches the main actions (New link, Import CSV, Export CSV, the search
 *   field, Apply, a link's Edit).
 *
 * Every step waits on elements, never on time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { describeViolations, startDashboardRun } from './support.js';

const OWNER = { email: 'phone@example.com', name: 'Pat Phone', password: 'correct horse battery' };
const PHONE = { width: 390, height: 844 };

/** The page's overflow: how much wider than the window the document is (0 when it fits). */
async function overflowOf(page: Page): Promise<{ over: number; culprits: string[] }> {
  return page.evaluate(() => {
    const width = window.innerWidth;
    const over = document.documentElement.scrollWidth - width;
    // The widest elements that stick out, to say what to fix.
    const culprits = over <= 0 ? [] : [...document.querySelectorAll('body *')]
      .filter((e) => e.getBoundingClientRect().right > width + 1)
      .slice(0, 5)
      .map((e) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${e.className && typeof e.className === 'string' ? `.${e.className.split(' ').join('.')}` : ''}`);
    return { over, culprits };
  });
}

/** Presses Tab up to `max` times; returns a label for each control that got the focus. */
async function tabThrough(page: Page, max: number, stopAt?: (label: string) => boolean): Promise<string[]> {
  const seen: string[] = [];
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    const label = await page.evaluate(() => {
      const e = document.activeElement as HTMLElement | null;
      if (!e || e === document.body) return '';
      const name = e.getAttribute('name');
      const text = (e.getAttribute('aria-label') ?? e.textContent ?? '').trim().replace(/\s+/g, ' ');
      return `${e.tagName.toLowerCase()}${name ? `[${name}]` : ''}:${text.slice(0, 40)}`;
    });
    seen.push(label);
    if (stopAt?.(label)) break;
  }
  return seen;
}

test('phone-sized screen and keyboard: no page wider than 390 px, login and links by Tab (issue 17)', { timeout: 120_000 }, async (t) => {
  const run = await startDashboardRun();
  t.after(() => run.close());

  const phone = await run.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
  const page = await phone.newPage();
  await page.goto(run.setupUrl);
  assert.equal((await overflowOf(page)).over <= 0, true, 'the setup page fits');
  const ws = await run.setUpOwner(page, OWNER);

  // Content that makes pages wide: a long destination, a long tag name, a link with UTM.
  const long = `https://shop.example.com/${'very-long-path-segment/'.repeat(8)}?utm_source=newsletter&utm_campaign=${'c'.repeat(60)}`;
  assert.equal((await run.api('POST', '/tags', { name: 'a-rather-long-tag-name-for-phones' })).status, 201);
  const created = await run.api('POST', '/links', { url: long, key: 'phone-link-with-a-long-key' });
  assert.equal(created.status, 200, JSON.stringify(created.json));

  // The import form, as a phone sends it (htmx, multipart).
  await page.goto(`${ws}/links/import`);
  await page.setInputFiles('input[name="file"]', { name: 'links.csv', mimeType: 'text/csv', buffer: Buffer.from('url,key\nhttps://example.com/p1,phone-1\nnot a url,phone-2\n') });
  await page.getByRole('button', { name: 'Import' }).click();
  await assert.doesNotReject(page.getByRole('heading', { name: 'Import done' }).waitFor());
  assert.match((await page.getByRole('status').first().textContent()) ?? '', /2 rows: 1 created, 0 skipped, 1 rejected/);
  const serious = (await run.audit(`${ws}/links/import`, phone)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.equal(serious.length, 0, `axe on the import page:\n${describeViolations(serious)}`);

  const pages = [
    '/links', '/links/new', `/links/${created.json.id}/edit`, '/links/import', '/analytics', '/events', '/customers',
    '/settings/general', '/settings/domains', '/settings/tags', '/settings/folders', '/settings/utm', '/settings/keys', '/settings/webhooks', '/settings/members',
  ];
  for (const path of pages) {
    const response = await page.goto(`${ws}${path}`);
    assert.equal(response?.status(), 200, path);
    const { over, culprits } = await overflowOf(page);
    assert.ok(over <= 0, `${path} is ${over} px wider than the screen: ${culprits.join(', ')}`);
  }
  await page.goto(`${run.base}/dashboard/account`);
  assert.ok((await overflowOf(page)).over <= 0, 'the account page fits');

  // Keyboard: the login form in order, with a visible focus outline.
  const desk = await run.newContext();
  const login = await desk.newPage();
  await login.goto(`${run.base}/dashboard/login`);
  // The email field has the focus on arrival (autofocus); from the page's first control, Tab gets there too.
  assert.equal(await login.evaluate(() => document.activeElement?.getAttribute('name')), 'email');
  await login.keyboard.press('Shift+Tab');
  const order = await tabThrough(login, 15, (l) => l.startsWith('button:'));
  const at = (prefix: string) => order.findIndex((l) => l.startsWith(prefix));
  assert.ok(at('input[email]') >= 0 && at('input[email]') < at('input[password]') && at('input[password]') < at('button:Log in'), `Tab order: ${order.join(' → ')}`);
  await login.locator('input[name="email"]').focus();
  await login.keyboard.press('Shift+Tab');
  await login.keyboard.press('Tab');
  const outline = await login.evaluate(() => {
    const s = getComputedStyle(document.activeElement!);
    return { style: s.outlineStyle, width: parseFloat(s.outlineWidth) };
  });
  assert.ok(outline.style !== 'none' && outline.width >= 2, `a focused field has a visible outline: ${JSON.stringify(outline)}`);

  // Keyboard: the links page's main actions.
  await login.getByLabel('Email').fill(OWNER.email);
  await login.getByLabel('Password').fill(OWNER.password);
  await login.keyboard.press('Enter');
  await login.waitForURL(/\/dashboard\/w\/[^/]+\/links$/);
  const wanted = ['a:New link', 'a:Import CSV', 'a:Export CSV', 'input[search]', 'button:Apply', 'a:Edit'];
  const reached = await tabThrough(login, 80, () => false);
  for (const w of wanted) assert.ok(reached.some((l) => l.startsWith(w)), `Tab reaches ${w}: ${reached.join(' → ')}`);
});
