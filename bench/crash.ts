/**
 * Crash benchmark (issue 13): what `kill -9` and `docker stop` lose at the redirect benchmark's
 * full load, on the real process (`src/main.ts`).
 *
 * Seeds 10,000 links (bench/redirect/seed.ts), then per run: starts Waymark, warms its link cache
 * with crawler requests, drives it with wrk (50 connections, every request a new click from its
 * own IP, bench/redirect/load.lua) and, after BENCH_KILL_AFTER seconds:
 *
 * - **kill -9**, alternating the lag bound on (`CLICK_MAX_LAG_MS`, 250 by default) and off (0).
 *   wrk's completed requests are the clicks answered; the click events stored from this run's IP
 *   range are counted straight from the database. Lost = answered − stored, and up to one request
 *   per connection more: a click can be recorded and its 302 not yet received at the kill (those
 *   count as stored). Printed as clicks, as ms of clicks at the run's mean redirect rate, and
 *   beside the most clicks the run stamped within any CLICK_MAX_LAG_MS (the bound promises at
 *   most that many; the mean rate includes the time answers were held); and the redirects a
 *   second, on vs off.
 * - **docker stop**: SIGTERM, and SIGKILL 10 s later if the process is still there. Then a restart
 *   (which replays a spill file) and the same count; and how long the process took to exit.
 *
 * Settings (environment): BENCH_KILL_AFTER (s, default 8), BENCH_ROUNDS (rounds of kill runs,
 * default 2), BENCH_VARIANTS (the kill runs of a round, default `on,off`; a `-nice0` suffix runs
 * that one with CLICK_WRITER_NICE=0), BENCH_STOP_RUNS (docker-stop runs, default 1), BENCH_CONNECTIONS (50),
 * BENCH_LINKS (10000), BENCH_MAX_LAG_MS (250), BENCH_DATABASE_URL (a postgres://… server to run
 * on, in a schema of its own; default a temporary SQLite file), BENCH_EVENTS (`sql`, default, or
 * `duckdb`: the default store, its file beside the SQLite file; stored clicks are counted from it,
 * with the ids stored twice, and after the last kill a restart and a stop must leave
 * `sum(links.clicks)` equal to the click events). Holds /tmp/waymark-bench.lock.
 *
 * Run: npm run bench -- crash   (needs wrk)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { DuckDBInstance } from '@duckdb/node-api';
import { isPostgresUrl, openDatabase } from '../src/db/open.js';
import { duckDbPathFor } from '../src/events/index.js';
import { freePort, startServer, type ServerProcess } from '../src/test-support/server-process.js';
import { seedLinks } from './redirect/seed.js';
import { acquireLock, requireWrk, runWrk, type WrkResult } from './redirect/wrk.js';

const KILL_AFTER_S = Number(process.env.BENCH_KILL_AFTER ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const STOP_RUNS = Number(process.env.BENCH_STOP_RUNS ?? 1);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const LINKS = Number(process.env.BENCH_LINKS ?? 10_000);
const MAX_LAG_MS = Number(process.env.BENCH_MAX_LAG_MS ?? 250);
const VARIANTS = (process.env.BENCH_VARIANTS ?? 'on,off').split(',').filter(Boolean);
/** docker stop's default: SIGKILL this long after SIGTERM. */
const DOCKER_GRACE_MS = 10_000;
const KEY = `wm_${randomBytes(12).toString('hex')}`;
const EVENTS = process.env.BENCH_EVENTS === 'duckdb' ? 'duckdb' : 'sql';
const eventsEnv = { EVENTS_URL: EVENTS };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const int = (n: number) => Math.round(n).toLocaleString('en-US');

/** The benchmark's database: a temporary SQLite file, or a fresh schema on BENCH_DATABASE_URL. */
async function benchDatabase(): Promise<{ url: string; dispose(): Promise<void> }> {
  const server = process.env.BENCH_DATABASE_URL;
  if (server && isPostgresUrl(server)) {
    const schema = `bench_${randomBytes(4).toString('hex')}`;
    const u = new URL(server);
    u.searchParams.set('schema', schema);
    return {
      url: u.toString(),
      dispose: async () => {
        const c = new pg.Client({ connectionString: server });
        await c.connect();
        await c.query(`drop schema if exists ${schema} cascade`);
        await c.end();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'waymark-crash-'));
  return { url: `file:${join(dir, 'bench.db')}`, dispose: async () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Click events stored from one run's client IPs (`<octet>.x.y.z`): how many, the newest one's
 * time, and the most stamped within any `windowMs` (answers come in bursts while the bound holds
 * them, so the run's mean rate understates how many clicks one window can hold).
 */
async function storedFrom(url: string, octet: number, windowMs = MAX_LAG_MS): Promise<{ n: number; newest: number; busiestWindow: number; twice: number }> {
  const database = await openDatabase(url, { migrate: false });
  try {
    let times: number[];
    let twice = 0;
    if (EVENTS === 'duckdb') {
      // The event file as the next start finds it (DuckDB replays its write-ahead log on open).
      const instance = await DuckDBInstance.create(duckDbPathFor('duckdb', database.localFiles));
      const c = await instance.connect();
      try {
        const rows = (await c.runAndReadAll(`SELECT "timestamp" FROM events WHERE kind = 'click' AND ip LIKE '${octet}.%' ORDER BY "timestamp"`)).getRowObjectsJS();
        times = rows.map((r) => Number(r.timestamp));
        const [dup] = (await c.runAndReadAll(`SELECT count(*) - count(DISTINCT id) AS n FROM events WHERE kind = 'click' AND ip LIKE '${octet}.%'`)).getRowObjectsJS();
        twice = Number(dup?.n ?? 0);
      } finally {
        c.closeSync();
        instance.closeSync();
      }
    } else {
      const rows = await database.db.selectFrom('events').select('timestamp').where('kind', '=', 'click').where('ip', 'like', `${octet}.%`).orderBy('timestamp').execute();
      times = rows.map((r) => Number(r.timestamp));
    }
    let busiestWindow = 0;
    for (let i = 0, j = 0; i < times.length; i++) {
      while (times[i]! - times[j]! >= windowMs) j++;
      busiestWindow = Math.max(busiestWindow, i - j + 1);
    }
    return { n: times.length, newest: times.at(-1) ?? 0, busiestWindow, twice };
  } finally {
    await database.close();
  }
}

let nextOctet = 11;

/** Starts Waymark on the database and fills its link cache with crawler requests (nothing recorded). */
async function started(url: string, env: Record<string, string>): Promise<{ server: ServerProcess; port: number }> {
  const port = await freePort();
  const server = await startServer(url, port, KEY, { BASE_URL: `http://localhost:${port}`, ...eventsEnv, ...env });
  for (let i = 0; i < 2; i++) await runWrk({ port, seconds: 3, octet: nextOctet, links: LINKS, connections: CONNECTIONS, bot: true }).result;
  return { server, port };
}

/** Full load of new clicks for KILL_AFTER_S, then `signal`; resolves once the process is gone. */
async function loadThen(port: number, server: ServerProcess, signal: NodeJS.Signals) {
  const octet = nextOctet++;
  const wrk = runWrk({ port, seconds: KILL_AFTER_S + 60, octet, links: LINKS, connections: CONNECTIONS });
  const loadStart = Date.now();
  await sleep(KILL_AFTER_S * 1000);
  const signalledAt = Date.now();
  server.child.kill(signal);
  const sigkill = signal === 'SIGTERM' ? setTimeout(() => server.child.kill('SIGKILL'), DOCKER_GRACE_MS) : undefined;
  const code = await server.exited;
  const exitedAt = Date.now();
  clearTimeout(sigkill);
  wrk.stop();
  const result: WrkResult = await wrk.result;
  return { octet, result, code, signal: server.child.signalCode, signalledAt, loadMs: signalledAt - loadStart, exitMs: exitedAt - signalledAt };
}

interface KillRun {
  variant: string;
  /** Most stored clicks stamped within any MAX_LAG_MS of the run. */
  busiestWindow: number;
  answered: number;
  rate: number;
  stored: number;
  lost: number;
  twice: number;
}

/** `on`, `off`, optionally with `-nice0`: the lag bound, and the writer's nice value. */
function variantEnv(variant: string): Record<string, string> {
  const env: Record<string, string> = { CLICK_MAX_LAG_MS: variant.startsWith('on') ? String(MAX_LAG_MS) : '0' };
  if (variant.endsWith('-nice0')) env.CLICK_WRITER_NICE = '0';
  return env;
}

async function killRun(url: string, variant: string): Promise<KillRun> {
  const { server, port } = await started(url, variantEnv(variant));
  const run = await loadThen(port, server, 'SIGKILL');
  const { n: stored, newest, busiestWindow, twice } = await storedFrom(url, run.octet);
  const answered = run.result.requests;
  const rate = answered / (run.loadMs / 1000);
  const r = { variant, answered, rate, stored, lost: answered - stored, busiestWindow, twice };
  console.log(
    `kill -9, bound ${variant.padEnd(3)}: ${int(answered)} answered in ${(run.loadMs / 1000).toFixed(1)} s (${int(rate)} redirects/s), ${int(stored)} stored: ` +
      `lost ${int(r.lost)}-${int(r.lost + CONNECTIONS)} clicks = ${lostMs(r)} of clicks at that rate; the busiest ${MAX_LAG_MS} ms of the run stamped ${int(busiestWindow)} (stored) clicks; ` +
      `the newest stored click was ${int(run.signalledAt - newest)} ms old at the kill${EVENTS === 'duckdb' ? `; ${int(twice)} stored twice` : ''}`,
  );
  return r;
}

const lostMs = (r: KillRun) => `${int((r.lost / r.rate) * 1000)}-${int(((r.lost + CONNECTIONS) / r.rate) * 1000)} ms`;

async function stopRun(url: string): Promise<void> {
  const { server, port } = await started(url, { CLICK_MAX_LAG_MS: String(MAX_LAG_MS) });
  const run = await loadThen(port, server, 'SIGTERM');
  const spilled = /"clicks":(\d+),"file"/.exec(server.output())?.[1];
  // The restart replays the spill file before it listens.
  const again = await startServer(url, await freePort(), KEY, eventsEnv);
  // Stopped before counting: a DuckDB file is opened by one process at a time.
  again.child.kill('SIGTERM');
  await again.exited;
  const { n: stored } = await storedFrom(url, run.octet);
  const answered = run.result.requests;
  console.log(
    `docker stop: ${int(answered)} answered in ${(run.loadMs / 1000).toFixed(1)} s, exit ${run.code ?? run.signal} ${int(run.exitMs)} ms after SIGTERM` +
      `${run.signal === 'SIGKILL' ? ' (killed at 10 s)' : ''}, ${spilled ? `${int(Number(spilled))} clicks spilled, ` : ''}` +
      `${int(stored)} stored after the restart: lost ${int(Math.max(0, answered - stored))}`,
  );
}

/**
 * After the kills: a start (which counts the batches stored and not counted) and a stop; then the
 * links' click counters must add up to the click events in the event file.
 */
async function countersAfterRestart(url: string): Promise<void> {
  const server = await startServer(url, await freePort(), KEY, eventsEnv);
  server.child.kill('SIGTERM');
  await server.exited;
  const database = await openDatabase(url, { migrate: false });
  let counted: number;
  const file = duckDbPathFor('duckdb', database.localFiles);
  try {
    counted = Number((await database.db.selectFrom('links').select((eb) => eb.fn.sum<number>('clicks').as('n')).executeTakeFirstOrThrow()).n ?? 0);
  } finally {
    await database.close();
  }
  const instance = await DuckDBInstance.create(file);
  const c = await instance.connect();
  const [row] = (await c.runAndReadAll(`SELECT count(*) AS n, count(DISTINCT id) AS ids FROM events WHERE kind = 'click'`)).getRowObjectsJS();
  c.closeSync();
  instance.closeSync();
  console.log(`after a restart and a stop: ${int(Number(row?.n))} click events (${int(Number(row?.ids))} distinct ids), sum(links.clicks) ${int(counted)}: ${Number(row?.n) === counted ? 'equal' : 'NOT EQUAL'}`);
}

async function main() {
  requireWrk();
  const db = await benchDatabase();
  await seedLinks(db.url, LINKS);
  console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  console.log(`database: ${isPostgresUrl(db.url) ? 'PostgreSQL' : 'SQLite'}, events: ${EVENTS}; wrk: 1 thread, ${CONNECTIONS} connections, every request a new click, ${LINKS} links; signal after ${KILL_AFTER_S} s of load`);
  console.log(`bound on: CLICK_MAX_LAG_MS=${MAX_LAG_MS}; off: 0; -nice0: CLICK_WRITER_NICE=0 (else the default or the environment's)\n`);
  const runs: KillRun[] = [];
  const lock = await acquireLock();
  try {
    // Alternating, in both orders, so that a drift of the machine does not favour one side.
    for (let round = 0; round < ROUNDS; round++) for (const variant of round % 2 ? [...VARIANTS].reverse() : VARIANTS) runs.push(await killRun(db.url, variant));
    if (EVENTS === 'duckdb') await countersAfterRestart(db.url);
    for (let i = 0; i < STOP_RUNS; i++) await stopRun(db.url);
  } finally {
    lock.release();
    await db.dispose();
  }
  console.log('');
  for (const variant of VARIANTS) {
    const side = runs.filter((r) => r.variant === variant);
    console.log(
      `bound ${variant}: redirects/s ${side.map((r) => int(r.rate)).join(', ')}; lost ${side.map((r) => int(r.lost)).join(', ')} clicks = ${side.map(lostMs).join(', ')} of clicks at the mean rate; ` +
        `busiest ${MAX_LAG_MS} ms ${side.map((r) => int(r.busiestWindow)).join(', ')} clicks`,
    );
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
