/**
 * The dashboard's second pass in Debian's chromium (shares `support.ts` with the other browser
 * tests; one server and one browser for every case of this file):
 *
 * - UTM templates: saved in Settings → UTM templates, chosen in the link builder's picker, which
 *   fills the UTM fields and the destination's query (links.js, under the CSP); the link saved
 *   carries them; axe finds nothing serious on both pages;
 * - the links page at 390×844: cards, under 3 screens for 21 links, nothing wider than the
 *   screen, the filters collapsed and usable;
 * - *Fetch from destination* fills the builder's preview from a local page's og tags (the server
 *   runs with WEBHOOK_ALLOW_PRIVATE=true, the webhooks' switch, so it may read 127.0.0.1).
 *
 * Every step waits on elements, never on time.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserContext, Page } from 'playwright-core';
import { describeViolations, startDashboardRun, type DashboardRun } from './support.js';

const OWNER = { email: 'polish@example.com', name: 'Pat Polish', password: 'correct horse battery' };

let run: DashboardRun;
let context: BrowserContext;
let page: Page;
/** `http://127.0.0.1:<port>/dashboard/w/<slug>` */
let ws: string;
const cspViolations: string[] = [];

/** The destination page "Fetch from destination" reads (the server fetches it, not the browser). */
let site: http.Server;
let siteUrl: string;

before(async () => {
  site = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<html><head><meta property="og:title" content="Autumn sale"><meta property="og:description" content="Coats and boots, 30 % off"><meta property="og:image" content="/autumn.png"></head><body>Sale</body></html>');
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  run = await startDashboardRun({ WEBHOOK_ALLOW_PRIVATE: 'true' });
  context = await run.newContext();
  page = await context.newPage();
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
  });
  ws = await run.setUpOwner(page, OWNER);
});
after(async () => {
  await run?.close();
  site?.closeAllConnections();
  await new Promise((r) => site?.close(r));
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

test('on a 390×844 phone the links page with 20 links is cards under 3 screens tall, none wider than the screen (issue 27)', { timeout: 120_000 }, async () => {
  for (let i = 0; i < 20; i++) {
    const created = await run.api('POST', '/links', {
      url: `https://shop.example.com/${'a-long-path-segment/'.repeat(6)}item-${i}?utm_source=newsletter&utm_campaign=${'c'.repeat(40)}`,
      key: `phone-card-${i}-with-a-longer-key`,
      title: `Spring collection, item ${i}: a title long enough to need truncating on a phone`,
    });
    assert.equal(created.status, 200, JSON.stringify(created.json));
  }
  const phone = await run.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  await phone.addCookies(await context.cookies()); // the owner's session
  const p = await phone.newPage();
  await p.goto(`${ws}/links`);
  await run.shot(p, 'phone-links');
  assert.equal(await p.locator('tr[data-link-id]').count(), 21, 'the 20 links and the one the template test made');
  const layout = await p.evaluate(() => ({
    height: document.documentElement.scrollHeight,
    width: document.documentElement.scrollWidth,
    rowDisplay: getComputedStyle(document.querySelector('tr[data-link-id]')!).display,
    filtersOpen: (document.querySelector('details.more-filters') as HTMLDetailsElement).open,
    destinationTruncated: (() => {
      const cell = document.querySelector('tr[data-link-id] td.url') as HTMLElement;
      return getComputedStyle(cell).textOverflow === 'ellipsis' && cell.scrollWidth > cell.clientWidth;
    })(),
  }));
  assert.equal(layout.rowDisplay, 'grid', 'each link is a card');
  assert.equal(layout.filtersOpen, false, 'the filters start collapsed');
  assert.equal(layout.destinationTruncated, true, 'the destination is one truncated line');
  assert.ok(layout.width <= 390, `nothing wider than the screen: ${layout.width} px`);
  assert.ok(layout.height < 3 * 844, `under 3 screens: ${layout.height} px for 21 links`);
  // What each card shows: short link, title, destination, clicks.
  const card = p.locator('tr[data-link-id]').first();
  for (const part of ['td.link .short-link', 'td.link .hint', 'td.url', 'td.clicks']) assert.equal(await card.locator(part).isVisible(), true, part);

  // The collapsed filters still work: open, choose, apply.
  await p.getByText('Filters and sorting').click();
  await p.getByLabel('Sort by').selectOption('clicks');
  await p.getByRole('button', { name: 'Apply' }).click();
  await p.waitForURL(/sortBy=clicks/);
  assert.equal(await p.locator('details.more-filters').evaluate((d) => (d as HTMLDetailsElement).open), true, 'open while a filter is set');
  const serious = (await run.audit(`${ws}/links`, phone)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.equal(serious.length, 0, `axe on the links page:\n${describeViolations(serious)}`);
});

test('“Fetch from destination” fills the preview fields from the page’s og tags (issue 27)', { timeout: 120_000 }, async () => {
  await page.goto(`${ws}/links/new`);
  await page.getByLabel('Destination URL').fill(`${siteUrl}/autumn`);
  await page.getByLabel('Key', { exact: true }).fill('autumn-sale');
  await page.getByRole('checkbox', { name: /Custom link preview/ }).uncheck();
  await page.getByRole('button', { name: 'Fetch from destination' }).click();
  await page.locator('#fetch-status.notice').waitFor();
  assert.equal(await page.getByLabel('Title', { exact: true }).inputValue(), 'Autumn sale');
  assert.equal(await page.getByRole('textbox', { name: 'Description' }).inputValue(), 'Coats and boots, 30 % off');
  assert.equal(await page.getByLabel('Image URL').inputValue(), `${siteUrl}/autumn.png`);
  assert.equal(await page.getByRole('checkbox', { name: /Custom link preview/ }).isChecked(), true);
  assert.match((await page.locator('.preview-card').textContent()) ?? '', /Autumn sale/);
  assert.equal(await page.locator('#link-builder [name=key]').inputValue(), 'autumn-sale', 'the rest of the form is untouched');
  await page.getByRole('button', { name: 'Create link' }).click();
  await page.waitForURL(/\/edit\?saved=created$/);
  const saved = ((await run.api('GET', '/links')).json as { key: string; title: string | null; proxy: boolean }[]).find((l) => l.key === 'autumn-sale')!;
  assert.equal(saved.title, 'Autumn sale');
  assert.equal(saved.proxy, true);
  assert.deepEqual(cspViolations, []);
});
