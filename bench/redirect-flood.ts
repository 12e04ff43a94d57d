/**
 * Memory under a flood of redirects (issue 38): every request a new visitor with a user agent and
 * a referer never seen before (load.lua "flood"), saturated, for `BENCH_DURATION` s; the resident
 * memory of the Waymark process (all threads) sampled every 250 ms from /proc/<pid>/status. Sides
 * `new` (this tree) and, with `BENCH_BASELINE=<dir>`, `old`, one after the other on fresh files
 * (bench/redirect-flood/README.md).
 *
 * Settings: BENCH_DURATION (60), BENCH_CONNECTIONS (50), BENCH_LINKS (10000), BENCH_SIDES.
 *
 * Run: BENCH_BASELINE=/tmp/wm-baseline npx tsx bench/redirect-flood.ts   (needs wrk)
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import SQLite from 'better-sqlite3';
import { seedLinks } from './redirect/seed.js';
import { acquireLock, requireWrk, runWrk } from './redirect/wrk.js';

const DURATION = Number(process.env.BENCH_DURATION ?? 60);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const LINKS = Number(process.env.BENCH_LINKS ?? 10_000);
const BASELINE = process.env.BENCH_BASELINE ? resolve(process.env.BENCH_BASELINE) : undefined;
const SIDES = (process.env.BENCH_SIDES ?? (BASELINE ? 'old,new' : 'new')).split(',').filter(Boolean);
const HERE = resolve(import.meta.dirname, '..');

const rssMb = (pid: number) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
};

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

async function runSide(name: string, dir: string, octet: number) {
  const root = name === 'old' ? BASELINE! : HERE;
  const url = `file:${join(dir, `${name}.db`)}`;
  const seed: typeof seedLinks = name === 'old' ? (await import(pathToFileURL(join(root, 'bench/redirect/seed.ts')).href)).seedLinks : seedLinks;
  await seed(url, LINKS);
  delete (process.env as Record<string, string | undefined>).EVENTS_URL;
  const child = fork(join(root, 'bench/redirect/waymark-server.ts'), [], {
    cwd: root,
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, PORT: '3000', BASE_URL: 'http://localhost:3000', TRUST_PROXY: 'true', LOG_LEVEL: 'error', DATABASE_URL: url },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((ok, fail) => {
    child.once('message', (m: { type: string; port: number }) => (m.type === 'ready' ? ok(m.port) : fail(new Error('bad message'))));
    child.once('exit', (code) => fail(new Error(`${name} exited with ${code}`)));
  });
  const pid = child.pid!;
  const start = rssMb(pid);
  const samples: number[] = [];
  const timer = setInterval(() => samples.push(rssMb(pid)), 250);
  const wrk = await runWrk({ port, seconds: DURATION, octet, links: LINKS, connections: CONNECTIONS, flood: true }).result;
  const atEnd = rssMb(pid);
  await ask(child, 'settle', 'settled');
  clearInterval(timer);
  const settled = rssMb(pid);
  const stats = (await ask(child, 'close', 'closed')) as { humanAnswers: number; writer?: { dropped: number; heldTooLong: number } };
  const sqlite = new SQLite(url.replace(/^file:/, ''), { readonly: true });
  const counted = Number((sqlite.prepare('select coalesce(sum(clicks), 0) as n from links').get() as { n: number }).n);
  sqlite.close();
  const rps = wrk.requests / (wrk.duration_us / 1e6);
  console.log(`${name.padEnd(4)} ${Math.round(rps)} req/s, p99 ${(wrk.p99_us / 1000).toFixed(1)} ms, max ${(wrk.max_us / 1000).toFixed(0)} ms; RSS ${start.toFixed(0)} MB at start, max ${Math.max(...samples).toFixed(0)} MB during, ${atEnd.toFixed(0)} MB at the end, ${settled.toFixed(0)} MB settled; ${stats.humanAnswers} answered, ${counted} counted${stats.humanAnswers === counted ? '' : ' MISMATCH'}; load ${loadavg()[0]!.toFixed(2)}`);
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
