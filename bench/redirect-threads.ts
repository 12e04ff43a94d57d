/**
 * Where the CPU of a recorded redirect goes, per thread: one Waymark process (this tree, or
 * `BENCH_BASELINE=<dir>`'s too, one after the other), paced wrk at ~`BENCH_RATE` req/s for
 * `BENCH_DURATION` s, every request a new click, then `settle`; each thread's CPU from
 * `/proc/<pid>/task/*\/schedstat` (bench/redirect/threads.ts) divided by the requests answered,
 * and per second (ms of CPU a second: the fixed background beside the per-click cost). Before the
 * load, with `BENCH_IDLE` s (default 20; 0: none), the same per thread with no traffic at all.
 * `BENCH_ENV_NEW` / `BENCH_ENV_OLD` (`K=V,…`) set the environment of one side only; `BENCH_BASELINE`
 * may name this tree, to compare two settings of one tree. The per-thread profile of
 * bench/redirect-cpu/README.md.
 *
 * Run: BENCH_BASELINE=/tmp/wm-baseline npx tsx bench/redirect-threads.ts   (needs wrk)
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { seedLinks } from './redirect/seed.js';
import { acquireLock, requireWrk, runWrk } from './redirect/wrk.js';
import { threadTimes, type ThreadTime } from './redirect/threads.js';

const RATE = Number(process.env.BENCH_RATE ?? 3000);
const DURATION = Number(process.env.BENCH_DURATION ?? 15);
const IDLE = Number(process.env.BENCH_IDLE ?? 20);
const CONNECTIONS = 60;
const LINKS = 10_000;
const BASELINE = process.env.BENCH_BASELINE ? resolve(process.env.BENCH_BASELINE) : undefined;
const HERE = resolve(import.meta.dirname, '..');

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

/** Threads grouped by kind: main, the log thread, DuckDB's, V8's helpers, libuv's, the rest. */
function kindOf(t: ThreadTime, mainTid: number): string {
  if (t.tid === mainTid) return 'redirect (main)';
  if (/duckdb/i.test(t.name)) return 'duckdb';
  if (/V8|DefaultWorke/.test(t.name)) return 'v8 helpers';
  if (/libuv/.test(t.name)) return 'libuv pool';
  if (/Worker|event-log|log/i.test(t.name)) return 'log thread';
  return `other (${t.name})`;
}

/** `BENCH_ENV_NEW` / `BENCH_ENV_OLD`: `K=V,K=V` settings for one side only (e.g. `DUCKDB_THREADS=1`). */
function sideEnv(name: string): Record<string, string> {
  const spec = process.env[`BENCH_ENV_${name.toUpperCase()}`] ?? '';
  return Object.fromEntries(spec.split(',').filter(Boolean).map((kv) => kv.split('=') as [string, string]));
}

async function profile(name: string, root: string, dir: string, octet: number) {
  const url = `file:${join(dir, `${name}.db`)}`;
  const seed: typeof seedLinks = root === HERE ? seedLinks : (await import(pathToFileURL(join(root, 'bench/redirect/seed.ts')).href)).seedLinks;
  await seed(url, LINKS);
  delete (process.env as Record<string, string | undefined>).EVENTS_URL;
  const child = fork(join(root, 'bench/redirect/waymark-server.ts'), [], {
    cwd: root, execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, PORT: '3000', BASE_URL: 'http://localhost:3000', TRUST_PROXY: 'true', LOG_LEVEL: 'warn', DATABASE_URL: url, ...sideEnv(name) },
  });
  const port = await new Promise<number>((ok, fail) => {
    child.once('message', (m: { type: string; port: number }) => (m.type === 'ready' ? ok(m.port) : fail(new Error('bad message'))));
    child.once('exit', (code) => fail(new Error(`${name} exited with ${code}`)));
  });
  const pid = child.pid!;
  await runWrk({ port, seconds: 5, octet: octet + 100, links: LINKS }).result; // warm-up
  await ask(child, 'settle', 'settled');
  if (IDLE > 0) {
    // No traffic: what the process spends a second on its own (timers, DuckDB's and V8's threads).
    await new Promise((r) => setTimeout(r, 3000));
    const start = new Map(threadTimes(pid).map((t) => [t.tid, t.ns]));
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, IDLE * 1000));
    const seconds = (performance.now() - t0) / 1000;
    const idle = new Map<string, number>();
    for (const t of threadTimes(pid)) idle.set(kindOf(t, pid), (idle.get(kindOf(t, pid)) ?? 0) + (t.ns - (start.get(t.tid) ?? 0)));
    const msPerS = (ns: number) => (ns / 1e6 / seconds).toFixed(2);
    const all = [...idle.values()].reduce((a, b) => a + b, 0);
    console.log(`${name} idle ${seconds.toFixed(0)} s: ${msPerS(all)} ms of CPU a second in all; load ${loadavg()[0]!.toFixed(2)}`);
    for (const [k, ns] of [...idle].sort((a, b) => b[1] - a[1])) console.log(`  ${k.padEnd(24)} ${msPerS(ns).padStart(7)} ms/s`);
    if (process.env.BENCH_IDLE_THREADS) {
      for (const t of threadTimes(pid).sort((a, b) => a.tid - b.tid)) console.log(`    tid ${t.tid} ${t.name.padEnd(16)} ${msPerS(t.ns - (start.get(t.tid) ?? 0)).padStart(7)} ms/s`);
    }
  }
  const before = new Map(threadTimes(pid).map((t) => [t.tid, t.ns]));
  const paceMs = Math.max(1, Math.round((CONNECTIONS * 1000) / RATE));
  const wrk = await runWrk({ port, seconds: DURATION, octet, links: LINKS, connections: CONNECTIONS, paceMs }).result;
  await ask(child, 'settle', 'settled');
  const after = threadTimes(pid);
  const groups = new Map<string, number>();
  for (const t of after) {
    const k = kindOf(t, pid);
    groups.set(k, (groups.get(k) ?? 0) + (t.ns - (before.get(t.tid) ?? 0)));
  }
  await ask(child, 'close', 'closed');
  const total = [...groups.values()].reduce((a, b) => a + b, 0);
  const per = (ns: number) => (ns / 1000 / wrk.requests).toFixed(1);
  const perSecond = (ns: number) => (ns / 1e6 / (wrk.duration_us / 1e6)).toFixed(1);
  console.log(`${name}: ${wrk.requests} requests at ${Math.round(wrk.requests / (wrk.duration_us / 1e6))} req/s; ${per(total)} µs a request in all; load ${loadavg()[0]!.toFixed(2)}`);
  for (const [k, ns] of [...groups].sort((a, b) => b[1] - a[1])) console.log(`  ${k.padEnd(24)} ${per(ns).padStart(6)} µs  ${perSecond(ns).padStart(7)} ms/s`);
  if (process.env.BENCH_IDLE_THREADS) {
    for (const t of after.sort((a, b) => a.tid - b.tid)) console.log(`    tid ${t.tid} ${t.name.padEnd(16)} ${perSecond(t.ns - (before.get(t.tid) ?? 0)).padStart(7)} ms/s`);
  }
}

async function main() {
  requireWrk();
  const dir = mkdtempSync(join(tmpdir(), 'waymark-redirect-threads-'));
  const lock = await acquireLock();
  try {
    await profile('new', HERE, dir, 40);
    if (BASELINE) await profile('old', BASELINE, dir, 41);
  } finally {
    lock.release();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
