/**
 * The dashboard in a real browser (issue 17): Debian's chromium, driven by playwright-core, against
 * `src/main.ts` started on 127.0.0.1 with a fresh database (SQLite, or a PostgreSQL schema when
 * DATABASE_URL says so). One flow, as a person would go: first-run setup from the banner, log out
 * and in, a link built with UTM, a tag and a password, the short link opened and its password
 * typed, the click in the analytics chart and country card, the link edited and archived, an API
 * key made in the settings and used from the page, a viewer invited who joins in a second browser and cannot edit, log out. Every main page is audited by
 * axe-core on the way (no serious or critical violation). Screenshots go to a temporary folder
 * (printed as a diagnostic). Each step waits on elements and responses, never on time.
 *
 * Needs /usr/bin/chromium (`apt-get install chromium`; CI installs it): without it the test fails
 * and says so.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { BrowserContext, Page } from 'playwright-core';
import { describeViolations, startDashboardRun, type DashboardRun } from './support.js';

const OWNER = { email: 'owner@example.com', name: 'Olive Owner', password: 'correct horse battery' };
const VIEWER = { email: 'viewer@example.com', name: 'Victor Viewer', password: 'viewer password 1' };
const LINK_PASSWORD = 'open sesame 42';
/** The destination; the browser never reaches the internet: the test answers it (page.route). */
const LANDING = 'https://shop.example.com/spring';

/** Waits until the API counts `n` clicks for the link (clicks are written in batches, in the background). */
async function waitForClicks(run: DashboardRun, linkId: string, n: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { status, json } = await run.api('GET', `/analytics?event=clicks&interval=24h&linkId=${encodeURIComponent(linkId)}`);
    if (status === 200 && json.clicks >= n) return;
    if (Date.now() > deadline) throw new Error(`the click was not recorded: ${status} ${JSON.stringify(json)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Lesser axe findings (moderate, minor), printed as diagnostics at the end. */
const audits: string[] = [];

/** Audits the page open in `at` (or the address `at`, with the context's cookies) and asserts no serious/critical violations. */
async function assertAccessible(run: DashboardRun, at: Page | string, context: BrowserContext, name: string): Promise<void> {
  const all = await run.audit(typeof at === 'string' ? at : at.url(), context);
  const minor = all.filter((v) => v.impact !== 'serious' && v.impact !== 'critical');
  if (minor.length) audits.push(`${name}: ${minor.map((v) => `${v.impact} ${v.id}`).join(', ')}`);
  const violations = all.filter((v) => !minor.includes(v));
  assert.equal(violations.length, 0, `axe on the ${name} page:\n${describeViolations(violations)}`);
}

/** The CSRF token the dashboard's layout hands to htmx (`hx-headers` on <body>). */
async function csrfOf(page: Page): Promise<string> {
  const headers = await page.locator('body').getAttribute('hx-headers');
  return (JSON.parse(headers ?? '{}') as Record<string, string>)['x-csrf-token'] ?? '';
}

test('the dashboard in chromium: setup, links, a password-protected click in analytics, a read-only viewer (issue 17)', { timeout: 150_000 }, async (t) => {
  const started = performance.now();
  const run = await startDashboardRun({ TRUST_GEO_HEADERS: 'true', CLICK_FLUSH_INTERVAL_MS: '10' });
  t.diagnostic(`server and chromium started in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  t.after(() => run.close());
  t.diagnostic(`screenshots: ${run.shotDir}`);
  t.after(() => {
    const { pages, ms } = run.auditStats();
    t.diagnostic(`axe: ${pages} pages in ${(ms / 1000).toFixed(1)} s; moderate or minor findings: ${audits.length ? audits.join('; ') : 'none'}`);
  });
  const owner = await run.newContext();
  const page = await owner.newPage();
  // The CSP stays on for the flow: anything it blocks (an inline script or style) is a defect.
  const blocked: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy/i.test(m.text())) blocked.push(m.text());
  });

  // 1. First-run setup from the address in the start banner: it logs the owner in.
  await page.goto(run.setupUrl);
  await run.shot(page, 'setup');
  await assertAccessible(run, page, owner, 'setup');
  const ws = await run.setUpOwner(page, OWNER);
  await assert.doesNotReject(page.getByRole('heading', { name: 'Links' }).waitFor());
  await assertAccessible(run, page, owner, 'links (empty)');

  // 2. Log out, then log in with the new account.
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.waitForURL(/\/dashboard\/login/);
  await run.shot(page, 'login');
  await assertAccessible(run, page, owner, 'login');
  await page.getByLabel('Email').fill(OWNER.email);
  await page.getByLabel('Password').fill(OWNER.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL(/\/dashboard\/w\/[^/]+\/links$/);

  // 3. A tag (Settings → Tags), then the link builder: UTM, that tag and a password.
  await page.goto(`${ws}/settings/tags`);
  await page.getByLabel('New tag').fill('spring');
  await page.getByRole('button', { name: 'Create tag' }).click();
  await assert.doesNotReject(page.locator('input[name="name"][value="spring"]').waitFor());
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Links' }).click();
  await page.waitForURL(/\/links$/);
  await page.getByRole('link', { name: 'New link' }).click();
  await page.waitForURL(/\/links\/new$/);
  await page.getByLabel('Destination URL').fill(LANDING);
  await page.getByLabel('Key', { exact: true }).fill('spring-sale');
  await assert.doesNotReject(page.locator('#key-status .ok').waitFor()); // htmx asked whether the key is free
  await page.getByLabel('Source').fill('newsletter');
  await page.getByLabel('Medium').fill('email');
  await page.getByLabel('Campaign').fill('spring');
  await page.getByRole('checkbox', { name: 'spring' }).check();
  await page.getByLabel(/^Password/).fill(LINK_PASSWORD);
  await run.shot(page, 'link-builder');
  await assertAccessible(run, page, owner, 'link builder');
  await page.getByRole('button', { name: 'Create link' }).click();
  await page.waitForURL(/\/links\/[^/]+\/edit\?saved=created$/);
  const linkId = decodeURIComponent(/\/links\/([^/]+)\/edit\?/.exec(page.url())![1]!);
  const made = await run.api('GET', `/links/${linkId}`);
  assert.equal(made.status, 200);
  // The confirmation names the short link, with a working Copy button (shown once the script runs).
  await assert.doesNotReject(page.locator('.notice.saved', { hasText: made.json.shortLink }).waitFor());
  await assert.doesNotReject(page.locator('.notice.saved button.copy').waitFor({ state: 'visible' }));
  const destination = new URL(made.json.url);
  assert.equal(`${destination.origin}${destination.pathname}`, LANDING);
  assert.deepEqual([destination.searchParams.get('utm_source'), destination.searchParams.get('utm_medium'), destination.searchParams.get('utm_campaign')], ['newsletter', 'email', 'spring']);
  assert.deepEqual(made.json.tags.map((x: { name: string }) => x.name), ['spring']);
  assert.ok(made.json.password, 'the link has a password');
  const shortLink: string = made.json.shortLink;

  // 4. A visitor opens the short link (as from Germany: the server trusts the CDN's country header), types the password and lands.
  const visitor = await run.newContext({ extraHTTPHeaders: { 'cf-ipcountry': 'DE' } });
  const landingPage = await visitor.newPage();
  await landingPage.route(`${new URL(LANDING).origin}/**`, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Spring</title><h1>Spring sale</h1>' }));
  await landingPage.goto(shortLink);
  await assert.doesNotReject(landingPage.getByRole('heading', { name: 'Password required' }).waitFor());
  await landingPage.getByLabel('Password').fill(LINK_PASSWORD);
  await run.shot(landingPage, 'link-password');
  await landingPage.getByRole('button', { name: 'Continue' }).click();
  await landingPage.waitForURL((u) => u.origin === new URL(LANDING).origin);
  assert.equal(new URL(landingPage.url()).searchParams.get('utm_source'), 'newsletter');
  await visitor.close();

  // 5. The click in the analytics page: the totals, the chart's data and canvas, the country card.
  await waitForClicks(run, linkId, 1);
  await page.goto(`${ws}/analytics`);
  assert.equal(await page.locator('#totals').getAttribute('data-clicks'), '1');
  await assert.doesNotReject(page.locator('#analytics-chart canvas').first().waitFor()); // uPlot drew it
  const series = JSON.parse((await page.locator('#analytics-chart').getAttribute('data-series')) ?? '{}') as { clicks: number[] };
  assert.equal(series.clicks.reduce((a, b) => a + b, 0), 1);
  const germany = page.locator('section.breakdown[data-group="countries"] tr[data-value="DE"]');
  assert.equal(await germany.getAttribute('data-clicks'), '1');
  await run.shot(page, 'analytics');
  await assertAccessible(run, page, owner, 'analytics');
  for (const section of ['events', 'customers']) {
    await page.goto(`${ws}/${section}`);
    await run.shot(page, section);
    await assertAccessible(run, page, owner, section);
  }

  // 6. Edit the link (its title), then archive it from the list.
  await page.goto(`${ws}/links`);
  await assert.doesNotReject(page.getByText(shortLink).waitFor());
  await page.getByRole('link', { name: 'Edit' }).click();
  await page.waitForURL(/\/edit$/);
  await page.getByLabel('Title', { exact: true }).fill('Spring sale');
  // The form posts to the address it is on: wait for the POST's answer, not for the URL.
  const saved = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/edit'));
  await page.getByRole('button', { name: 'Save link' }).click();
  assert.equal((await saved).status(), 303);
  await page.goto(`${ws}/links`);
  await assert.doesNotReject(page.locator('td .hint', { hasText: 'Spring sale' }).waitFor());
  await run.shot(page, 'links');
  await assertAccessible(run, page, owner, 'links');
  await page.getByRole('table').getByRole('button', { name: 'Archive', exact: true }).click();
  await assert.doesNotReject(page.getByText('No links yet.').waitFor());
  assert.equal((await run.api('GET', `/links/${linkId}`)).json.archived, true);
  await page.goto(`${ws}/links?showArchived=true`);
  await assert.doesNotReject(page.getByRole('table').getByRole('button', { name: 'Unarchive', exact: true }).waitFor());

  // 7. An API key made in Settings → API keys, used by the page's own fetch against GET /links.
  await page.goto(`${ws}/settings/keys`);
  await page.getByLabel('Name').fill('browser test');
  await page.getByRole('button', { name: 'Create key' }).click();
  const apiKey = (await page.locator('#new-api-key').textContent())?.trim() ?? '';
  assert.match(apiKey, /^\S{16,}$/);
  await run.shot(page, 'api-key');
  const listed = await page.evaluate(async (key) => {
    const res = await fetch('/links?showArchived=true', { headers: { authorization: `Bearer ${key}` } });
    return { status: res.status, ids: ((await res.json()) as { id: string }[]).map((l) => l.id) };
  }, apiKey);
  assert.deepEqual(listed, { status: 200, ids: [linkId] });
  for (const part of ['general', 'domains', 'tags', 'folders', 'utm', 'keys', 'webhooks', 'integrations']) await assertAccessible(run, `${ws}/settings/${part}`, owner, `settings/${part}`);

  // 8. Public stats (turned on through the API: the builder has no switch for it).
  assert.equal((await run.api('PATCH', `/links/${linkId}`, { publicStats: true })).status, 200);
  const stats = await owner.newPage();
  await stats.goto(`${run.base}/stats/${encodeURIComponent(made.json.domain)}/${made.json.key}`);
  await run.shot(stats, 'public-stats');
  await assertAccessible(run, stats, owner, 'public stats');
  await stats.close();

  // 9. Invite a viewer; they join in a second browser and can read but not edit.
  await page.goto(`${ws}/settings/members`);
  await page.getByLabel('Email').fill(VIEWER.email);
  await page.getByRole('combobox', { name: 'Role', exact: true }).selectOption('viewer');
  await page.getByRole('button', { name: 'Create invitation link' }).click();
  const inviteUrl = (await page.locator('code.secret').textContent())?.trim() ?? '';
  assert.match(inviteUrl, /\/dashboard\/invite\?token=/);
  await run.shot(page, 'members');
  await assertAccessible(run, `${ws}/settings/members`, owner, 'members'); // the invitation's answer is at the POST's address

  const viewerContext = await run.newContext();
  const viewer = await viewerContext.newPage();
  await viewer.goto(inviteUrl);
  await run.shot(viewer, 'invite');
  await assertAccessible(run, viewer, viewerContext, 'invitation');
  await viewer.getByLabel('Name').fill(VIEWER.name);
  await viewer.getByLabel('Password').fill(VIEWER.password);
  await viewer.getByRole('button', { name: 'Create account and join' }).click();
  await viewer.waitForURL(/\/dashboard\/w\/[^/]+\/links/);
  await viewer.goto(`${ws}/links?showArchived=true`);
  await assert.doesNotReject(viewer.getByText(shortLink).waitFor());
  await run.shot(viewer, 'viewer-links');
  assert.equal(await viewer.getByRole('link', { name: 'New link' }).count(), 0);
  assert.equal(await viewer.getByRole('link', { name: 'Edit' }).count(), 0);
  assert.equal(await viewer.getByRole('button', { name: /archive/i }).count(), 0);
  // Forced from the viewer's page, with a valid CSRF token: refused, and nothing changed.
  const forced = await viewer.evaluate(
    async ({ url, csrf }) => (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ _csrf: csrf, archived: 'false' }) })).status,
    { url: `${ws}/links/${encodeURIComponent(linkId)}/archive`, csrf: await csrfOf(viewer) },
  );
  assert.equal(forced, 403);
  assert.equal((await run.api('GET', `/links/${linkId}`)).json.archived, true);
  // The edit address sends a viewer to the link's read-only page (issue 42): no form, no Edit.
  assert.equal((await viewer.goto(`${ws}/links/${encodeURIComponent(linkId)}/edit`))?.status(), 200);
  assert.equal(viewer.url(), `${ws}/links/${encodeURIComponent(linkId)}`);
  await viewer.getByRole('heading', { name: shortLink }).waitFor();
  assert.equal(await viewer.getByRole('link', { name: 'Edit' }).count(), 0);
  assert.equal(await viewer.locator('main form').count(), 0);
  // Nor API keys: no form, and a forced creation refused.
  await viewer.goto(`${ws}/settings/keys`);
  assert.equal(await viewer.getByRole('button', { name: 'Create key' }).count(), 0);
  const forcedKey = await viewer.evaluate(
    async ({ url, csrf }) => (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ _csrf: csrf, name: 'sneaky', access: 'all' }) })).status,
    { url: `${ws}/settings/keys`, csrf: await csrfOf(viewer) },
  );
  assert.equal(forcedKey, 403);
  await viewerContext.close();

  // 10. The account page, then log out: the dashboard asks for a login again.
  await page.goto(`${run.base}/dashboard/account`);
  await run.shot(page, 'account');
  await assertAccessible(run, page, owner, 'account');
  await page.getByRole('button', { name: 'Log out', exact: true }).click();
  await page.waitForURL(/\/dashboard\/login/);
  await page.goto(`${ws}/links`);
  assert.match(page.url(), /\/dashboard\/login\?next=/);
  assert.deepEqual(blocked, [], 'the CSP blocked something during the flow');
  await owner.close();
});
