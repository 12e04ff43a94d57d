/**
 * What the dashboard's browser tests share: Debian's chromium driven by playwright-core (never a
 * downloaded browser), a real server process (`src/main.ts`) on 127.0.0.1, screenshots in a
 * temporary folder, and an axe-core audit of a page.
 *
 * @example
 * const run = await startDashboardRun({ TRUST_GEO_HEADERS: 'true' });
 * const context = await run.newContext();
 * const page = await context.newPage();
 * await page.goto(run.setupUrl);
 * await run.shot(page, 'setup');
 * const ws = await run.setUpOwner(page, { email: 'ann@example.com', name: 'Ann', password: '…' });
 * const violations = await run.audit(page.url(), context); // [] when axe finds nothing
 * await run.close();
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createHash } from 'node:crypto';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { freePort, privateDatabase, startServer, type PrivateDatabase, type RunningServer } from '../../src/test-support/processes.js';

export const CHROMIUM = '/usr/bin/chromium';

/** A desktop Chrome user agent: HeadlessChrome's own is a bot to the click filter (isbot). */
export const DESKTOP_CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/150.0.0.0 Safari/537.36';

const AXE_PATH = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** Every page action waits up to this long for its element or response (a loaded CI machine). */
const WAIT_MS = 30_000;

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

export interface DashboardRun {
  server: RunningServer;
  database: PrivateDatabase;
  browser: Browser;
  /** `http://127.0.0.1:<port>`: BASE_URL, so the dashboard's same-origin checks accept the browser. */
  base: string;
  port: number;
  /** The API key the server was started with (WAYMARK_API_KEY). */
  apiKey: string;
  /** The `/setup?token=…` address from the start banner. */
  setupUrl: string;
  /** Where the screenshots go (a temporary folder, never committed). */
  shotDir: string;
  /** A browser context as a desktop Chrome (own cookies). */
  newContext(extra?: Parameters<Browser['newContext']>[0]): Promise<BrowserContext>;
  /** A numbered full-page screenshot in `shotDir`. */
  shot(page: Page, name: string): Promise<void>;
  /**
   * Opens `url` with the cookies of `as` in a context that bypasses the CSP (axe is injected as a
   * script tag, which the dashboard's CSP rightly refuses), runs axe in the light and the dark
   * colour scheme and returns its violations (every impact, the scheme in the id; `serious` and
   * `critical` are the ones the test refuses). `prepare` runs before the audit (to open a dialog, say).
   */
  audit(url: string, as: BrowserContext, prepare?: (page: Page) => Promise<void>): Promise<AxeViolation[]>;
  /** Pages audited so far and the time the audits took (ms), for a diagnostic. */
  auditStats(): { pages: number; ms: number };
  /**
   * Creates the first owner through the setup page (from the page where it is, else opening the
   * setup address) and returns the workspace's address, `http://127.0.0.1:<port>/dashboard/w/<slug>`.
   */
  setUpOwner(page: Page, owner: Owner): Promise<string>;
  /** Calls the API with the server's key. */
  api(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }>;
  close(): Promise<void>;
}

/** The account the setup page creates. */
export interface Owner {
  email: string;
  name: string;
  password: string;
}

/** Fails with the way to install chromium when it is missing (CI installs it in .ci/run). */
export function requireChromium(): void {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `The dashboard's browser test needs Debian's chromium at ${CHROMIUM}. Install it with:\n` +
        '  sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y chromium\n' +
        '(CI installs it in .ci/run; playwright-core never downloads a browser.)',
    );
  }
}

/**
 * Starts the server (fresh database, no dashboard user yet), reads the setup address from its
 * banner and launches chromium. `env` is added to the server's environment.
 */
export async function startDashboardRun(env: Record<string, string> = {}): Promise<DashboardRun> {
  requireChromium();
  const database = await privateDatabase();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const apiKey = `wm_browser_${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
  let server: RunningServer | undefined;
  let browser: Browser | undefined;
  try {
    server = await startServer(database.url, port, apiKey, { BASE_URL: base, ...env });
    const setupUrl = /(http:\/\/\S+\/setup\?token=\S+)/.exec(server.output())?.[1];
    if (!setupUrl) throw new Error(`no setup address in the banner:\n${server.output()}`);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      // Short links live on wm.localhost:<port>; map every name to this machine so nothing leaves it.
      args: ['--no-sandbox', '--host-resolver-rules=MAP * 127.0.0.1'],
    });
    const shotDir = mkdtempSync(join(tmpdir(), 'waymark-browser-'));
    const theBrowser = browser;
    const theServer = server;
    let shots = 0;
    const audits = { pages: 0, ms: 0 };
    let auditor: BrowserContext | undefined;
    const newContext = async (extra: Parameters<Browser['newContext']>[0] = {}) => {
      const context = await theBrowser.newContext({ userAgent: DESKTOP_CHROME, viewport: { width: 1280, height: 900 }, ...extra });
      context.setDefaultTimeout(WAIT_MS);
      context.setDefaultNavigationTimeout(WAIT_MS);
      return context;
    };
    return {
      server: theServer,
      database,
      browser: theBrowser,
      base,
      port,
      apiKey,
      setupUrl,
      shotDir,
      newContext,
      async shot(page, name) {
        shots += 1;
        await page.screenshot({ path: join(shotDir, `${String(shots).padStart(2, '0')}-${name}.png`), fullPage: true });
      },
      auditStats: () => ({ ...audits }),
      async audit(url, as, prepare) {
        const started = performance.now();
        audits.pages += 1;
        // One page for every audit, given the cookies of the context audited (its session).
        auditor ??= await newContext({ bypassCSP: true });
        await auditor.clearCookies();
        await auditor.addCookies(await as.cookies());
        const page = auditor.pages()[0] ?? (await auditor.newPage());
        try {
          const response = await page.goto(url);
          if (!response || response.status() >= 400) throw new Error(`audit of ${url}: ${response?.status()}`);
          // Not the login page instead (a lost session would audit the wrong page and pass).
          if (page.url() !== url) throw new Error(`audit of ${url} landed on ${page.url()}`);
          await prepare?.(page);
          await page.addScriptTag({ path: AXE_PATH });
          // Both colour schemes: dashboard.css has a dark palette (prefers-color-scheme), whose contrast counts too.
          const found: AxeViolation[] = [];
          for (const colorScheme of ['light', 'dark'] as const) {
            await page.emulateMedia({ colorScheme });
            // Only contrast changes with the scheme: the dark pass runs that rule alone.
            const options = colorScheme === 'light' ? { resultTypes: ['violations'] } : { resultTypes: ['violations'], runOnly: { type: 'rule', values: ['color-contrast'] } };
            const violations = (await page.evaluate(async (opts) => {
              const axe = (globalThis as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: AxeViolation[] }> } }).axe;
              return (await axe.run(document, opts)).violations;
            }, options)) as AxeViolation[];
            for (const v of violations) {
              found.push({ id: `${v.id} (${colorScheme})`, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })) });
            }
          }
          await page.emulateMedia({ colorScheme: 'light' });
          return found;
        } finally {
          audits.ms += performance.now() - started;
        }
      },
      async setUpOwner(page, owner) {
        if (page.url() !== setupUrl) await page.goto(setupUrl);
        await page.getByLabel('Email').fill(owner.email);
        await page.getByLabel('Name').fill(owner.name);
        await page.getByLabel('Password').fill(owner.password);
        await page.getByRole('button', { name: 'Create account' }).click();
        await page.waitForURL(/\/dashboard\/w\/[^/]+\/links$/);
        const slug = decodeURIComponent(/\/dashboard\/w\/([^/]+)\/links/.exec(page.url())![1]!);
        return `${base}/dashboard/w/${encodeURIComponent(slug)}`;
      },
      async api(method, path, body) {
        const res = await fetch(`${base}${path}`, {
          method,
          headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await res.text();
        return { status: res.status, json: text ? JSON.parse(text) : undefined };
      },
      async close() {
        await theBrowser.close();
        theServer.child.kill('SIGTERM');
        await theServer.exited;
        await database.dispose();
      },
    };
  } catch (err) {
    await browser?.close();
    if (server) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    await database.dispose();
    throw err;
  }
}

/**
 * Runs axe-core in `page` as it is, light and dark, and returns the serious and critical
 * violations. The script is evaluated through the DevTools protocol rather than added as a tag, so
 * pages whose CSP refuses it (an extension's pages) are audited unchanged.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(readFileSync(AXE_PATH, 'utf8'));
  const found: AxeViolation[] = [];
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    const violations = (await page.evaluate(async () => {
      const axe = (globalThis as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: AxeViolation[] }> } }).axe;
      return (await axe.run(document, { resultTypes: ['violations'] })).violations;
    })) as AxeViolation[];
    for (const v of violations) {
      if (v.impact === 'serious' || v.impact === 'critical') found.push({ id: `${v.id} (${colorScheme})`, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })) });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return found;
}

/** A readable list of axe violations for an assertion message. */
export function describeViolations(violations: AxeViolation[]): string {
  return violations.map((v) => `${v.impact} ${v.id}: ${v.help}\n${v.nodes.map((n) => `    ${n.target.join(' ')}: ${n.failureSummary ?? ''}`).join('\n')}`).join('\n');
}

/** The id Chromium gives an unpacked extension: SHA-256 of its absolute path, first 32 hex digits spelled a-p. */
export function unpackedExtensionId(path: string): string {
  const hex = createHash('sha256').update(resolve(path)).digest('hex').slice(0, 32);
  return [...hex].map((c) => String.fromCharCode(97 + parseInt(c, 16))).join('');
}
