/**
 * The upgrade test's fixtures, made by the earlier versions themselves (test/upgrade.test.ts): an
 * earlier commit's `src/` is taken from git (`git archive`) into a temporary folder beside this
 * repository's node_modules, transpiled there as the tests are (scripts/build-tests.mjs: a start
 * under tsx cost ~8 s of CPU), its `src/main.ts` is started on a fresh database, and it is driven
 * over HTTP only (the published API every version serves): links, clicks through its redirect,
 * leads and sales. What it answers then (`views`) is what the current code must answer on the
 * same data after the upgrade. Nothing binary is stored: the data is made anew on every run.
 *
 * @example
 * const old = await extractVersion('dd43ac9');
 * const server = await startVersion(old, { DATABASE_URL: 'file:/tmp/x/old.db' });
 * const seeded = await seed(server);
 * const before = await views((path) => server.get(path));
 * await server.stop();
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { request, type IncomingMessage } from 'node:http';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { entryArgs } from '../../src/test-support/entry.js';

// Tests run from the repository's root (npm test), transpiled or not.
const REPO = process.cwd();
export const UPGRADE_KEY = 'wm_upgrade_fixture_key_0001';
const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

/** Where an extracted version's `src/` is transpiled to, in its folder. */
const BUILT = '.build';

export interface ExtractedVersion {
  commit: string;
  dir: string;
  remove(): void;
}

/** The commit's `src/` and package.json in a temporary folder that uses this checkout's node_modules, `src/` transpiled into `.build/`. */
export async function extractVersion(commit: string): Promise<ExtractedVersion> {
  const dir = mkdtempSync(join(tmpdir(), `waymark-v-${commit.slice(0, 7)}-`));
  const archive = spawnSync('sh', ['-c', `git -C "${REPO}" archive "${commit}" src package.json tsconfig.json | tar -x -C "${dir}"`], { encoding: 'utf8' });
  if (archive.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`git archive ${commit} failed (a shallow clone? run \`git fetch --unshallow\`): ${archive.stderr}`);
  }
  symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'));
  const { transpile } = (await import(pathToFileURL(join(REPO, 'scripts/build-tests.mjs')).href)) as { transpile(root: string, dirs: string[], outdir: string): Promise<void> };
  await transpile(dir, ['src'], BUILT);
  return { commit, dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface RunningVersion {
  base: string;
  port: number;
  shortHost: string;
  get(path: string): Promise<unknown>;
  post(path: string, body: unknown): Promise<unknown>;
  /** SIGTERM, as systemd stops it: what is buffered is committed. */
  stop(): Promise<void>;
}

/** Starts the version's `src/main.ts` with `env`; resolves once it serves. */
export async function startVersion(version: ExtractedVersion, env: Record<string, string>, port: number): Promise<RunningVersion> {
  // This checkout (`current`) as the other tests start it; an earlier one from its transpiled tree.
  const args = version.commit === 'current' ? entryArgs('src/main.ts') : ['--enable-source-maps', join(BUILT, 'src/main.js')];
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: version.dir,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      BASE_URL: `http://localhost:${port}`,
      SHORT_DOMAIN: 'go.upgrade.test',
      WAYMARK_API_KEY: UPGRADE_KEY,
      TRUST_PROXY: 'true',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${version.commit} exited at start: ${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${version.commit} did not start within 120 s: ${output}`);
    }
    // Serving: /ready 200 (versions that listen while they start), or /health 200 where there is no /ready.
    const ready = await fetch(`${base}/ready`).then((r) => r.status, () => 0);
    if (ready === 200) break;
    if (ready === 404 && (await fetch(`${base}/health`).then((r) => r.ok, () => false))) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${UPGRADE_KEY}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${version.commit}: ${method} ${path} answered ${res.status}: ${text}`);
    return JSON.parse(text) as unknown;
  };
  return {
    base,
    port,
    shortHost: 'go.upgrade.test',
    get: (path) => call('GET', path),
    post: (path, body) => call('POST', path, body),
    async stop() {
      child.kill('SIGTERM');
      const code = await exited;
      if (code !== 0) throw new Error(`${version.commit} exited with ${code} at SIGTERM: ${output}`);
    },
  };
}

/** A visit to a short link from its own address; the click id the answer carries, if any. */
async function visit(server: RunningVersion, key: string, n: number): Promise<string | undefined> {
  // node:http, as fetch does not send a Host header of its own choosing.
  const headers: Record<string, string> = { host: server.shortHost, 'user-agent': CHROME, 'x-forwarded-for': `81.2.69.${n}` };
  if (n % 2) headers.referer = 'https://news.example.org/a';
  const res = await new Promise<IncomingMessage>((resolveRes, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, path: `/${key}`, headers }, resolveRes);
    req.on('error', reject);
    req.end();
  });
  res.resume();
  if (res.statusCode !== 302) throw new Error(`visit /${key}: ${res.statusCode}`);
  const carried = `${[res.headers['set-cookie'] ?? []].flat().join(' ')} ${res.headers.location ?? ''}`;
  return /(?:waymark_id|dub_id)=([A-Za-z0-9_-]+)/.exec(carried)?.[1];
}

export interface Seeded {
  links: { id: string; key: string }[];
  workspaceId: string;
}

/**
 * Three links, 15 clicks (6, 5, 4), two customers with a lead each, three sales (one in EUR);
 * waits until the link counters show every click.
 */
export async function seed(server: RunningVersion): Promise<Seeded> {
  const links: { id: string; key: string }[] = [];
  let workspaceId = '';
  for (const [key, url, trackConversion] of [['spring', 'https://shop.example.com/spring?utm_source=mail', true], ['guide', 'https://docs.example.com/start', false], ['promo', 'https://shop.example.com/promo', true]] as const) {
    const link = (await server.post('/links', { url, key, domain: server.shortHost, trackConversion })) as { id: string; workspaceId: string };
    links.push({ id: link.id, key });
    workspaceId = link.workspaceId;
  }
  let n = 1;
  const clickIds: string[] = [];
  for (const [i, count] of [6, 5, 4].entries()) {
    for (let c = 0; c < count; c++) {
      const id = await visit(server, links[i]!.key, n++);
      if (id && links[i]!.key !== 'guide') clickIds.push(id);
    }
  }
  if (clickIds.length < 2) throw new Error('no click ids carried by the tracked links');
  await waitFor(server, 15);
  const customers = [
    { clickId: clickIds[0], customerExternalId: 'cust-ada', customerName: 'Ada Lovelace', customerEmail: 'ada@example.com' },
    { clickId: clickIds.at(-1), customerExternalId: 'cust-grace', customerName: 'Grace Hopper', customerEmail: 'grace@example.com' },
  ];
  for (const c of customers) await server.post('/track/lead', { ...c, eventName: 'Sign up', mode: 'wait' });
  await server.post('/track/sale', { customerExternalId: 'cust-ada', amount: 4900, currency: 'usd', paymentProcessor: 'stripe', invoiceId: 'inv-1', eventName: 'Purchase' });
  await server.post('/track/sale', { customerExternalId: 'cust-ada', amount: 1500, currency: 'usd', paymentProcessor: 'stripe', invoiceId: 'inv-2', eventName: 'Upgrade' });
  await server.post('/track/sale', { customerExternalId: 'cust-grace', amount: 2000, currency: 'eur', paymentProcessor: 'stripe', invoiceId: 'inv-3', eventName: 'Purchase' });
  return { links, workspaceId };
}

/** Until the links' click counters add up to `clicks` (folded once a second on SQLite). */
async function waitFor(server: RunningVersion, clicks: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const links = (await server.get('/links')) as { clicks: number }[];
    const total = links.reduce((sum, l) => sum + l.clicks, 0);
    if (total === clicks) return;
    if (Date.now() > deadline) throw new Error(`link counters show ${total} clicks, not ${clicks}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

type Json = Record<string, unknown>;
const pick = (o: Json, keys: string[]) => Object.fromEntries(keys.map((k) => [k, o[k] ?? null]));
const byId = (a: { id?: unknown }, b: { id?: unknown }) => String(a.id).localeCompare(String(b.id));

/**
 * What a user reads back, in the fields every version answers: links with their counters,
 * customers, every event (ids, times, links, customers, amounts) and the analytics totals and
 * groupings. `get` is a GET with the key.
 */
export async function views(get: (path: string) => Promise<unknown>) {
  const links = ((await get('/links?sort=createdAt&sortOrder=asc')) as Json[])
    .map((l) => pick(l, ['id', 'key', 'domain', 'url', 'trackConversion', 'clicks', 'leads', 'sales', 'saleAmount']))
    .sort(byId);
  const customers = ((await get('/customers')) as Json[]).map((c) => pick(c, ['id', 'externalId', 'name', 'email'])).sort(byId);
  const events: Record<string, unknown[]> = {};
  for (const event of ['clicks', 'leads', 'sales']) {
    const rows = (await get(`/events?event=${event}&interval=all&limit=100`)) as Json[];
    events[event] = rows
      .map((e) => ({
        timestamp: e.timestamp,
        click: pick(e.click as Json, ['id', 'url', 'country', 'city', 'device', 'browser', 'os', 'referer', 'ip']),
        link: (e.link as Json).id,
        customer: e.customer ? (e.customer as Json).externalId : null,
        eventName: e.eventName ?? null,
        sale: e.sale ? pick(e.sale as Json, ['amount', 'invoiceId', 'paymentProcessor']) : null,
      }))
      .sort((a, b) => String(a.click.id).localeCompare(String(b.click.id)) || String(a.eventName).localeCompare(String(b.eventName)) || String(a.timestamp).localeCompare(String(b.timestamp)));
  }
  const analytics: Record<string, unknown> = {};
  for (const groupBy of ['count', 'top_links', 'countries', 'devices', 'referers']) {
    const answer = await get(`/analytics?event=composite&groupBy=${groupBy}&interval=all`);
    analytics[groupBy] = Array.isArray(answer)
      ? (answer as Json[]).map((row) => pick(row, ['id', 'country', 'device', 'referer', 'clicks', 'leads', 'sales', 'saleAmount'])).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))
      : pick(answer as Json, ['clicks', 'leads', 'sales', 'saleAmount']);
  }
  return { links, customers, events, analytics };
}
export type Views = Awaited<ReturnType<typeof views>>;
