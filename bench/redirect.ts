/**
 * Redirect benchmark (issue 4): Waymark's redirect with click recording vs a bare node:http 302.
 *
 * Seeds SQLite databases with 10,000 links, starts (a) a bare 302 server, (b) Waymark with the SQL
 * event store (EVENTS_URL=sql) and (d) Waymark with the column store (EVENTS_URL=duckdb, the
 * default on SQLite) in their own processes, then drives each with wrk on 127.0.0.1 — 50
 * connections, fixed duration, alternating a/b/d/c for several rounds, browser user agents and a
 * distinct client IP per request (TRUST_PROXY + X-Forwarded-For). Prints req/s and p50/p99 of
 * every run, the b/a and d/a ratios, and the clicks stored against the human requests answered.
 *
 * Settings (environment): BENCH_DURATION (s per run, default 10), BENCH_ROUNDS (default 3),
 * BENCH_CONNECTIONS (default 50), BENCH_THREADS (wrk threads, default 1), BENCH_LINKS (default 10000),
 * BENCH_SIDES (default abdc), BENCH_PACED_RATE (req/s of the paced a/b runs after the rounds, default 4000, 0 = none), BENCH_NODE_ARGS (extra node flags for Waymark's process, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 * wrk runs hold /tmp/waymark-bench.lock (flock) so two benchmarks never measure at the same time.
 *
 * Run: npm run bench -- redirect   (needs wrk: apt-get install -y wrk)
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../src/db/open.js';
import { seedLinks } from './redirect/seed.js';
import { openDuckDbEngine } from '../src/events/duckdb/duckdb-engine.js';
import { duckDbPathFor } from '../src/events/duckdb/path.js';
import { ask, startServerChild } from './redirect/server-child.js';
import { acquireLock, parseWrk, requireWrk, wrkArgs, type WrkResult as WrkBase } from './redirect/wrk.js';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const THREADS = Number(process.env.BENCH_THREADS ?? 1);
const LINKS = Number(process.env.BENCH_LINKS ?? 10_000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
/**
 * Offered rate of the paced runs (req/s, 0 = none): each connection waits a fixed time before
 * each request, so latency is measured below saturation, without the queue a saturating closed
 * loop builds (at 50 connections, p50 ≈ 50 / throughput on either side).
 */
const PACED_RATE = Number(process.env.BENCH_PACED_RATE ?? 4000);
/** Extra node flags for the Waymark process, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it. */
/** Which sides to run (`abc` by default; `c` alone to profile the no-click path). */
const SIDES = process.env.BENCH_SIDES ?? 'abdc';
const NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);

type WrkResult = WrkBase & {
  /** wrk's own CPU time for the run, µs (NaN where /proc is missing). */
  cpuUs: number;
};

let octet = 11;
function wrk(port: number, seconds: number, bot = false, paceMs = 0): WrkResult {
  // A fresh IP range per run: no visitor repeats across runs, so no click is a deduplicated repeat.
  const args = wrkArgs({ port, seconds, octet: octet++, links: LINKS, connections: CONNECTIONS, threads: THREADS, bot, paceMs });
  // Through a shell that reports, once wrk has exited, the CPU time of its waited-for children
  // (fields 16-17 of /proc/<pid>/stat, in clock ticks): the load generator's own cost, on the
  // cores the servers share.
  const shell = 'wrk "$@"; status=$?; echo "WRK_CPU $(cut -d " " -f 16,17 /proc/$$/stat 2>/dev/null)"; exit $status';
  const r = spawnSync('sh', ['-c', shell, 'sh', ...args], { encoding: 'utf8' });
  const ticks = r.stdout.split('\n').find((l) => l.startsWith('WRK_CPU '))?.slice('WRK_CPU '.length).split(' ').map(Number) ?? [];
  // Linux reports children's times in USER_HZ, 100 a second on every common build.
  const cpuUs = ticks.length === 2 && ticks.every(Number.isFinite) ? (ticks[0]! + ticks[1]!) * 10_000 : NaN;
  return { ...parseWrk(r.stdout, r.stderr), cpuUs };
}

interface Run {
  wrk: WrkResult;
  /** CPU time of the server process (all threads) per request, µs, including the drain after the run. */
  cpuPerRequestUs: number;
  /** The same split: the server's main thread (where Waymark redirects), and its other threads. */
  mainThreadUs: number;
  otherThreadsUs: number;
  /** Time after the run until every click was committed and folded, ms (Waymark with clicks). */
  drainMs: number;
}

type Stats = { humanAnswers: number; clicksRecorded: number; botAnswers: number; cachedLinks: number; writer: { flushes: number; failures: number; buffered: number; held: number; heldTooLong: number } };

/** CPU time of a server so far, µs: in all, and on its main thread and the others (NaN without /proc). */
const cpuOf = async (child: ChildProcess) => {
  const u = await ask<{ user: number; system: number; threads: { main: number; others: number } | null }>(child, 'cpu', 'cpu');
  return { total: u.user + u.system, main: u.threads ? u.threads.main / 1000 : NaN, others: u.threads ? u.threads.others / 1000 : NaN };
};

/**
 * Waits until Waymark has committed every buffered click and folded it into the rollups and link
 * counters, so a run's CPU includes all of its writes and no run pays for the previous one's.
 */
async function drain(child: ChildProcess): Promise<number> {
  const start = Date.now();
  await ask<Stats>(child, 'settle', 'settled');
  return Date.now() - start;
}

async function measure(child: ChildProcess, port: number, seconds: number, options: { bot?: boolean; waitForWrites?: boolean; paceMs?: number } = {}): Promise<Run> {
  const cpu0 = await cpuOf(child);
  const result = wrk(port, seconds, options.bot, options.paceMs);
  const drainMs = options.waitForWrites ? await drain(child) : 0;
  const cpu1 = await cpuOf(child);
  const n = Math.max(1, result.requests);
  return { wrk: result, cpuPerRequestUs: (cpu1.total - cpu0.total) / n, mainThreadUs: (cpu1.main - cpu0.main) / n, otherThreadsUs: (cpu1.others - cpu0.others) / n, drainMs };
}

const rps = (w: WrkResult) => w.requests / (w.duration_us / 1e6);
const ms = (us: number) => (us / 1000).toFixed(2);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const line = (label: string, r: Run) =>
  `${label} ${rps(r.wrk).toFixed(0).padStart(7)} req/s  p50 ${ms(r.wrk.p50_us).padStart(6)} ms  p99 ${ms(r.wrk.p99_us).padStart(6)} ms  ` +
  `cpu ${r.cpuPerRequestUs.toFixed(1).padStart(6)} µs/req (main thread ${r.mainThreadUs.toFixed(1)}, others ${r.otherThreadsUs.toFixed(1)}; wrk ${(r.wrk.cpuUs / Math.max(1, r.wrk.requests)).toFixed(1)})  errors ${r.wrk.connect + r.wrk.read + r.wrk.write + r.wrk.status + r.wrk.timeout}` +
  (r.drainMs ? `  writes and folds done ${r.drainMs} ms after the run` : '');

/** What side d left: clicks in its DuckDB file, the link counters, usage, and journal rows not finished. */
async function duckDbClicks(url: string, workspaceId: string) {
  const database = await openDatabase(url, { migrate: false });
  const linkClicks = Number((await database.db.selectFrom('links').select((eb) => eb.fn.sum<number>('clicks').as('n')).executeTakeFirstOrThrow()).n);
  const usage = Number((await database.db.selectFrom('workspaces').select('usage').where('id', '=', workspaceId).executeTakeFirstOrThrow()).usage);
  const journal = (await database.db.selectFrom('click_journal').select('seq').execute()).length;
  const engine = await openDuckDbEngine({ path: duckDbPathFor('duckdb', database.localFiles) });
  const [row] = await engine.query({ text: "SELECT count(*) AS n FROM events WHERE kind = 'click'", params: [] });
  await engine.close();
  await database.close();
  return { clicks: Number(row!.n), linkClicks, usage, journal };
}

async function main() {
  requireWrk();
  const dir = mkdtempSync(join(tmpdir(), 'waymark-bench-'));
  const url = `file:${join(dir, 'bench.db')}`;
  const urlD = `file:${join(dir, 'bench-duck.db')}`;
  const workspaceId = await seedLinks(url, LINKS);
  const workspaceIdD = await seedLinks(urlD, LINKS);
  const bare = await startServerChild('bare-server.ts', {});
  const settings = { PORT: '3000', BASE_URL: 'http://localhost:3000', TRUST_PROXY: 'true', LOG_LEVEL: 'warn' };
  const waymark = await startServerChild('waymark-server.ts', { ...settings, DATABASE_URL: url, EVENTS_URL: 'sql' }, NODE_ARGS);
  const duck = SIDES.includes('d') ? await startServerChild('waymark-server.ts', { ...settings, DATABASE_URL: urlD, EVENTS_URL: 'duckdb' }, NODE_ARGS) : undefined;

  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  console.log(`machine: ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  console.log(`wrk: ${THREADS} thread(s), ${CONNECTIONS} connections, ${DURATION} s per run, ${ROUNDS} rounds of a/b/c, ${LINKS} links, warm-up ${WARMUP} s each`);
  console.log('a = bare node:http 302; b = Waymark with the SQL event store, browser user agents, every request a new click; d = the same with the DuckDB column store; c = Waymark, crawler user agent (redirect only, nothing recorded)\n');

  const a: Run[] = [];
  const b: Run[] = [];
  const c: Run[] = [];
  const d: Run[] = [];
  const paced: { a?: Run; b?: Run; d?: Run } = {};
  const lock = await acquireLock();
  try {
    wrk(bare.port, WARMUP);
    wrk(waymark.port, WARMUP);
    // Measure the steady state: every link in the redirect's cache before the first run (a cold
    // cache made the first b run pay thousands of link lookups).
    for (let extra = 0; (await ask<Stats>(waymark.child, 'stats', 'stats')).cachedLinks < LINKS && extra < 5; extra++) wrk(waymark.port, WARMUP, true);
    console.log(`links cached before the first run: ${(await ask<Stats>(waymark.child, 'stats', 'stats')).cachedLinks} of ${LINKS}`);
    await drain(waymark.child);
    if (duck) {
      wrk(duck.port, WARMUP);
      for (let extra = 0; (await ask<Stats>(duck.child, 'stats', 'stats')).cachedLinks < LINKS && extra < 5; extra++) wrk(duck.port, WARMUP, true);
      console.log(`links cached before the first run (d): ${(await ask<Stats>(duck.child, 'stats', 'stats')).cachedLinks} of ${LINKS}`);
      await drain(duck.child);
    }
    console.log('');
    for (let round = 0; round < ROUNDS; round++) {
      if (SIDES.includes('a')) {
        a.push(await measure(bare.child, bare.port, DURATION));
        console.log(line(`round ${round + 1} a bare   `, a.at(-1)!));
      }
      if (SIDES.includes('b')) {
        b.push(await measure(waymark.child, waymark.port, DURATION, { waitForWrites: true }));
        console.log(line(`round ${round + 1} b waymark`, b.at(-1)!));
      }
      if (duck) {
        d.push(await measure(duck.child, duck.port, DURATION, { waitForWrites: true }));
        console.log(line(`round ${round + 1} d duckdb `, d.at(-1)!));
      }
      if (SIDES.includes('c')) {
        c.push(await measure(waymark.child, waymark.port, DURATION, { bot: true }));
        console.log(line(`round ${round + 1} c no-click`, c.at(-1)!));
      }
    }
    if (PACED_RATE > 0) {
      const paceMs = Math.max(1, Math.round((CONNECTIONS * 1000) / PACED_RATE));
      if (SIDES.includes('a')) {
        paced.a = await measure(bare.child, bare.port, DURATION, { paceMs });
        console.log(line(`paced   a bare   `, paced.a));
      }
      if (SIDES.includes('b')) {
        paced.b = await measure(waymark.child, waymark.port, DURATION, { waitForWrites: true, paceMs });
        console.log(line(`paced   b waymark`, paced.b));
      }
      if (duck) {
        paced.d = await measure(duck.child, duck.port, DURATION, { waitForWrites: true, paceMs });
        console.log(line(`paced   d duckdb `, paced.d));
      }
    }
  } finally {
    lock.release();
  }

  const final = await ask<Stats>(waymark.child, 'close', 'closed');
  const finalD = duck ? await ask<Stats>(duck.child, 'close', 'closed') : undefined;
  bare.child.send({ type: 'close' });
  const storedD = duck ? await duckDbClicks(urlD, workspaceIdD) : undefined;

  const database = await openDatabase(url, { migrate: false });
  const stored = await database.db.selectFrom('events').select((eb) => eb.fn.countAll<number>().as('n')).where('kind', '=', 'click').executeTakeFirstOrThrow();
  const linkClicks = await database.db.selectFrom('links').select((eb) => eb.fn.sum<number>('clicks').as('n')).executeTakeFirstOrThrow();
  const usage = await database.db.selectFrom('workspaces').select('usage').where('id', '=', workspaceId).executeTakeFirstOrThrow();
  await database.close();
  rmSync(dir, { recursive: true, force: true });

  const summary = (label: string, runs: Run[]) =>
    `  ${label} ${mean(runs.map((r) => rps(r.wrk))).toFixed(0).padStart(7)} req/s  p50 ${ms(median(runs.map((r) => r.wrk.p50_us))).padStart(6)} ms  ` +
    `p99 ${ms(median(runs.map((r) => r.wrk.p99_us))).padStart(6)} ms  cpu ${mean(runs.map((r) => r.cpuPerRequestUs)).toFixed(1).padStart(6)} µs/req ` +
    `(main thread ${mean(runs.map((r) => r.mainThreadUs)).toFixed(1)}, others ${mean(runs.map((r) => r.otherThreadsUs)).toFixed(1)}; wrk ${mean(runs.map((r) => r.wrk.cpuUs / Math.max(1, r.wrk.requests))).toFixed(1)})`;
  const aRps = a.map((r) => rps(r.wrk));
  const bRps = b.map((r) => rps(r.wrk));
  const cRps = c.map((r) => rps(r.wrk));
  // Sustained: requests of a run over the run plus the time its writes and folds needed to land.
  const bSustained = b.map((r) => r.wrk.requests / (r.wrk.duration_us / 1e6 + r.drainMs / 1000));
  const p99 = (runs: Run[]) => median(runs.map((r) => r.wrk.p99_us));
  console.log('\nsummary (req/s and cpu: mean of rounds; p50/p99: median of rounds)');
  console.log(summary('a bare node:http 302 ', a));
  console.log(summary('b waymark + clicks    ', b));
  console.log(summary('c waymark, no clicks  ', c));
  if (d.length) console.log(summary('d waymark + DuckDB    ', d));
  console.log(`  ratio b/a req/s          ${(mean(bRps) / mean(aRps)).toFixed(3)}  (target ≥ 0.7; per round ${bRps.map((x, i) => (x / aRps[i]!).toFixed(3)).join(' ')})`);
  console.log(`  ratio b/a sustained      ${(mean(bSustained) / mean(aRps)).toFixed(3)}  (counting the time until the run's clicks were committed and folded)`);
  console.log(`  ratio b/a p99            ${(p99(b) / p99(a)).toFixed(2)}   (target ≤ 1.5)`);
  console.log(`  ratio c/a req/s, p99     ${(mean(cRps) / mean(aRps)).toFixed(3)}, ${(p99(c) / p99(a)).toFixed(2)}   (the redirect path without writes)`);
  if (d.length) {
    const dRps = d.map((r) => rps(r.wrk));
    const dSustained = d.map((r) => r.wrk.requests / (r.wrk.duration_us / 1e6 + r.drainMs / 1000));
    console.log(`  ratio d/a req/s          ${(mean(dRps) / mean(aRps)).toFixed(3)}  (target ≥ 0.7; per round ${dRps.map((x, i) => (x / aRps[i]!).toFixed(3)).join(' ')}); d/b ${(mean(dRps) / mean(bRps)).toFixed(3)}`);
    console.log(`  ratio d/a sustained      ${(mean(dSustained) / mean(aRps)).toFixed(3)}`);
    console.log(`  ratio d/a p99            ${(p99(d) / p99(a)).toFixed(2)}`);
    console.log(`  CPU per recorded click   b ${mean(b.map((r) => r.cpuPerRequestUs)).toFixed(1)} µs, d ${mean(d.map((r) => r.cpuPerRequestUs)).toFixed(1)} µs (target ≤ 40; whole server process, all threads)`);
  }
  if (a.length && b.length) {
    // The target as CPU: at 0.7 × a's rate, what a (b) request may cost on the two cores (wrk's
    // share included, as it runs on them too), and on the redirect thread alone (one core at most).
    const cores = cpus().length;
    const target = 0.7 * mean(aRps);
    const perReq = (f: (r: Run) => number) => mean(b.map(f));
    const wrkUs = perReq((r) => r.wrk.cpuUs / Math.max(1, r.wrk.requests));
    const mainUs = perReq((r) => r.mainThreadUs);
    const othersUs = perReq((r) => r.otherThreadsUs);
    console.log(
      `  CPU budget for b/a 0.7   ${target.toFixed(0)} req/s allow ${((cores * 1e6) / target).toFixed(1)} µs per request on ${cores} cores, ${(1e6 / target).toFixed(1)} on the redirect thread;` +
        ` b used ${(mainUs + othersUs + wrkUs).toFixed(1)} (redirect thread ${mainUs.toFixed(1)}, other threads ${othersUs.toFixed(1)}, wrk ${wrkUs.toFixed(1)})`,
    );
  }
  if (paced.a && paced.b) {
    console.log(`  paced, ${rps(paced.a.wrk).toFixed(0)} vs ${rps(paced.b.wrk).toFixed(0)} req/s offered at ${CONNECTIONS} × 1 per ${Math.max(1, Math.round((CONNECTIONS * 1000) / PACED_RATE))} ms:`);
    console.log(`    p50 b/a ${(paced.b.wrk.p50_us / paced.a.wrk.p50_us).toFixed(2)} (${ms(paced.a.wrk.p50_us)} vs ${ms(paced.b.wrk.p50_us)} ms), p99 b/a ${(paced.b.wrk.p99_us / paced.a.wrk.p99_us).toFixed(2)} (${ms(paced.a.wrk.p99_us)} vs ${ms(paced.b.wrk.p99_us)} ms)`);
  }
  if (paced.a && paced.d) {
    console.log(`    p50 d/a ${(paced.d.wrk.p50_us / paced.a.wrk.p50_us).toFixed(2)} (${ms(paced.d.wrk.p50_us)} ms), p99 d/a ${(paced.d.wrk.p99_us / paced.a.wrk.p99_us).toFixed(2)} (${ms(paced.d.wrk.p99_us)} ms)`);
  }
  console.log(`\nclicks`);
  console.log(`  human requests answered by Waymark (incl. warm-up)  ${final.humanAnswers}   (wrk counted ${b.reduce((n, r) => n + r.wrk.requests, 0)} in the measured b runs; it stops with up to ${CONNECTIONS} in flight)`);
  console.log(`  new clicks recorded                                 ${final.clicksRecorded}`);
  console.log(`  click events stored                                 ${stored.n}`);
  console.log(`  sum(links.clicks)                                   ${Number(linkClicks.n)}`);
  console.log(`  workspace usage                                     ${usage.usage}`);
  console.log(`  crawler requests answered (not recorded)            ${final.botAnswers}`);
  console.log(`  flushes ${final.writer.flushes}, failed flushes ${final.writer.failures}`);
  console.log(`  answers held past the lag bound (CLICK_MAX_LAG_MS) ${final.writer.held}, of which sent after CLICK_MAX_HOLD_MS ${final.writer.heldTooLong}`);
  let ok = Number(stored.n) === final.humanAnswers && Number(linkClicks.n) === final.humanAnswers && Number(usage.usage) === final.humanAnswers;
  console.log(`  stored == answered: ${ok ? 'yes' : 'NO'}`);
  if (finalD && storedD) {
    console.log(`  d: human requests answered ${finalD.humanAnswers}, clicks in DuckDB ${storedD.clicks}, sum(links.clicks) ${storedD.linkClicks}, usage ${storedD.usage}, journal rows left ${storedD.journal}, flushes ${finalD.writer.flushes} (failed ${finalD.writer.failures}), held ${finalD.writer.held}`);
    const okD = storedD.clicks === finalD.humanAnswers && storedD.linkClicks === finalD.humanAnswers && storedD.usage === finalD.humanAnswers && storedD.journal === 0;
    console.log(`  d: stored == answered: ${okD ? 'yes' : 'NO'}`);
    ok &&= okD;
  }
  if (!ok) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
