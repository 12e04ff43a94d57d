/**
 * Webhooks benchmark (issue 15): redirects/s of links a `link.clicked` webhook covers vs links
 * none does, and the delivery of those clicks: deliveries/s, lag click → delivery (p50/p99), and
 * that every click was delivered.
 *
 * Seeds a SQLite database with BENCH_LINKS links, starts Waymark in its own process
 * (bench/redirect/waymark-server.ts) and a receiver in this one (node:http on 127.0.0.1, answering
 * 204). wrk drives every run with bench/redirect/load.lua (every request a new visitor, walking all
 * links), after a warm-up run with side c's webhook. Rounds alternate side a, no webhook, and side
 * c, a webhook on 1 link in 100 (linkScope links: mixed traffic). After the rounds, side b: a webhook on every link (linkScope workspace,
 * the most clicks can cost), saturating and then paced (about 1,000 clicks/s) for the lag. After
 * each webhook run it waits until every click it covered reached the receiver.
 *
 * Settings: BENCH_DURATION (s per run, default 10), BENCH_ROUNDS (default 2), BENCH_CONNECTIONS
 * (default 50), BENCH_LINKS (default 10000), BENCH_DRAIN_S (longest wait for deliveries, default
 * 600), BENCH_PACED_MS (each connection's pause in the paced run, default 50), BENCH_SERVER_NODE_ARGS
 * (Node options of the server process, space-separated: `--cpu-prof --cpu-prof-dir=/tmp/prof`
 * profiles each of its threads).
 *
 * Run: npm run bench -- webhooks   (needs wrk)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../src/db/open.js';
import { createWorkspaceService } from '../src/workspaces/service.js';
import { createWorkspaceStore } from '../src/workspaces/store.js';
import { startReceiver } from '../src/webhooks/testing.js';
import { seedLinks } from './redirect/seed.js';
import { ask, startServerChild } from './redirect/server-child.js';
import { acquireLock, parseWrk, requireWrk, wrkArgs, type WrkResult } from './redirect/wrk.js';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const LINKS = Number(process.env.BENCH_LINKS ?? 10_000);
const DRAIN_S = Number(process.env.BENCH_DRAIN_S ?? 600);
/** Pause of each connection before each request in the paced run of side b: about 50 × 1000 / 50 = 1,000 clicks/s. */
const PACED_MS = Number(process.env.BENCH_PACED_MS ?? 50);
const SERVER_NODE_ARGS = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);

let octet = 31;
/** Runs wrk without blocking this process: the receiver lives here and must answer meanwhile. */
function wrk(port: number, paceMs = 0): Promise<WrkResult> {
  const child = spawn('wrk', wrkArgs({ port, seconds: DURATION, octet: octet++, links: LINKS, connections: CONNECTIONS, paceMs }));
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  return new Promise((resolve, reject) => child.on('close', () => {
    try {
      resolve(parseWrk(out, err));
    } catch (e) {
      reject(e);
    }
  }));
}

const rps = (w: WrkResult) => w.requests / (w.duration_us / 1e6);
/** A run with the server's CPU per redirect during it, µs: its main (redirect) thread and its other threads. */
type Run = WrkResult & { mainUs: number; othersUs: number; held: number };
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
  const { child, port } = await startServerChild('waymark-server.ts', { DATABASE_URL: url, EVENTS_URL: 'sql', TRUST_PROXY: 'true', LOG_LEVEL: 'error', WEBHOOK_ALLOW_PRIVATE: 'true' }, SERVER_NODE_ARGS);
  const api = (method: string, path: string, body?: object) =>
    fetch(`http://127.0.0.1:${port}${path}`, { method, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined }).then(async (r) => {
      if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
      return r.json() as Promise<{ id: string }>;
    });
  type Stats = { clicksRecorded: number; writer: { held: number } };
  const settle = () => ask<Stats>(child, 'settle', 'settled');
  console.log(`${cpus().length} CPUs, ${DURATION} s runs, ${CONNECTIONS} connections, ${LINKS} links`);
  const a: number[] = [];
  const b: number[] = [];
  const c: number[] = [];
  const aMain: number[] = [];
  const cMain: number[] = [];
  // Side c's links: k0, k100, k200 … (100 of them), and the clicks they have stored.
  const reader = await openDatabase(url);
  const sampleLinks = (await reader.db.selectFrom('links').select('id').where('key', 'in', Array.from({ length: 100 }, (_, i) => `k${i * Math.floor(LINKS / 100)}`)).execute()).map((r) => r.id);
  const coveredClicks = async () =>
    Number((await reader.db.selectFrom('events').select((eb) => eb.fn.countAll<number>().as('n')).where('kind', '=', 'click').where('link_id', 'in', sampleLinks).executeTakeFirstOrThrow()).n);
  try {
    // Warm-up: GeoIP, caches, JIT, and the webhook path (the dispatcher's thread starts with the
    // first webhook; under tsx its start-up compiles modules, which would weigh on round 1 c).
    const warm = await api('POST', '/webhooks', { name: 'bench-warm-up', url: receiver.url, triggers: ['link.clicked'], linkScope: 'links', linkIds: sampleLinks });
    await wrk(port);
    await settle();
    await api('DELETE', `/webhooks/${warm.id}`);
    await settle();
    // The main thread's CPU per redirect does not depend on what else the machine runs, unlike
    // redirects/s: what webhooks cost the redirect thread shows there even on a busy machine.
    const cpuNow = async () => (await ask<{ threads: { main: number; others: number } | null }>(child, 'cpu', 'cpu')).threads;
    // Answers held for the click writer (over CLICK_MAX_LAG_MS behind): a slow writer slows redirects.
    const heldNow = async () => (await ask<Stats>(child, 'stats', 'stats')).writer.held;
    const run = async (paceMs = 0): Promise<Run> => {
      const [c0, h0] = [await cpuNow(), await heldNow()];
      const w = await wrk(port, paceMs);
      const [c1, h1] = [await cpuNow(), await heldNow()];
      const n = Math.max(1, w.requests);
      return { ...w, held: h1 - h0, mainUs: c0 && c1 ? (c1.main - c0.main) / 1000 / n : NaN, othersUs: c0 && c1 ? (c1.others - c0.others) / 1000 / n : NaN };
    };
    const line = (label: string, w: Run) =>
      `${label.padEnd(30)} ${rps(w).toFixed(0).padStart(7)} redirects/s  p50 ${(w.p50_us / 1000).toFixed(2)} ms  p99 ${(w.p99_us / 1000).toFixed(2)} ms  ` +
      `cpu/redirect: main thread ${w.mainUs.toFixed(1)} µs, others ${w.othersUs.toFixed(1)} µs  held ${w.held}`;
    /** Waits until `expected` deliveries arrived; prints how many, how fast, and the lag. */
    const report = async (expected: number, runStart: number) => {
      const deadline = Date.now() + DRAIN_S * 1000;
      while (arrivals.size < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      const list = [...arrivals.values()];
      const lags = list.map((x) => x.at - x.clickAt);
      const first = Math.min(...list.map((x) => x.at));
      const last = Math.max(...list.map((x) => x.at));
      console.log(
        `${''.padEnd(30)} delivered ${arrivals.size} of ${expected} clicks${arrivals.size === expected ? ' (all)' : ' (NOT ALL)'}; ` +
          `${(list.length / Math.max(0.001, (last - first) / 1000)).toFixed(0)} deliveries/s; lag click → delivery p50 ${(pct(lags, 50) / 1000).toFixed(2)} s, p99 ${(pct(lags, 99) / 1000).toFixed(2)} s; ` +
          `last ${((last - runStart) / 1000).toFixed(1)} s after the run started`,
      );
    };
    for (let round = 1; round <= ROUNDS; round++) {
      const wa = await run();
      await settle();
      a.push(rps(wa));
      aMain.push(wa.mainUs);
      console.log(line(`round ${round} a (no webhook)`, wa));

      // Side c: a webhook on 1 link in 100 (linkScope links): mixed traffic, where most clicks
      // are of links nobody subscribes to.
      const some = await api('POST', '/webhooks', { name: 'bench-some', url: receiver.url, triggers: ['link.clicked'], linkScope: 'links', linkIds: sampleLinks });
      await settle();
      const coveredBefore = await coveredClicks();
      arrivals.clear();
      const startC = Date.now();
      const wc = await run();
      await settle();
      c.push(rps(wc));
      cMain.push(wc.mainUs);
      console.log(line(`round ${round} c (webhook, 1 in 100)`, wc));
      await report((await coveredClicks()) - coveredBefore, startC);
      await api('DELETE', `/webhooks/${some.id}`);
    }

    // Side b, after the rounds (its backlog of delivered events would weigh on the runs after it
    // until the publisher prunes them): every link covered, saturating, then paced.
    const hook = await api('POST', '/webhooks', { name: 'bench', url: receiver.url, triggers: ['link.clicked'], linkScope: 'workspace' });
    for (const paceMs of [0, PACED_MS]) {
      const before = (await settle()).clicksRecorded;
      arrivals.clear();
      const runStart = Date.now();
      const wb = await run(paceMs);
      const clicks = (await settle()).clicksRecorded - before;
      if (!paceMs) b.push(rps(wb));
      console.log(line(paceMs ? `b (webhook, all), paced` : 'b (webhook, all)', wb));
      await report(clicks, runStart);
    }
    await api('DELETE', `/webhooks/${hook.id}`);
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    console.log(`c/a redirects/s: ${(mean(c) / mean(a)).toFixed(2)} (means of ${ROUNDS} rounds); b/a: ${(mean(b) / mean(a)).toFixed(2)}`);
    console.log(`main thread cpu/redirect: a ${mean(aMain).toFixed(1)} µs, c ${mean(cMain).toFixed(1)} µs (means of ${ROUNDS} rounds)`);
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
