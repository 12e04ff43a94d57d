/**
 * Which case needs what when the extension calls a server (docs/extension.md, "How it reaches
 * the server"), in Debian's chromium with the extension loaded: against a server that answers
 * like the published API, with no CORS headers for an extension's origin,
 * - the shipped extension (no host permission) is stopped by CORS: its call with a bearer key is
 *   preflighted, the preflight gets no `Access-Control-Allow-*`, the request itself never leaves
 *   the browser, and the options page says to allow direct access;
 * - with the host permission for that origin (what *Allow direct access to this server* grants at
 *   run time; here a copy whose manifest holds it, since automation cannot answer Chromium's
 *   prompt) the same call goes out with no preflight at all and is read: CORS is moot.
 * Waymark's own CORS answer to an extension without the permission is extension.browser.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM, DESKTOP_CHROME, requireChromium, unpackedExtensionId } from './support.js';

interface Seen { method: string; url: string; authorization?: string; origin?: string; requestHeaders?: string }

/** A published-API stand-in: `GET /links` with a bearer key answers `[]`; no CORS header ever, an OPTIONS is its 404. */
async function startPlainApi() {
  const seen: Seen[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    seen.push({ method: req.method!, url: req.url!, authorization: req.headers.authorization, origin: req.headers.origin, requestHeaders: req.headers['access-control-request-headers'] as string | undefined });
    if (req.method === 'GET' && req.url!.startsWith('/links') && req.headers.authorization === 'Bearer dub_test_key') {
      return res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
    }
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"not_found","message":"Not found","doc_url":"https://dub.co/docs/api-reference/errors#not-found"}}');
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return { seen, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((ok) => server.close(() => ok())) };
}

async function checkFromOptions(extension: string, work: string, base: string): Promise<string> {
  const context = await chromium.launchPersistentContext(join(work, `profile-${Math.random().toString(36).slice(2)}`), {
    executablePath: CHROMIUM,
    headless: true,
    userAgent: DESKTOP_CHROME,
    args: ['--no-sandbox', `--disable-extensions-except=${extension}`, `--load-extension=${extension}`],
  });
  try {
    context.setDefaultTimeout(30_000);
    const options = await context.newPage();
    await options.goto(`chrome-extension://${unpackedExtensionId(extension)}/options.html`);
    await options.locator('body[data-ready="true"]').waitFor();
    await options.getByLabel('API base URL').fill(base);
    await options.getByLabel('API key').fill('dub_test_key');
    await options.getByRole('button', { name: 'Save and check' }).click();
    const status = options.locator('#connection-status');
    await status.filter({ hasNotText: /checking/ }).filter({ hasText: /Saved/ }).waitFor();
    return (await status.textContent())!;
  } finally {
    await context.close();
  }
}

test('extension against a server without CORS: refused without the host permission, moot with it (issue 44)', { timeout: 120_000 }, async (t) => {
  requireChromium();
  const api = await startPlainApi();
  t.after(() => api.close());
  const work = mkdtempSync(join(tmpdir(), 'waymark-extension-cors-'));
  t.after(() => rmSync(work, { recursive: true, force: true }));

  // 1. The shipped extension: no host permission, so the browser asks the server first.
  const shipped = join(work, 'shipped');
  cpSync('extension', shipped, { recursive: true });
  assert.equal(JSON.parse(readFileSync(join(shipped, 'manifest.json'), 'utf8')).host_permissions, undefined);
  const refused = await checkFromOptions(shipped, work, api.base);
  assert.match(refused, /could not be reached from the extension/);
  assert.match(refused, /Allow direct access to this server/);
  const preflights = api.seen.filter((s) => s.method === 'OPTIONS');
  assert.ok(preflights.length >= 1, `a preflight was sent: ${JSON.stringify(api.seen)}`);
  assert.match(preflights[0]!.origin ?? '', /^chrome-extension:\/\/[a-p]{32}$/);
  assert.match(preflights[0]!.requestHeaders ?? '', /authorization/, 'the bearer key is what makes the call preflighted');
  assert.equal(api.seen.filter((s) => s.method === 'GET').length, 0, 'the request itself never left the browser');

  // 2. The same extension with the host permission for that origin: no preflight, the answer is read.
  api.seen.length = 0;
  const granted = join(work, 'granted');
  cpSync('extension', granted, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(granted, 'manifest.json'), 'utf8'));
  assert.ok(manifest.optional_host_permissions.includes('http://*/*'), 'the permission the options page asks for at run time');
  manifest.host_permissions = ['http://127.0.0.1/*'];
  writeFileSync(join(granted, 'manifest.json'), JSON.stringify(manifest));
  const works = await checkFromOptions(granted, work, api.base);
  assert.match(works, /The key works/);
  assert.equal(api.seen.filter((s) => s.method === 'OPTIONS').length, 0, 'no preflight with the host permission');
  const calls = api.seen.filter((s) => s.method === 'GET');
  assert.equal(calls.length, 1, JSON.stringify(api.seen));
  assert.equal(calls[0]!.url, '/links?pageSize=1');
  assert.equal(calls[0]!.authorization, 'Bearer dub_test_key');
});
