/**
 * Webhooks benchmark (issue 15): redirects/s of links a `link.clicked` webhook covers vs links
 * none does, and the delivery of those clicks: deliveries/s, lag click → delivery (p50/p99), and
 * that every click was delivered.
 *
 * Seeds a SQLite database with BENCH_LINKS links, starts Waymark in its own process
 * (bench/redirect/waymark-server.ts) and a receiver in this one (node:http on 127.0.0.1, answering
 * 204), then alternates: side a, no webhook; side b, a webhook with linkScope `workspace` (every
 * link covered: the most a click can cost); side c, a webhook on 1 link in 100. wrk drives both with bench/redirect/load.lua (every
 * request a new visitor). After each b run it waits until every click recorded in that run has
 * reached the receiver, then deletes the webhook.
 *
 * Settings: BENCH_DURATION (s per run, default 10), BENCH_ROUNDS (default 2), BENCH_CONNECTIONS
 * (default 50), BENCH_LINKS (default 10000), BENCH_DRAIN_S (longest wait for deliveries, default 600).
 *
 * Run: npm run bench -- webhooks   (needs wrk)
 */
import { fork, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../src/db/open.js';
import { createWorkspaceService } from '../src/workspaces/service.js';
import { createWorkspaceStore } from '../src/workspaces/store.js';
import { startReceiver } from '../src/webhooks/testing.js';
import { seedLinks } from './redirect/seed.js';
import { acquireLock, parseWrk, requireWrk, wrkArgs, type WrkResult } from './redirect/wrk.js';

const here = dirname(fileURLToPath(import.meta.url));
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const LINKS = Number(process.env.BENCH_LINKS ?? 10_000);
const DRAIN_S = Number(process.env.BENCH_DRAIN_S ?? 600);

function start(env: Record<string, string>): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(join(here, 'redirect', 'waymark-server.ts'), [], { execArgv: ['--import', 'tsx'], env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', (m: { type: string; port: number }) => (m.type === 'ready' ? resolve({ child, port: m.port }) : reject(new Error('bad message'))));
    child.once('exit', (code) => reject(new Error(`waymark-server exited with ${code}`)));
  });
}

function ask<T>(child: ChildProcess, type: string, reply: string): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: { type: string; stats: T }) => {
      if (m.type !== reply) return;
      child.off('message', on);
      resolve(m.stats);
    };
    child.on('message', on);
    child.send({ type });
  });
}

let octet = 31;
function wrk(port: number): WrkResult {
  const r = spawnSync('wrk', wrkArgs({ port, seconds: DURATION, octet: octet++, links: LINKS, connections: CONNECTIONS }), { encoding: 'utf8' });
  return parseWrk(r.stdout, r.stderr);
}

const rps = (w: WrkResult) => w.requests / (w.duration_us / 1e6);
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};

async function main() {
  requireWrk();
  const dir = mkdtempSync(join(tmpdir(), 'waymark-bench-webhooks-'));
  const url = `file:${join(dir, 'bench.db')}`;
  const workspaceId = await seedLinks(url, LINKS);
  const setup = await openDatabase(url);
  const { key } = await createWorkspaceService(createWorkspaceStore(setup.db), Date.now).createKey(workspaceId, { name: 'bench' });
  await setup.close();

  // Event id → when it arrived and when its click happened.
  const arrivals = new Map<string, { at: number; clickAt: number }>();
  const receiver = await startReceiver();
  receiver.answer = (r) => {
    const body = JSON.parse(r.body) as { id: string; data: { click: { timestamp: string } } };
    if (!arrivals.has(body.id)) arrivals.set(body.id, { at: r.at, clickAt: Date.parse(body.data.click.timestamp) });
    return 204;
  };
  receiver.got.length = 0;
  const keep = setInterval(() => (receiver.got.length = 0), 1000);

  const lock = await acquireLock();
  const { child, port } = await start({ DATABASE_URL: url, TRUST_PROXY: 'true', LOG_LEVEL: 'error', WEBHOOK_ALLOW_PRIVATE: 'true' });
  const api = (method: string, path: string, body?: object) =>
    fetch(`http://127.0.0.1:${port}${path}`, { method, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined }).then(async (r) => {
      if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
      return r.json() as Promise<{ id: string }>;
    });
  type Stats = { clicksRecorded: number };
  const settle = () => ask<Stats>(child, 'settle', 'settled');
  console.log(`${cpus().length} CPUs, ${DURATION} s runs, ${CONNECTIONS} connections, ${LINKS} links`);
  const a: number[] = [];
  const b: number[] = [];
  const c: number[] = [];
  // Side c's links: k0, k100, k200 … (100 of them), and the clicks they have stored.
  const reader = await openDatabase(url);
  const sampleLinks = (await reader.db.selectFrom('links').select('id').where('key', 'in', Array.from({ length: 100 }, (_, i) => `k${i * Math.floor(LINKS / 100)}`)).execute()).map((r) => r.id);
  const coveredClicks = async () =>
    Number((await reader.db.selectFrom('events').select((eb) => eb.fn.countAll<number>().as('n')).where('kind', '=', 'click').where('link_id', 'in', sampleLinks).executeTakeFirstOrThrow()).n);
  try {
    wrk(port); // warm-up: GeoIP, caches, JIT
    await settle();
    for (let round = 1; round <= ROUNDS; round++) {
      const wa = wrk(port);
      await settle();
      a.push(rps(wa));
      console.log(`round ${round} a (no webhook)      ${rps(wa).toFixed(0).padStart(7)} redirects/s  p50 ${(wa.p50_us / 1000).toFixed(2)} ms  p99 ${(wa.p99_us / 1000).toFixed(2)} ms`);

      const hook = await api('POST', '/webhooks', { name: 'bench', url: receiver.url, triggers: ['link.clicked'], linkScope: 'workspace' });
      const before = (await settle()).clicksRecorded;
      arrivals.clear();
      const runStart = Date.now();
      const wb = wrk(port);
      const clicks = (await settle()).clicksRecorded - before;
      b.push(rps(wb));
      console.log(`round ${round} b (webhook, all)    ${rps(wb).toFixed(0).padStart(7)} redirects/s  p50 ${(wb.p50_us / 1000).toFixed(2)} ms  p99 ${(wb.p99_us / 1000).toFixed(2)} ms`);
      const deadline = Date.now() + DRAIN_S * 1000;
      while (arrivals.size < clicks && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      const list = [...arrivals.values()];
      const lags = list.map((x) => x.at - x.clickAt);
      const first = Math.min(...list.map((x) => x.at));
      const last = Math.max(...list.map((x) => x.at));
      console.log(
        `          delivered ${arrivals.size} of ${clicks} clicks${arrivals.size === clicks ? ' (all)' : ' (NOT ALL)'}; ` +
          `${(list.length / Math.max(0.001, (last - first) / 1000)).toFixed(0)} deliveries/s; lag click → delivery p50 ${(pct(lags, 50) / 1000).toFixed(2)} s, p99 ${(pct(lags, 99) / 1000).toFixed(2)} s; ` +
          `last delivery ${((last - runStart) / 1000).toFixed(1)} s after the run started`,
      );
      await api('DELETE', `/webhooks/${hook.id}`);

      // Side c: a webhook on 1 link in 100 (linkScope links): mixed traffic, where most clicks
      // are of links nobody subscribes to.
      const some = await api('POST', '/webhooks', { name: 'bench-some', url: receiver.url, triggers: ['link.clicked'], linkScope: 'links', linkIds: sampleLinks });
      const beforeC = (await settle()).clicksRecorded;
      const coveredBefore = await coveredClicks();
      arrivals.clear();
      const wc = wrk(port);
      await settle();
      void beforeC;
      c.push(rps(wc));
      const coveredC = (await coveredClicks()) - coveredBefore;
      const deadlineC = Date.now() + DRAIN_S * 1000;
      while (arrivals.size < coveredC && Date.now() < deadlineC) await new Promise((r) => setTimeout(r, 100));
      const lagsC = [...arrivals.values()].map((x) => x.at - x.clickAt);
      console.log(
        `round ${round} c (webhook, 1 in 100) ${rps(wc).toFixed(0).padStart(7)} redirects/s  p50 ${(wc.p50_us / 1000).toFixed(2)} ms  p99 ${(wc.p99_us / 1000).toFixed(2)} ms; ` +
          `delivered ${arrivals.size} of ${coveredC} covered clicks${arrivals.size === coveredC ? ' (all)' : ' (NOT ALL)'}, lag p50 ${(pct(lagsC, 50) / 1000).toFixed(2)} s, p99 ${(pct(lagsC, 99) / 1000).toFixed(2)} s`,
      );
      await api('DELETE', `/webhooks/${some.id}`);
    }
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    console.log(`b/a redirects/s: ${(mean(b) / mean(a)).toFixed(2)}, c/a: ${(mean(c) / mean(a)).toFixed(2)} (means of ${ROUNDS} rounds)`);
  } finally {
    clearInterval(keep);
    await reader.close();
    await ask(child, 'close', 'closed').catch(() => undefined);
    lock.release();
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
