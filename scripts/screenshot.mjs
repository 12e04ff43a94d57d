#!/usr/bin/env node
// Takes the README's dashboard screenshot (docs/dashboard-links.png) and docs/dashboard.md's
// (beside it: dashboard-links-phone.png, dashboard-builder.png, dashboard-utm-templates.png):
// starts `src/main.ts` on a temporary SQLite file, goes through the first-run setup in Debian's
// chromium, adds a few links and a UTM template and photographs the pages.
// Run: `node scripts/screenshot.mjs [out.png]`.
// Needs /usr/bin/chromium (apt-get install chromium); playwright-core never downloads a browser.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { chromium } from 'playwright-core';

const out = process.argv[2] ?? 'docs/dashboard-links.png';
if (!existsSync('/usr/bin/chromium')) {
  console.error('Needs /usr/bin/chromium: sudo DEBIAN_FRONTEND=noninteractive apt-get install -y chromium');
  process.exit(1);
}

const port = await new Promise((resolve) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const { port } = s.address();
    s.close(() => resolve(port));
  });
});
const base = `http://127.0.0.1:${port}`;
const dir = mkdtempSync(join(tmpdir(), 'waymark-screenshot-'));
const key = `wm_screenshot_${Date.now().toString(36)}`;
const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
  env: { ...process.env, DATABASE_URL: `file:${join(dir, 'waymark.db')}`, PORT: String(port), HOST: '127.0.0.1', BASE_URL: base, WAYMARK_API_KEY: key, LOG_LEVEL: 'warn' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
let banner = '';
await new Promise((resolve, reject) => {
  child.stdout.on('data', (d) => {
    banner += d;
    if (banner.includes('/setup?token=')) resolve();
  });
  child.on('exit', (code) => reject(new Error(`the server exited (${code}):\n${banner}`)));
});
const setupUrl = /(http:\/\/\S+\/setup\?token=\S+)/.exec(banner)[1];

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
try {
  const api = (method, path, body) =>
    fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(async (r) => {
      if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
      return r.json();
    });
  const tag = await api('POST', '/tags', { name: 'launch' });
  for (const [k, url, title] of [
    ['plans', 'https://example.com/pricing?utm_source=newsletter&utm_medium=email', 'Pricing page'],
    ['start-here', 'https://docs.example.com/getting-started', 'Getting started'],
    ['spring-sale', 'https://shop.example.com/spring?utm_campaign=spring', 'Spring sale'],
  ]) {
    await api('POST', '/links', { url, key: k, title, tagIds: [tag.id] });
  }
  const page = await browser.newPage({ viewport: { width: 1100, height: 760 } });
  await page.goto(setupUrl);
  await page.getByLabel('Email').fill('ann@example.com');
  await page.getByLabel('Name').fill('Ann');
  await page.getByLabel('Password').fill('a long enough password');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL(/\/links$/);
  await page.getByRole('heading', { name: 'Links' }).waitFor();
  await page.screenshot({ path: out });
  const shots = [out];
  const beside = (name) => join(dirname(out), name);
  const ws = page.url().replace(/\/links$/, '');

  // Settings → UTM templates, with one saved.
  await page.goto(`${ws}/settings/utm`);
  await page.getByLabel('Name').fill('Spring newsletter');
  await page.getByLabel('Source').fill('newsletter');
  await page.getByLabel('Medium').fill('email');
  await page.getByLabel('Campaign').fill('spring');
  await page.getByRole('button', { name: 'Save template' }).click();
  await page.getByRole('rowheader', { name: 'Spring newsletter' }).waitFor();
  await page.screenshot({ path: beside('dashboard-utm-templates.png') });
  shots.push(beside('dashboard-utm-templates.png'));

  // The link builder with the template chosen.
  await page.goto(`${ws}/links/new`);
  await page.getByLabel('Destination URL').fill('https://shop.example.com/spring');
  await page.getByLabel('UTM template').selectOption({ label: 'Spring newsletter' });
  // The destination and the UTM fields the template filled.
  await page.setViewportSize({ width: 1100, height: 1400 });
  await page.evaluate(() => window.scrollTo(0, 0));
  const top = await page.locator('#link-builder fieldset').first().boundingBox();
  const utm = await page.locator('#link-builder fieldset.utm').boundingBox();
  await page.screenshot({ path: beside('dashboard-builder.png'), clip: { x: 0, y: top.y - 8, width: 800, height: utm.y + utm.height - top.y + 16 } });
  shots.push(beside('dashboard-builder.png'));

  // The links list on a phone (390 px): cards.
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  await phone.addCookies(await page.context().cookies());
  const small = await phone.newPage();
  await small.goto(`${ws}/links`);
  await small.getByRole('heading', { name: 'Links' }).waitFor();
  await small.screenshot({ path: beside('dashboard-links-phone.png') });
  shots.push(beside('dashboard-links-phone.png'));
  for (const shot of shots) console.log(`${shot}: ${statSync(shot).size} bytes`);
} finally {
  await browser.close();
  child.kill('SIGTERM');
  await new Promise((r) => (child.exitCode === null ? child.on('exit', r) : r()));
  rmSync(dir, { recursive: true, force: true });
}
