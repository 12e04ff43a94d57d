/**
 * A bio page in chromium on a 390 px phone: no horizontal overflow, axe finds nothing serious or
 * critical (light and dark), and a tap on a tile is a recorded click of that link with trigger
 * `link` and the page as its referer.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { chromium, type Browser } from 'playwright-core';
import { createTestApp, type TestApp } from '../../src/test-support/harness.js';
import { insertDomain, insertLink } from '../../src/redirect/testing.js';
import { CHROMIUM, describeViolations, requireChromium, seriousViolations } from './support.js';

let t: TestApp;
let browser: Browser;
let port: string;
before(async () => {
  requireChromium();
  t = await createTestApp();
  port = new URL(await t.listen()).port;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--host-resolver-rules=MAP bio.test 127.0.0.1'] });
});
after(async () => {
  await browser?.close();
  await t?.close();
});

test('phone layout, axe, and a tap recorded as a click with trigger link', async () => {
  await insertDomain(t.database.db, t.workspaceId, { slug: 'bio.test' });
  const long = 'A very long title without any break '.repeat(4);
  const a = await insertLink(t.database.db, t.workspaceId, { domain: 'bio.test', key: 'tap', url: 'https://example.com/landing', short_link: `http://bio.test:${port}/tap`, title: long });
  const saved = await t.modules.bio.service.save(t.workspaceId, null, { domain: 'bio.test', handle: 'ada', title: 'Ada Lovelace', bio: 'Notes on the engine.', theme: 'dark', links: [a.id], social_github: 'https://github.com/ada' });
  assert.ok(saved.ok);
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, bypassCSP: true, userAgent: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36' });
  const page = await context.newPage();
  const res = await page.goto(`http://bio.test:${port}/@ada`);
  assert.equal(res?.status(), 200);
  const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
  assert.ok(widths.scroll <= widths.client, `no horizontal overflow: ${widths.scroll} > ${widths.client}`);
  const violations = await seriousViolations(page);
  assert.equal(violations.length, 0, describeViolations(violations));
  await page.emulateMedia({ colorScheme: 'light' });
  // The redirect's answer is what the test needs; the destination itself is never reached.
  const [answer] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/tap')), page.tap(`a[data-link-id="${a.id}"]`)]);
  assert.equal(answer.status(), 302);
  assert.equal(answer.headers().location, 'https://example.com/landing');
  await t.modules.redirect.flushClicks();
  const click = await t.database.db.selectFrom('events').selectAll().where('link_id', '=', a.id).executeTakeFirst();
  assert.ok(click, 'the tap was recorded');
  const row = click as unknown as Record<string, unknown>;
  assert.equal(row.trigger, 'link');
  assert.match(String(row.referer_url ?? row.referer), /bio\.test/);
  await context.close();
});
