#!/usr/bin/env node
// Takes the dashboard's screenshots in docs/ (docs/dashboard.md shows them; the README the first):
// starts `src/main.ts` on a temporary SQLite file (the SQL event store), goes through the
// first-run setup in Debian's chromium, adds a few links, a UTM template and a webhook, imports
// seven months of campaign results (test/browser/results-data.ts: made on a second Waymark whose
// clock starts 200 days ago, copied in with `waymark import api --events`) and photographs the
// main pages at 1280×800 (phones at 390×844); then pngquant and optipng shrink them, if installed.
// Run: `node scripts/screenshot.mjs [folder]` (default docs/).
// Needs /usr/bin/chromium (apt-get install chromium); playwright-core never downloads a browser.
// `apt-get install pngquant optipng` for small files.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { tsImport } from 'tsx/esm/api';

const folder = process.argv[2] ?? 'docs';
const step = (what) => console.error(`screenshot: ${what}`);
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
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
  env: { ...process.env, DATABASE_URL: `file:${join(dir, 'waymark.db')}`, PORT: String(port), HOST: '127.0.0.1', BASE_URL: base, WAYMARK_API_KEY: key, LOG_LEVEL: 'warn', EVENTS_URL: 'sql' },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let banner = '';
await new Promise((resolve, reject) => {
  // The start banner goes to stderr (stdout stays for what a command prints); read both.
  const read = (d) => {
    banner += d;
    if (banner.includes('/setup?token=')) resolve();
  };
  child.stdout.on('data', read);
  child.stderr.on('data', read);
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
  const page = await browser.newPage({ viewport: DESKTOP });
  await page.goto(setupUrl);
  await page.getByLabel('Email').fill('ann@example.com');
  await page.getByLabel('Name').fill('Ann');
  await page.getByLabel('Password').fill('a long enough password');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL(/\/links$/);
  const ws = page.url().replace(/\/links$/, '');
  const slug = decodeURIComponent(ws.split('/').at(-1));
  step('importing seven months of results');
  const { seedMonthsOfResults } = await tsImport('../test/browser/results-data.ts', import.meta.url);
  await seedMonthsOfResults({ port, base, databaseUrl: `file:${join(dir, 'waymark.db')}` }, slug);
  const links = await api('GET', '/links?sortBy=createdAt&sortOrder=asc');
  const spring = (i) => links.find((l) => l.key === `spring-${i}`).id;
  const hook = await api('POST', '/webhooks', { name: 'CRM: spring clicks', url: 'https://crm.example.com/hooks/waymark', triggers: ['link.clicked', 'lead.created'], linkScope: 'links', linkIds: [spring(0), spring(1)] });

  step('photographing the pages');
  const shots = [];
  const shoot = async (p, name) => {
    const path = join(folder, name);
    await p.screenshot({ path });
    shots.push(path);
  };
  const chart = () => page.locator('#analytics-chart canvas').first().waitFor();

  await page.goto(`${ws}/links`);
  await page.getByRole('heading', { name: 'Links' }).waitFor();
  await shoot(page, 'dashboard-links.png');

  await page.goto(`${ws}/analytics?interval=all`);
  await chart();
  await shoot(page, 'dashboard-analytics.png');
  // The cards under the chart: revenue and rates per breakdown.
  await page.locator('section[data-group="top_links"]').scrollIntoViewIfNeeded();
  await shoot(page, 'dashboard-analytics-cards.png');

  await page.goto(`${ws}/analytics/compare?by=links&interval=all&id=${spring(0)}&id=${spring(1)}&id=${spring(2)}`);
  await chart();
  await shoot(page, 'dashboard-compare.png');

  await page.goto(`${ws}/events?event=sales`);
  await page.locator('table.events tbody tr').first().waitFor();
  await shoot(page, 'dashboard-events.png');

  await page.goto(`${ws}/settings/webhooks/${hook.id}/edit`);
  await page.locator('fieldset[data-linkscope-for="links"]').waitFor();
  await page.locator('fieldset[data-linkscope]').scrollIntoViewIfNeeded();
  await shoot(page, 'dashboard-webhook-edit.png');

  // Settings → UTM templates, with one saved.
  await page.goto(`${ws}/settings/utm`);
  await page.getByLabel('Name').fill('Spring newsletter');
  await page.getByLabel('Source').fill('newsletter');
  await page.getByLabel('Medium').fill('email');
  await page.getByLabel('Campaign').fill('spring');
  await page.getByRole('button', { name: 'Save template' }).click();
  await page.getByRole('rowheader', { name: 'Spring newsletter' }).waitFor();
  await shoot(page, 'dashboard-utm-templates.png');

  // The link builder with the template chosen: the destination and the UTM fields it filled.
  await page.goto(`${ws}/links/new`);
  await page.getByLabel('Destination URL').fill('https://shop.example.com/spring');
  await page.getByLabel('UTM template').selectOption({ label: 'Spring newsletter' });
  await page.setViewportSize({ width: DESKTOP.width, height: 1400 });
  await page.evaluate(() => window.scrollTo(0, 0));
  const top = await page.locator('#link-builder fieldset').first().boundingBox();
  const utm = await page.locator('#link-builder fieldset.utm').boundingBox();
  const builder = join(folder, 'dashboard-builder.png');
  await page.screenshot({ path: builder, clip: { x: 0, y: top.y - 8, width: 800, height: utm.y + utm.height - top.y + 16 } });
  shots.push(builder);

  // Phones (390 px): the links as cards, the events log as a list.
  const phone = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
  await phone.addCookies(await page.context().cookies());
  const small = await phone.newPage();
  await small.goto(`${ws}/links`);
  await small.getByRole('heading', { name: 'Links' }).waitFor();
  await shoot(small, 'dashboard-links-phone.png');
  await small.goto(`${ws}/events?event=clicks`);
  await small.locator('table.events tbody tr').first().waitFor();
  await shoot(small, 'dashboard-events-phone.png');

  // Smaller files: a 256-colour palette (pngquant), then lossless recompression (optipng).
  const has = (tool) => spawnSync(tool, ['--version'], { stdio: 'ignore' }).status === 0;
  if (has('pngquant')) spawnSync('pngquant', ['--force', '--skip-if-larger', '--quality', '70-95', '--ext', '.png', ...shots], { stdio: 'inherit' });
  else console.warn('pngquant is not installed: the screenshots are not reduced to a palette');
  if (has('optipng')) spawnSync('optipng', ['-quiet', '-o2', ...shots], { stdio: 'inherit' });
  for (const shot of shots) console.log(`${shot}: ${statSync(shot).size} bytes`);
} finally {
  await browser.close();
  child.kill('SIGTERM');
  await new Promise((r) => (child.exitCode === null ? child.on('exit', r) : r()));
  rmSync(dir, { recursive: true, force: true });
}
