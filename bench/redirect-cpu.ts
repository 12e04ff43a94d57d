/**
 * CPU per recorded redirect at a fixed offered rate, against a bare node:http 302 server, and
 * the saturated throughput ratio: the redirect targets of the event log (bench/redirect-cpu/README.md).
 *
 * Every server runs in a process group of its own; its CPU is read from /proc (utime + stime of
 * every process in the group, all threads), so the load generator and other work on the machine
 * are not counted. Sides, alternated in each round:
 * - `bare`: bench/redirect/bare-server.ts;
 * - `new`: Waymark of this tree on the default event store (DuckDB beside a SQLite file);
 * - `traced`: the same as `new` with OpenTelemetry traces on (docs/tracing.md), sending to an
 *   OTLP/HTTP receiver in this process (src/tracing/testing.ts; its CPU is not the side's);
 * - `old`: the same from another checkout (`BENCH_BASELINE=<dir>`, e.g. an earlier commit
 *   extracted with `git archive`), for before/after in one run on the same machine.
 *
 * Each side gets the same paced load (wrk, `BENCH_RATE` req/s offered over `BENCH_CONNECTIONS`
 * connections, every request a new click), then waits until its clicks are stored and counted
 * (`settle`), so a run's CPU includes all of its writes. Then saturated runs (wrk, 50
 * connections). At the end each Waymark side is closed and its stored clicks and link counters
 * are counted from its files.
 *
 * Settings: BENCH_RATE (3000), BENCH_DURATION (paced s per run, 20), BENCH_SATURATED (s per
 * saturated run, 10; 0 = none), BENCH_ROUNDS (3), BENCH_CONNECTIONS (60), BENCH_LINKS (10000),
 * BENCH_NEW_ENV / BENCH_OLD_ENV (a side's own settings, `NAME=value …`, e.g.
 * `BENCH_NEW_ENV=DUCKDB_THREADS=1` with `BENCH_BASELINE` the same tree),
 * BENCH_SIDES (`bare,new,old` where BENCH_BASELINE is set, else `bare,new`; add `traced`
 * for tracing on against off: `BENCH_SIDES=bare,new,traced`), BENCH_BASELINE_NODE
 * (the `node` binary of the `old` side, e.g. Node 20 beside Node 24 for the same code; default: this one's).
 *
 * Run: BENCH_BASELINE=/tmp/wm-baseline npm run bench -- redirect-cpu   (needs wrk)
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import SQLite from 'better-sqlite3';
import { DuckDBInstance } from '@duckdb/node-api';
import { seedLinks } from './redirect/seed.js';
import { groupCpuUs } from './redirect/proc.js';
import { acquireLock, requireWrk, runWrk, type WrkResult } from './redirect/wrk.js';
import { startOtlpReceiver, type OtlpReceiver } from '../src/tracing/testing.js';

const RATE = Number(process.env.BENCH_RATE ?? 3000);
const DURATION = Number(process.env.BENCH_DURATION ?? 20);
const SATURATED = Number(process.env.BENCH_SATURATED ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 60);
const LINKS = Number(process.env.BENCH_LINKS ?? 10_000);
const BASELINE = process.env.BENCH_BASELINE ? resolve(process.env.BENCH_BASELINE) : undefined;
const SIDES = (process.env.BENCH_SIDES ?? (BASELINE ? 'bare,new,old' : 'bare,new')).split(',').filter(Boolean);
const HERE = resolve(import.meta.dirname, '..');

interface Side {
  name: string;
  root: string;
  child: ChildProcess;
  port: number;
  url?: string;
}

function startSide(name: string, root: string, script: string, env: Record<string, string>): Promise<Side> {
  const child = fork(join(root, 'bench/redirect', script), [], {
    cwd: root,
    execPath: name === 'old' && process.env.BENCH_BASELINE_NODE ? process.env.BENCH_BASELINE_NODE : process.execPath,
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    // A process group of its own: its CPU is read per group.
    detached: true,
  });
  return new Promise((ok, fail) => {
    child.once('message', (m: { type: string; port: number }) => (m.type === 'ready' ? ok({ name, root, child, port: m.port, url: env.DATABASE_URL }) : fail(new Error('bad message'))));
    child.once('exit', (code) => fail(new Error(`${name} exited with ${code}`)));
  });
}

/** A side's own settings: `BENCH_NEW_ENV` / `BENCH_OLD_ENV`, as `NAME=value NAME=value`. */
function sideEnv(name: string): Record<string, string> {
  const spec = process.env[`BENCH_${name.toUpperCase()}_ENV`] ?? '';
  return Object.fromEntries(spec.split(/\s+/).filter(Boolean).map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
}

function ask(child: ChildProcess, type: string, reply: string): Promise<unknown> {
  return new Promise((ok) => {
    const on = (m: { type: string; stats: unknown }) => {
      if (m.type !== reply) return;
      child.off('message', on);
      ok(m.stats);
    };
    child.on('message', on);
    child.send({ type });
  });
}

interface Run {
  wrk: WrkResult;
  cpuUs: number;
  settleMs: number;
}

let octet = 11;
async function measure(side: Side, seconds: number, paceMs: number): Promise<Run> {
  const pgid = side.child.pid!;
  const before = groupCpuUs(pgid);
  const result = await runWrk({ port: side.port, seconds, octet: octet++, links: LINKS, connections: paceMs ? CONNECTIONS : 50, paceMs }).result;
  const t0 = Date.now();
  if (side.name !== 'bare') await ask(side.child, 'settle', 'settled');
  const settleMs = Date.now() - t0;
  return { wrk: result, cpuUs: groupCpuUs(pgid) - before, settleMs };
}

const rps = (r: Run) => r.wrk.requests / (r.wrk.duration_us / 1e6);
const perReq = (r: Run) => r.cpuUs / Math.max(1, r.wrk.requests);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const fmt = (x: number, d = 1) => x.toFixed(d);
const ms = (us: number) => (us / 1000).toFixed(2);

/** Clicks in a side's DuckDB event file and the link counters of its SQLite file, counted from the files. */
async function countStored(url: string): Promise<{ events: number; linkClicks: number; bytes: number }> {
  const file = url.replace(/^file:/, '');
  const sqlite = new SQLite(file, { readonly: true });
  const linkClicks = Number((sqlite.prepare('select coalesce(sum(clicks), 0) as n from links').get() as { n: number }).n);
  sqlite.close();
  const duck = file.replace(/\.db$/, '.events.duckdb');
  const bytes = ['', '.wal'].reduce((n, s) => n + (statSafe(duck + s)), 0);
  const instance = await DuckDBInstance.create(duck);
  const c = await instance.connect();
  const [row] = (await c.runAndReadAll("SELECT count(*) AS n FROM events WHERE kind = 'click'")).getRowObjectsJS();
  c.closeSync();
  instance.closeSync();
  return { events: Number(row!.n), linkClicks, bytes };
}
const statSafe = (p: string) => {
  try {
    return statSync(p).size;
  } catch {
    return 0;
  }
};

async function main() {
  requireWrk();
  const dir = mkdtempSync(join(tmpdir(), 'waymark-redirect-cpu-'));
  const settings = { PORT: '3000', BASE_URL: 'http://localhost:3000', TRUST_PROXY: 'true', LOG_LEVEL: 'warn' };
  const sides: Side[] = [];
  let otlp: OtlpReceiver | undefined;
  for (const name of SIDES) {
    if (name === 'bare') sides.push(await startSide('bare', HERE, 'bare-server.ts', {}));
    else {
      const root = name === 'old' ? BASELINE : HERE;
      if (!root) throw new Error('side old needs BENCH_BASELINE');
      const url = `file:${join(dir, `${name}.db`)}`;
      // Each side seeds with its own tree's migrations: the old tree refuses a file that holds newer ones.
      // On another node binary the old tree's native modules do not load here: the same code, seeded by this one.
      const seed: typeof seedLinks = name === 'old' && !process.env.BENCH_BASELINE_NODE
        ? (await import(pathToFileURL(join(root, 'bench/redirect/seed.ts')).href)).seedLinks
        : seedLinks;
      await seed(url, LINKS);
      const env: Record<string, string> = { ...settings, DATABASE_URL: url, ...sideEnv(name) };
      if (name === 'traced') {
        otlp ??= await startOtlpReceiver();
        env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = otlp.url;
      }
      delete (process.env as Record<string, string | undefined>).EVENTS_URL;
      sides.push(await startSide(name, root, 'waymark-server.ts', env));
    }
  }
  console.log(`machine: ${cpus().length} × ${cpus()[0]?.model}, Node ${process.version}, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  console.log(`sides: ${sides.map((s) => `${s.name} (${s.root})`).join(', ')}`);
  const paceMs = Math.max(1, Math.round((CONNECTIONS * 1000) / RATE));
  console.log(`paced: ${CONNECTIONS} connections × 1 request per ~${paceMs} ms (≈ ${Math.round((CONNECTIONS * 1000) / paceMs)} req/s offered), ${DURATION} s a run; saturated: 50 connections, ${SATURATED} s; ${ROUNDS} rounds\n`);

  const paced = new Map<string, Run[]>(sides.map((s) => [s.name, []]));
  const saturated = new Map<string, Run[]>(sides.map((s) => [s.name, []]));
  const lock = await acquireLock();
  try {
    // Warm-up: JIT, link cache, GeoIP data.
    for (const s of sides) await measure(s, 5, 0);
    for (let round = 1; round <= ROUNDS; round++) {
      const order = round % 2 ? sides : [...sides].reverse();
      for (const s of order) {
        const r = await measure(s, DURATION, paceMs);
        paced.get(s.name)!.push(r);
        console.log(`round ${round} paced ${s.name.padEnd(4)} ${fmt(rps(r), 0).padStart(6)} req/s  cpu ${fmt(perReq(r)).padStart(6)} µs/req  p50 ${ms(r.wrk.p50_us)} ms  p99 ${ms(r.wrk.p99_us)} ms  settled in ${r.settleMs} ms  load ${loadavg()[0]!.toFixed(2)}`);
      }
      if (SATURATED > 0) {
        for (const s of order) {
          const r = await measure(s, SATURATED, 0);
          saturated.get(s.name)!.push(r);
          console.log(`round ${round} sat.  ${s.name.padEnd(4)} ${fmt(rps(r), 0).padStart(6)} req/s  cpu ${fmt(perReq(r)).padStart(6)} µs/req  p50 ${ms(r.wrk.p50_us)} ms  p99 ${ms(r.wrk.p99_us)} ms  settled in ${r.settleMs} ms`);
        }
      }
    }
  } finally {
    lock.release();
  }

  const answered = new Map<string, number>();
  for (const s of sides) {
    if (s.name === 'bare') {
      s.child.send({ type: 'close' });
      continue;
    }
    const stats = (await ask(s.child, 'close', 'closed')) as { humanAnswers: number };
    answered.set(s.name, stats.humanAnswers);
  }

  console.log('\nsummary (mean of rounds; ratios against bare in the same rounds)');
  const bare = paced.get('bare');
  const bareSat = saturated.get('bare');
  for (const s of sides) {
    const p = paced.get(s.name)!;
    const line = [`  ${s.name.padEnd(4)} paced ${fmt(mean(p.map(rps)), 0)} req/s, cpu ${fmt(mean(p.map(perReq)))} µs/req (runs ${p.map((r) => fmt(perReq(r))).join(' ')})`];
    if (bare && s.name !== 'bare') {
      const ratios = p.map((r, i) => perReq(r) / perReq(bare[i]!));
      line.push(`cpu/bare ${fmt(mean(ratios), 2)}× (${ratios.map((x) => fmt(x, 2)).join(' ')}), p99 ${ms(mean(p.map((r) => r.wrk.p99_us)))} ms = ${fmt(mean(p.map((r) => r.wrk.p99_us)) / mean(bare.map((r) => r.wrk.p99_us)), 2)}× bare`);
    }
    const sat = saturated.get(s.name)!;
    if (sat.length) {
      line.push(`saturated ${fmt(mean(sat.map(rps)), 0)} req/s`);
      if (bareSat && s.name !== 'bare') line.push(`= ${fmt(mean(sat.map((r, i) => rps(r) / rps(bareSat[i]!))), 3)}× bare, p99 ${ms(mean(sat.map((r) => r.wrk.p99_us)))} ms`);
    }
    console.log(line.join('; '));
  }
  // Tracing on against off, the same rounds (alternated), CPU per redirect.
  const off = paced.get('new');
  const on = paced.get('traced');
  if (off && on) {
    const ratios = on.map((r, i) => perReq(r) / perReq(off[i]!));
    console.log(`  traced/new cpu per redirect ${fmt(mean(ratios), 3)}× (${ratios.map((x) => fmt(x, 3)).join(' ')}); target ≤ 1.03`);
  }
  if (otlp) {
    const named = (n: string) => otlp!.spans.filter((x) => x.name === n);
    const batchClicks = named('events.append_clicks').reduce((n, x) => n + Number(x.attributes['waymark.batch.clicks'] ?? 0), 0);
    console.log(`  traced: the receiver got ${otlp.spans.length} spans in ${otlp.requests()} exports: ${named('events.append_clicks').length} click batches (${batchClicks} clicks), ${named('events.fold').length} folds, ${otlp.spans.filter((x) => x.attributes['url.path'] !== undefined).length} request spans`);
    await otlp.close();
  }
  let ok = true;
  for (const s of sides) {
    if (s.name === 'bare' || !s.url) continue;
    const stored = await countStored(s.url);
    const n = answered.get(s.name)!;
    const good = stored.events === n && stored.linkClicks === n;
    ok &&= good;
    console.log(`  ${s.name}: ${n} clicks answered, ${stored.events} stored, sum(links.clicks) ${stored.linkClicks}: ${good ? 'every click stored and counted' : 'MISMATCH'}; event file ${(stored.bytes / Math.max(1, stored.events)).toFixed(1)} B/click`);
  }
  rmSync(dir, { recursive: true, force: true });
  if (!ok) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
