/**
 * Retention benchmark (issue 16): redirect throughput while a retention pass deletes old events,
 * against the same redirects without one, on a SQLite file, as an A/B of alternating runs.
 *
 * The database (bench/retention/fill.ts): BENCH_EVENTS click events of one workspace over the
 * redirect benchmark's 10,000 links, BENCH_OLD of them older than the 30-day horizon, with their
 * rollups, the fold's watermark and the link counters as production would hold them. Built with
 * direct SQL once and cached in $TMPDIR/waymark-bench-retention/ by its parameters; every run
 * starts from a fresh copy of that file, so no run inherits the clicks or deletes of another.
 *
 * Each round has two runs, their order alternating between rounds: A starts Waymark (its own
 * process, no retention) and drives redirects with wrk for BENCH_DURATION seconds (50
 * connections, every request a new click, as bench/redirect.ts); B does the same with
 * EVENTS_RETENTION_DAYS=30 while a retention pass runs (started with the load; the pass is long
 * enough to outlast it, checked), then stops the server, which ends the pass at its next batch,
 * and counts the old events the pass deleted meanwhile (a whole pass of 1,000,000 at its pace
 * would take many minutes per run). Prints each pair, its ratio B/A, and the mean over rounds.
 * (A without EVENTS_RETENTION_DAYS: with the setting, the timer's own pass starts 60 s after the
 * start, which a 5-million-event run reaches before its load ends.)
 *
 * Settings (env): BENCH_EVENTS (default 5,000,000), BENCH_OLD (default 1,000,000), BENCH_DURATION
 * (s per run, default 20), BENCH_ROUNDS (default 4).
 *
 * Run:  npm run bench -- retention                                   (the sizes)
 *       BENCH_EVENTS=500000 BENCH_OLD=100000 BENCH_ROUNDS=2 BENCH_DURATION=10 npm run bench -- retention
 */
import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { RETENTION_BATCH, RETENTION_PAUSE_MS } from '../src/events/retention-module.js';
import { cachedDatabase, DAY } from './retention/fill.js';
import { ask, startServerChild } from './redirect/server-child.js';
import { acquireLock, requireWrk, runWrk, type WrkResult } from './redirect/wrk.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 5_000_000);
const OLD = Number(process.env.BENCH_OLD ?? 1_000_000);
const DURATION = Number(process.env.BENCH_DURATION ?? 20);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const LINKS = 10_000;

const rps = (w: WrkResult) => w.requests / (w.duration_us / 1e6);
const fmt = (n: number) => Math.round(n).toLocaleString('en');
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
let octet = 11;

interface RunResult {
  wrk: WrkResult;
  /** B runs: the old events the pass deleted while the load ran (and until the server stopped), and whether it still ran when wrk ended. */
  pass?: { events: number; ms: number; outlasted: boolean };
}

/** One run from a fresh copy of `source`: wrk for DURATION seconds, with a retention pass alongside when `purging`. */
async function run(source: string, dir: string, purging: boolean, filledAt: number): Promise<RunResult> {
  const file = join(dir, 'run.db');
  for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
  copyFileSync(source, file);
  const { child, port } = await startServerChild('waymark-server.ts', {
    DATABASE_URL: `file:${file}`, PORT: '3000', BASE_URL: 'http://localhost:3000', TRUST_PROXY: 'true', LOG_LEVEL: 'warn', EVENTS_URL: 'sql',
    ...(purging ? { EVENTS_RETENTION_DAYS: '30' } : {}),
  });
  let passStarted = 0;
  let closed = false;
  try {
    await runWrk({ port, seconds: 3, octet: octet++, links: LINKS, bot: true }).result; // warm the link cache; bots record nothing
    await ask(child, 'settle', 'settled');
    let passDone = false;
    passStarted = performance.now();
    if (purging) void ask(child, 'retention', 'retained').then(() => (passDone = true), () => undefined);
    const wrk = await runWrk({ port, seconds: DURATION, octet: octet++, links: LINKS }).result;
    const outlasted = !passDone;
    await ask(child, 'settle', 'settled');
    if (!purging) return { wrk };
    await ask(child, 'close', 'closed');
    closed = true;
    const ms = performance.now() - passStarted;
    const db = new SQLite(file, { readonly: true });
    const left = (db.prepare('select count(*) as n from events where timestamp < ?').get(filledAt - 30 * DAY) as { n: number }).n;
    db.close();
    return { wrk, pass: { events: OLD - left, ms, outlasted } };
  } finally {
    if (!closed) await ask(child, 'close', 'closed');
    for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
  }
}

async function main() {
  requireWrk();
  if (DURATION > 50) throw new Error('BENCH_DURATION must stay below 50 s: the retention timer runs its own first pass 60 s after the start');
  const { file, filledAt } = await cachedDatabase({ events: EVENTS, old: OLD, links: LINKS }, console.log);
  const dir = mkdtempSync(join(tmpdir(), 'waymark-bench-retention-run-'));
  console.log(`machine: ${cpus().length} × ${cpus()[0]?.model}, Node ${process.version}, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  console.log(
    `${fmt(EVENTS)} events (${fmt(OLD)} older than the 30-day horizon), ${fmt(LINKS)} links, database ${(statSync(file).size / 2 ** 30).toFixed(2)} GiB; ` +
      `wrk 50 connections, ${DURATION} s runs, every request a new click; pass batches of ${fmt(RETENTION_BATCH)} rows, pause ≥ ${RETENTION_PAUSE_MS} ms and deleting ≤ 10 % of the time\n`,
  );
  const lock = await acquireLock();
  const pairs: { a: RunResult; b: RunResult }[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which run goes first, so a drift of the machine's load favours neither.
      const bFirst = round % 2 === 1;
      const first = await run(file, dir, bFirst, filledAt);
      const second = await run(file, dir, !bFirst, filledAt);
      const [a, b] = bFirst ? [second, first] : [first, second];
      pairs.push({ a, b });
      const p = b.pass!;
      console.log(
        `round ${round + 1} (${bFirst ? 'B first' : 'A first'}): without ${fmt(rps(a.wrk)).padStart(6)} req/s p99 ${(a.wrk.p99_us / 1000).toFixed(1)} ms | ` +
          `during ${fmt(rps(b.wrk)).padStart(6)} req/s p99 ${(b.wrk.p99_us / 1000).toFixed(1)} ms | ${(rps(b.wrk) / rps(a.wrk)).toFixed(2)}× | ` +
          `pass: ${fmt(p.events)} old events deleted in ${(p.ms / 1000).toFixed(1)} s (stopped with the server)${p.outlasted ? '' : ' (ENDED BEFORE THE LOAD: run B is partly without a pass)'}  load ${loadavg()[0]!.toFixed(2)}`,
      );
    }
  } finally {
    lock.release();
    rmSync(dir, { recursive: true, force: true });
  }
  const a = mean(pairs.map((x) => rps(x.a.wrk)));
  const b = mean(pairs.map((x) => rps(x.b.wrk)));
  console.log(
    `\nmean of ${pairs.length} pairs: without ${fmt(a)} req/s, during ${fmt(b)} req/s: ${(b / a).toFixed(2)}× ` +
      `(ratios ${pairs.map((x) => (rps(x.b.wrk) / rps(x.a.wrk)).toFixed(2)).join(', ')}); the pass deleted ${pairs.map((x) => fmt(x.b.pass!.events)).join(', ')} of the ${fmt(OLD)} old events ` +
      `in ${pairs.map((x) => (x.b.pass!.ms / 1000).toFixed(0)).join(', ')} s (${fmt(mean(pairs.map((x) => x.b.pass!.events / (x.b.pass!.ms / 1000))))} events/s)`,
  );
}

await main();
