/**
 * The browser extension (issue 44) in Debian's chromium, loaded unpacked (`--load-extension`,
 * headless), against `src/main.ts` on 127.0.0.1: the options saved and checked against the API, a
 * UTM template added, the page of a tab shortened with a domain, a key, a tag and the template,
 * the link read back through the API, the short link copied (the clipboard read back), its QR code
 * drawn from `GET /qr`, a click on it counted in the recent links, and a hostile tag name shown as
 * text; axe finds nothing serious in the options page or the popup (light and dark). The
 * extension's pages call the API cross-origin with a bearer key and no host permission, so every
 * call also proves the server's CORS answer for extensions (src/http/cors.ts).
 *
 * The toolbar button's activeTab grant cannot be given by automation, so the test loads a copy of
 * the extension whose manifest adds the `tabs` permission (which also lets the popup read the
 * tab's URL) and `clipboardRead` (for the test to read the clipboard back; Chromium grants no
 * clipboard permission to an extension origin from outside); everything else is the shipped
 * folder as it is.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { freePort, privateDatabase, startServer } from '../../src/test-support/processes.js';
import { CHROMIUM, DESKTOP_CHROME, describeViolations, requireChromium, seriousViolations, unpackedExtensionId } from './support.js';

const HOSTILE_TAG = '<img src=x onerror="document.title=1">';


test('the extension in chromium: options, shorten a tab with domain, key, tag and UTM template, copy, QR code, clicks (issue 44)', { timeout: 150_000 }, async (t) => {
  requireChromium();
  // The shop the tab shows and the short link leads to: a page on this machine (every name maps here).
  const shopServer = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Spring sale</title><h1>Spring sale</h1>'));
  await new Promise<void>((ok) => shopServer.listen(0, '127.0.0.1', ok));
  t.after(() => shopServer.close());
  const shopOrigin = `http://shop.example.com:${(shopServer.address() as AddressInfo).port}`;
  const SHOP = `${shopOrigin}/spring?ref=home`;
  const database = await privateDatabase();
  t.after(() => database.dispose());
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const apiKey = `wm_ext_${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
  const server = await startServer(database.url, port, apiKey, { BASE_URL: base, CLICK_FLUSH_INTERVAL_MS: '10' });
  t.after(async () => {
    server.child.kill('SIGTERM');
    await server.exited;
  });
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${apiKey}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
    return { status: res.status, json: (await res.json()) as any };
  };
  const tag = await api('POST', '/tags', { name: 'spring' });
  assert.equal(tag.status, 201, JSON.stringify(tag.json));
  assert.equal((await api('POST', '/tags', { name: HOSTILE_TAG })).status, 201);
  const domain = await api('POST', '/domains', { slug: 'go.example.com' });
  assert.equal(domain.status, 201, JSON.stringify(domain.json));

  // The shipped folder, copied so the manifest can gain `tabs` and `clipboardRead` (see above).
  const work = mkdtempSync(join(tmpdir(), 'waymark-extension-'));
  t.after(() => rmSync(work, { recursive: true, force: true }));
  const extension = join(work, 'extension');
  cpSync('extension', extension, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(extension, 'manifest.json'), 'utf8'));
  assert.equal(manifest.host_permissions, undefined, 'the shipped extension asks for no host permission: CORS carries its calls');
  assert.ok(manifest.permissions.includes('clipboardWrite'), 'the copy button writes with the clipboardWrite permission');
  manifest.permissions = [...manifest.permissions, 'tabs', 'clipboardRead'];
  writeFileSync(join(extension, 'manifest.json'), JSON.stringify(manifest));
  const id = unpackedExtensionId(extension);
  const origin = `chrome-extension://${id}`;

  const context: BrowserContext = await chromium.launchPersistentContext(join(work, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    userAgent: DESKTOP_CHROME,
    // Short links live on wm.localhost:<port> and go.example.com: every name maps to this machine.
    args: ['--no-sandbox', `--disable-extensions-except=${extension}`, `--load-extension=${extension}`, '--host-resolver-rules=MAP * 127.0.0.1'],
  });
  t.after(() => context.close());
  context.setDefaultTimeout(30_000);
  const errors: string[] = [];
  context.on('weberror', (e) => errors.push(e.error().message));

  // 1. Options: base URL and key, checked against the API; a UTM template.
  const options = await context.newPage();
  await options.goto(`${origin}/options.html`);
  await options.locator('body[data-ready="true"]').waitFor();
  await options.getByLabel('API base URL').fill(`${base}/`);
  await options.getByLabel('API key').fill(apiKey);
  await options.getByRole('button', { name: 'Save and check' }).click();
  await options.locator('#connection-status', { hasText: 'The key works' }).waitFor();
  assert.equal(await options.getByLabel('API base URL').inputValue(), base, 'the trailing slash is dropped');
  await options.getByRole('button', { name: 'Add a template' }).click();
  await options.getByLabel('Name').fill('Newsletter');
  await options.getByLabel('Source').fill('newsletter');
  await options.getByLabel('Medium').fill('email');
  await options.getByRole('button', { name: 'Save templates' }).click();
  await options.locator('#templates-status', { hasText: 'Saved 1 template' }).waitFor();
  const optionsAudit = await seriousViolations(options);
  assert.equal(optionsAudit.length, 0, `axe on the options page:\n${describeViolations(optionsAudit)}`);
  await options.close();

  // 2. The popup over the shop's tab.
  const shop = await context.newPage();
  await shop.goto(SHOP);
  const popup = await openPopupOver(context, shop, origin);
  assert.equal(await popup.getByLabel('Page').inputValue(), SHOP, "the active tab's URL");
  await popup.locator('#domain option[value="go.example.com"]').waitFor({ state: 'attached' });
  await popup.getByLabel('Domain').selectOption('go.example.com');
  await popup.getByLabel('Key').fill('spring-sale');
  await popup.getByLabel('UTM template').selectOption('Newsletter');
  await popup.getByLabel('spring', { exact: true }).check();
  // The hostile tag name is a label's text, not markup.
  assert.equal(await popup.locator('#tags img').count(), 0);
  assert.equal(await popup.getByLabel(HOSTILE_TAG).count(), 1);
  await popup.getByRole('button', { name: 'Shorten' }).click();
  await popup.locator('#status', { hasText: 'Short link created' }).waitFor();
  const shortLink = (await popup.locator('#short-link').textContent())!;
  assert.match(shortLink, /^https?:\/\/go\.example\.com\/spring-sale$/);
  assert.equal(await popup.locator('#clicks').textContent(), '0 clicks');

  // 3. The link exists through the API, with the tag and the template's UTM parameters.
  const info = await api('GET', '/links/info?domain=go.example.com&key=spring-sale');
  assert.equal(info.status, 200, JSON.stringify(info.json));
  const stored = new URL(info.json.url);
  assert.equal(stored.origin + stored.pathname, `${shopOrigin}/spring`);
  assert.equal(stored.searchParams.get('ref'), 'home');
  assert.equal(stored.searchParams.get('utm_source'), 'newsletter');
  assert.equal(stored.searchParams.get('utm_medium'), 'email');
  assert.deepEqual(info.json.tags.map((x: { name: string }) => x.name), ['spring']);
  assert.equal(info.json.shortLink, shortLink, "the popup shows the API's short link");

  // 4. Copy: the clipboard holds the short link.
  await popup.getByRole('button', { name: 'Copy' }).click();
  await popup.locator('#status', { hasText: 'Copied' }).waitFor();
  assert.equal(await popup.evaluate(() => navigator.clipboard.readText()), shortLink);

  // 5. The QR code: drawn by the API's QR endpoint, a 360-pixel image.
  const qr = popup.locator('#qr');
  assert.equal(await qr.getAttribute('src'), `${base}/qr?url=${encodeURIComponent(shortLink)}&size=360&margin=2`);
  await popup.waitForFunction(() => {
    const img = document.getElementById('qr') as HTMLImageElement;
    return img.complete && img.naturalWidth > 0;
  });
  assert.equal(await qr.evaluate((img: HTMLImageElement) => img.naturalWidth), 360);
  assert.equal(await qr.getAttribute('alt'), `QR code for ${shortLink}`);
  const popupAudit = await seriousViolations(popup);
  assert.equal(popupAudit.length, 0, `axe on the popup:\n${describeViolations(popupAudit)}`);

  // 6. A visit to the short link is a click; the popup's recent links count it.
  const visitor = await context.newPage();
  await visitor.goto(`http://go.example.com:${port}/spring-sale`);
  assert.equal(new URL(visitor.url()).origin, shopOrigin, 'redirected to the destination');
  await visitor.close();
  const deadline = Date.now() + 30_000;
  while ((await api('GET', '/links/info?domain=go.example.com&key=spring-sale')).json.clicks < 1) {
    assert.ok(Date.now() < deadline, 'the click was not counted');
    await new Promise((r) => setTimeout(r, 50));
  }
  await popup.close();
  const again = await openPopupOver(context, shop, origin);
  const recent = again.locator('#recent li', { hasText: shortLink });
  await recent.waitFor();
  assert.equal(await recent.locator('.count').textContent(), '1 click');
  // Remembered choices: the next link is one click away with the same domain, tag and template.
  assert.equal(await again.getByLabel('Domain').inputValue(), 'go.example.com');
  assert.equal(await again.getByLabel('UTM template').inputValue(), 'Newsletter');
  assert.equal(await again.getByLabel('spring', { exact: true }).isChecked(), true);
  await recent.getByRole('button').click();
  assert.equal(await again.locator('#clicks').textContent(), '1 click');

  // 7. An API error is shown as the API's message: the key is taken.
  await again.getByLabel('Key').fill('spring-sale');
  await again.getByRole('button', { name: 'Shorten' }).click();
  await again.locator('#status.error').waitFor();
  assert.match((await again.locator('#status').textContent())!, /already|exists|taken/i);
  assert.deepEqual(errors, [], 'no script error in the extension pages');
});

/**
 * Opens the popup page in a tab while `over` is the active tab, as the toolbar button does: the
 * popup reads the active tab when it loads, so it loads once `over` is in front again, and is then
 * brought to the front itself (the clipboard writes only from a focused page).
 */
async function openPopupOver(context: BrowserContext, over: Page, origin: string): Promise<Page> {
  const popup = await context.newPage();
  await popup.goto(`${origin}/popup.html`);
  await over.bringToFront();
  await popup.reload();
  await popup.locator('#recent li').first().waitFor();
  await popup.bringToFront();
  return popup;
}
