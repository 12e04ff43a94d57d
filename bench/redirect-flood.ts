/**
 * Memory under a flood of redirects (issue 38): every request a new visitor with a user agent and
 * a referer never seen before (load.lua "flood"), saturated, for `BENCH_DURATION` s; the resident
 * memory of the Waymark process (all threads) sampled every 250 ms from /proc/<pid>/status. Sides
 * `new` (this tree) and, with `BENCH_BASELINE=<dir>`, `old`, one after the other on fresh files
 * (bench/redirect-flood/README.md).
 *
 * Every BENCH_SAMPLE_S s (DURATION / 15, at least 5) and once settled, the side `new` also reports
 * each thread's V8 heap and what DuckDB holds (`memory`: bench/redirect/waymark-server.ts), printed
 * as a timeline after the side's line.
 *
 * Settings: BENCH_DURATION (60), BENCH_CONNECTIONS (50), BENCH_LINKS (10000), BENCH_SIDES, BENCH_SAMPLE_S,
 * BENCH_GC (1: heaps after a full collection), BENCH_NODE_ARGS (the server's node flags; default
 * those of `npm start`), MALLOC_MMAP_THRESHOLD_ (default 131072, as the image and the unit set it).
 *
 * Run: BENCH_BASELINE=/tmp/wm-baseline npx tsx bench/redirect-flood.ts   (needs wrk)
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import SQLite from 'better-sqlite3';
import { seedLinks } from './redirect/seed.js';
import { acquireLock, requireWrk, runWrk } from './redirect/wrk.js';
import { ask, startServerChild } from './redirect/server-child.js';
import { processCpuUs, rssMb } from './redirect/proc.js';
import type { ThreadsMemory } from '../src/api-thread/front.js';

const DURATION = Number(process.env.BENCH_DURATION ?? 60);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const LINKS = Number(process.env.BENCH_LINKS ?? 10_000);
const BASELINE = process.env.BENCH_BASELINE ? resolve(process.env.BENCH_BASELINE) : undefined;
const SIDES = (process.env.BENCH_SIDES ?? (BASELINE ? 'old,new' : 'new')).split(',').filter(Boolean);
const HERE = resolve(import.meta.dirname, '..');
/** The node flags of `npm start` (package.json), which the image and the systemd unit share (test/build-if-stale.test.ts). */
const PRODUCTION_NODE_ARGS = /node ([^&]*)dist\/main\.js/.exec(JSON.parse(readFileSync(join(HERE, 'package.json'), 'utf8')).scripts.start)?.[1]?.trim() ?? '';

const SAMPLE_S = Number(process.env.BENCH_SAMPLE_S ?? Math.max(5, Math.round(DURATION / 15)));
const MB = 1024 * 1024;
const mb = (bytes: number | undefined) => (bytes === undefined ? '-' : (bytes / MB).toFixed(0));

/** One row of the timeline: the process's RSS and what each part says it holds. */
interface MemoryRow {
  atS: number;
  rssMb: number;
  /** Size of DuckDB's write-ahead log: what is appended since its last checkpoint. */
  walMb: number;
  memory?: { process: NodeJS.MemoryUsage; threads: ThreadsMemory };
}

const fileMb = (path: string) => {
  try {
    return statSync(path).size / MB;
  } catch {
    return 0;
  }
};

function printTimeline(rows: readonly MemoryRow[]) {
  console.log('MB:  s    RSS    WAL  main heap used/total  api heap  log heap used/total  ext.+ab  duckdb used (tags ≥ 1 MB)        limit');
  for (const r of rows) {
    const t = r.memory?.threads;
    const tags = t?.log.duckDb ? Object.entries(t.log.duckDb.byTag).filter(([, b]) => b >= MB).map(([k, b]) => `${k} ${mb(b)}`).join(', ') : '';
    console.log([
      String(r.atS).padStart(6), r.rssMb.toFixed(0).padStart(6), r.walMb.toFixed(0).padStart(6), `${mb(t?.main.usedBytes)}/${mb(t?.main.totalBytes)}`.padStart(21), mb(t?.api?.usedBytes).padStart(9), `${mb(t?.log.heap.usedBytes)}/${mb(t?.log.heap.totalBytes)}`.padStart(20),
      mb(r.memory && r.memory.process.external + r.memory.process.arrayBuffers).padStart(8), `  ${mb(t?.log.duckDb?.usedBytes).padStart(5)} (${tags})`.padEnd(34), t?.log.duckDb?.limit ?? '',
    ].join(' '));
  }
}

async function runSide(name: string, dir: string, octet: number) {
  const root = name === 'old' ? BASELINE! : HERE;
  const url = `file:${join(dir, `${name}.db`)}`;
  const seed: typeof seedLinks = name === 'old' ? (await import(pathToFileURL(join(root, 'bench/redirect/seed.ts')).href)).seedLinks : seedLinks;
  await seed(url, LINKS);
  delete (process.env as Record<string, string | undefined>).EVENTS_URL;
  // BENCH_GC=1: the heaps reported after a full collection (live objects, not garbage yet to collect).
  // BENCH_NODE_ARGS: node's flags for the server; by default those the server is started with (npm start).
  const nodeArgs = [...(process.env.BENCH_GC === '1' ? ['--expose-gc'] : []), ...(process.env.BENCH_NODE_ARGS ?? PRODUCTION_NODE_ARGS).split(' ').filter(Boolean)];
  // glibc's mmap threshold as the image and the systemd unit set it, unless this run's environment sets it.
  const env = { ...(process.env.MALLOC_MMAP_THRESHOLD_ === undefined ? { MALLOC_MMAP_THRESHOLD_: '131072' } : {}), PORT: '3000', BASE_URL: 'http://localhost:3000', TRUST_PROXY: 'true', LOG_LEVEL: 'error', DATABASE_URL: url };
  const { child, port } = await startServerChild('waymark-server.ts', env, nodeArgs, root);
  const pid = child.pid!;
  const start = rssMb(pid);
  const cpuBefore = processCpuUs(pid);
  const samples: number[] = [];
  const timer = setInterval(() => samples.push(rssMb(pid)), 250);
  const began = Date.now();
  const timeline: MemoryRow[] = [];
  // Every SAMPLE_S s: the RSS, and what each thread's heap and DuckDB say they hold (the old side may not answer).
  const sample = async () => {
    const row: MemoryRow = { atS: Math.round((Date.now() - began) / 1000), rssMb: rssMb(pid), walMb: fileMb(join(dir, `${name}.events.duckdb.wal`)) };
    timeline.push(row);
    if (name === 'new') row.memory = await ask<MemoryRow['memory']>(child, 'memory', 'memory');
  };
  await sample();
  const sampler = setInterval(() => void sample(), SAMPLE_S * 1000);
  const wrk = await runWrk({ port, seconds: DURATION, octet, links: LINKS, connections: CONNECTIONS, flood: true }).result;
  clearInterval(sampler);
  const atEnd = rssMb(pid);
  await ask(child, 'settle', 'settled');
  clearInterval(timer);
  const settled = rssMb(pid);
  const cpuUs = processCpuUs(pid) - cpuBefore;
  await sample();
  printTimeline(timeline);
  const stats = (await ask(child, 'close', 'closed')) as { humanAnswers: number; writer?: { dropped: number; heldTooLong: number } };
  const sqlite = new SQLite(url.replace(/^file:/, ''), { readonly: true });
  const counted = Number((sqlite.prepare('select coalesce(sum(clicks), 0) as n from links').get() as { n: number }).n);
  sqlite.close();
  const rps = wrk.requests / (wrk.duration_us / 1e6);
  console.log(`${name.padEnd(4)} ${Math.round(rps)} req/s, p99 ${(wrk.p99_us / 1000).toFixed(1)} ms, max ${(wrk.max_us / 1000).toFixed(0)} ms; RSS ${start.toFixed(0)} MB at start, max ${Math.max(...samples).toFixed(0)} MB during, ${atEnd.toFixed(0)} MB at the end, ${settled.toFixed(0)} MB settled; ${stats.humanAnswers} answered, ${counted} counted${stats.humanAnswers === counted ? '' : ' MISMATCH'}; CPU ${(cpuUs / Math.max(1, counted)).toFixed(1)} µs a click (every thread, until settled); load ${loadavg()[0]!.toFixed(2)}`);
  return stats.humanAnswers === counted;
}

async function main() {
  requireWrk();
  const dir = mkdtempSync(join(tmpdir(), 'waymark-redirect-flood-'));
  console.log(`machine: ${cpus().length} × ${cpus()[0]?.model}, Node ${process.version}, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  console.log(`flood: ${CONNECTIONS} connections, ${DURATION} s, every request a new visitor, user agent and referer\n`);
  const lock = await acquireLock();
  let ok = true;
  try {
    let octet = 30;
    for (const name of SIDES) ok = (await runSide(name, dir, octet++)) && ok;
  } finally {
    lock.release();
    rmSync(dir, { recursive: true, force: true });
  }
  if (!ok) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
