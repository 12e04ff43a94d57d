/**
 * Metrics benchmark (issue 29): the redirect with `/metrics` on against the same redirect with it
 * off, side by side in one run. Target: CPU per request with metrics on within 3 % of off.
 *
 * Seeds two SQLite files with the same 10,000 links and starts Waymark twice (bench/redirect/
 * waymark-server.ts, SQL event store): `off` without any metrics setting, `on` with METRICS_TOKEN,
 * scraped once a second during its runs (a Prometheus scrapes every 15-60 s: a harder case). Each
 * round drives off then on (the order swapped every round) with wrk on 127.0.0.1, every request a
 * new click from its own address (bench/redirect/load.lua), and waits until the run's clicks are
 * committed, so their writes are in the run's CPU. CPU per request is read from /proc (all threads
 * of the server process, including the click writer's), the figure that holds on a shared machine.
 *
 * It measures only while the 1-minute load average is below BENCH_MAX_LOAD (default 1.5),
 * waiting up to BENCH_LOAD_WAIT s (default 600) for it; BENCH_IGNORE_LOAD=1 runs anyway and says
 * so. Settings: BENCH_DURATION (s per run, default 10), BENCH_ROUNDS (default 4), BENCH_CONNECTIONS
 * (default 50), BENCH_LINKS (default 10000).
 *
 * Run: npm run bench -- metrics   (needs wrk)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { seedLinks } from './redirect/seed.js';
import { ask, startServerChild } from './redirect/server-child.js';
import { acquireLock, requireWrk, runWrk, type WrkResult } from './redirect/wrk.js';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const LINKS = Number(process.env.BENCH_LINKS ?? 10_000);
const MAX_LOAD = Number(process.env.BENCH_MAX_LOAD ?? 1.5);
const LOAD_WAIT_S = Number(process.env.BENCH_LOAD_WAIT ?? 600);
const IGNORE_LOAD = process.env.BENCH_IGNORE_LOAD === '1';
const TOKEN = 'bench-metrics-token-0123456789';

interface Side {
  name: 'off' | 'on';
  child: ChildProcess;
  port: number;
}
interface Run {
  rps: number;
  cpuUs: number;
  p99Us: number;
  scrapes: number;
  load: number;
  /** wrk's errors (timeouts on a loaded machine), printed. */
  errors: number;
}

const cpuOf = async (child: ChildProcess) => {
  const u = await ask<{ user: number; system: number }>(child, 'cpu', 'cpu');
  return u.user + u.system;
};

let octet = 11;
async function measure(side: Side): Promise<Run> {
  const load = loadavg()[0]!;
  const cpu0 = await cpuOf(side.child);
  const wrk = runWrk({ port: side.port, seconds: DURATION, octet: octet++, links: LINKS, connections: CONNECTIONS });
  let scrapes = 0;
  let scraping = side.name === 'on';
  const scraper = (async () => {
    while (scraping) {
      await new Promise((r) => setTimeout(r, 1000));
      if (!scraping) break;
      const res = await fetch(`http://127.0.0.1:${side.port}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      if (res.status !== 200) throw new Error(`scrape answered ${res.status}`);
      await res.text();
      scrapes++;
    }
  })();
  const result: WrkResult = await wrk.result;
  scraping = false;
  await scraper;
  await ask(side.child, 'settle', 'settled');
  const cpu1 = await cpuOf(side.child);
  const n = Math.max(1, result.requests);
  const errors = result.connect + result.read + result.write + result.status + result.timeout;
  return { rps: result.requests / (result.duration_us / 1e6), cpuUs: (cpu1 - cpu0) / n, p99Us: result.p99_us, scrapes, load, errors };
}

async function waitForQuiet(): Promise<void> {
  const deadline = Date.now() + LOAD_WAIT_S * 1000;
  while (loadavg()[0]! >= MAX_LOAD) {
    if (IGNORE_LOAD) {
      console.log(`load average ${loadavg()[0]!.toFixed(2)} ≥ ${MAX_LOAD}: measuring anyway (BENCH_IGNORE_LOAD=1); the figures are indicative only`);
      return;
    }
    if (Date.now() > deadline) {
      console.error(`load average stayed ≥ ${MAX_LOAD} for ${LOAD_WAIT_S} s (now ${loadavg().map((x) => x.toFixed(2)).join(' ')}): not measured. BENCH_IGNORE_LOAD=1 measures anyway.`);
      process.exit(2);
    }
    await new Promise((r) => setTimeout(r, 10_000));
  }
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const fmt = (r: Run) => `${r.rps.toFixed(0).padStart(6)} req/s  cpu ${r.cpuUs.toFixed(1).padStart(5)} µs/req  p99 ${(r.p99Us / 1000).toFixed(2).padStart(6)} ms  scrapes ${r.scrapes}  load ${r.load.toFixed(2)}  errors ${r.errors}`;

async function main() {
  requireWrk();
  const dir = mkdtempSync(join(tmpdir(), 'waymark-bench-metrics-'));
  const settings = { PORT: '3000', BASE_URL: 'http://localhost:3000', TRUST_PROXY: 'true', LOG_LEVEL: 'warn', EVENTS_URL: 'sql' };
  const sides: Side[] = [];
  try {
    for (const name of ['off', 'on'] as const) {
      const url = `file:${join(dir, `${name}.db`)}`;
      await seedLinks(url, LINKS);
      const { child, port } = await startServerChild('waymark-server.ts', { ...settings, DATABASE_URL: url, ...(name === 'on' ? { METRICS_TOKEN: TOKEN } : {}) });
      sides.push({ name, child, port });
    }
    const check = await fetch(`http://127.0.0.1:${sides[0]!.port}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    if (check.status !== 404) throw new Error(`metrics should be off on the off side, got ${check.status}`);

    await waitForQuiet();
    console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
    console.log(`wrk: ${CONNECTIONS} connections, ${DURATION} s per run, ${ROUNDS} rounds, ${LINKS} links, every request a new click; on = METRICS_TOKEN set, scraped every second\n`);
    const lock = await acquireLock();
    const runs: Record<'off' | 'on', Run[]> = { off: [], on: [] };
    let scrapeUs = NaN;
    let scrapeBytes = 0;
    try {
      // Warm-up: JIT, and every link in both redirect caches.
      for (const side of sides) for (let i = 0; i < 2; i++) await measure(side);
      for (let round = 0; round < ROUNDS; round++) {
        const order = round % 2 === 0 ? sides : [...sides].reverse();
        for (const side of order) {
          const run = await measure(side);
          runs[side.name].push(run);
          console.log(`round ${round + 1} ${side.name.padEnd(3)} ${fmt(run)}`);
        }
      }
      // What one scrape costs the server (CPU of the process over 50 scrapes, no other traffic):
      // the only work metrics add besides prom-client's event-loop and GC observers.
      const on = sides.find((x) => x.name === 'on')!;
      const scrapeCpu0 = await cpuOf(on.child);
      let bytes = 0;
      for (let i = 0; i < 50; i++) bytes = (await (await fetch(`http://127.0.0.1:${on.port}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text()).length;
      scrapeUs = (await cpuOf(on.child) - scrapeCpu0) / 50;
      scrapeBytes = bytes;
    } finally {
      lock.release();
    }
    const cpuRatio = mean(runs.on.map((r) => r.cpuUs)) / mean(runs.off.map((r) => r.cpuUs));
    const perRound = runs.on.map((r, i) => (r.cpuUs / runs.off[i]!.cpuUs).toFixed(3));
    console.log('\nsummary (mean of rounds; p99 median)');
    for (const name of ['off', 'on'] as const) {
      const rs = runs[name];
      console.log(`  ${name.padEnd(3)} ${mean(rs.map((r) => r.rps)).toFixed(0).padStart(6)} req/s  cpu ${mean(rs.map((r) => r.cpuUs)).toFixed(1)} µs/req  p99 ${(median(rs.map((r) => r.p99Us)) / 1000).toFixed(2)} ms`);
    }
    console.log(`  ratio on/off CPU per request ${cpuRatio.toFixed(3)}  (target ≤ 1.03; per round ${perRound.join(' ')})`);
    console.log(`  ratio on/off req/s           ${(mean(runs.on.map((r) => r.rps)) / mean(runs.off.map((r) => r.rps))).toFixed(3)}`);
    const offRps = mean(runs.off.map((r) => r.rps));
    const offCpu = mean(runs.off.map((r) => r.cpuUs));
    console.log(`  one scrape                   ${(scrapeUs / 1000).toFixed(2)} ms of CPU, ${scrapeBytes} bytes; every 15 s at ${offRps.toFixed(0)} req/s that is ${((100 * scrapeUs) / 15 / (offRps * offCpu)).toFixed(3)} % of the redirect's CPU`);
    console.log(`  load average during the runs ${Math.min(...[...runs.on, ...runs.off].map((r) => r.load)).toFixed(2)}–${Math.max(...[...runs.on, ...runs.off].map((r) => r.load)).toFixed(2)}`);
  } finally {
    for (const side of sides) await ask(side.child, 'close', 'closed').catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
