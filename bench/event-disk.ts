/**
 * Disk per click of the default event log: the event file and its write-ahead log while the
 * server runs, after N clicks through the redirect (bench/event-disk/README.md).
 *
 * Seeds 10,000 links, starts Waymark on the default event store (DuckDB beside SQLite) from this
 * tree or from `BENCH_BASELINE=<dir>` (another checkout, for before/after), sends new clicks with
 * wrk (50 connections, every request a new click) in runs of 10 s until BENCH_CLICKS have been
 * answered, waits until they are stored, and prints the event file's bytes (file + .wal) per
 * stored click at each mark; then once more after a normal shutdown (which checkpoints).
 *
 * Settings: BENCH_CLICKS (1000000), BENCH_MARKS (`100000,250000,500000`), BENCH_LINKS (10000).
 * Run: npm run bench -- event-disk   (needs wrk)
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { seedLinks } from './redirect/seed.js';
import { acquireLock, requireWrk, runWrk } from './redirect/wrk.js';

const CLICKS = Number(process.env.BENCH_CLICKS ?? 1_000_000);
const MARKS = (process.env.BENCH_MARKS ?? '100000,250000,500000').split(',').map(Number).filter((n) => n > 0 && n < CLICKS);
const LINKS = Number(process.env.BENCH_LINKS ?? 10_000);
const ROOT = resolve(process.env.BENCH_BASELINE ?? resolve(import.meta.dirname, '..'));

const size = (p: string) => {
  try {
    return statSync(p).size;
  } catch {
    return 0;
  }
};

function ask(child: ChildProcess, type: string, reply: string): Promise<{ humanAnswers: number }> {
  return new Promise((ok) => {
    const on = (m: { type: string; stats: { humanAnswers: number } }) => {
      if (m.type !== reply) return;
      child.off('message', on);
      ok(m.stats);
    };
    child.on('message', on);
    child.send({ type });
  });
}

async function main() {
  requireWrk();
  const dir = mkdtempSync(join(tmpdir(), 'waymark-event-disk-'));
  const file = join(dir, 'disk.db');
  const duck = join(dir, 'disk.events.duckdb');
  await seedLinks(`file:${file}`, LINKS);
  const env = { ...process.env, PORT: '3000', BASE_URL: 'http://localhost:3000', TRUST_PROXY: 'true', LOG_LEVEL: 'warn', DATABASE_URL: `file:${file}` };
  delete env.EVENTS_URL;
  const child = fork(join(ROOT, 'bench/redirect/waymark-server.ts'), [], { cwd: ROOT, execArgv: ['--import', 'tsx'], env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((ok, fail) => {
    child.once('message', (m: { type: string; port: number }) => (m.type === 'ready' ? ok(m.port) : fail(new Error('bad message'))));
    child.once('exit', (code) => fail(new Error(`server exited with ${code}`)));
  });
  console.log(`tree: ${ROOT}; ${CLICKS} clicks; event file ${duck}\n`);
  const report = (label: string, clicks: number) => {
    const f = size(duck);
    const w = size(`${duck}.wal`);
    console.log(`${label.padEnd(28)} ${String(clicks).padStart(8)} clicks  file ${(f / 2 ** 20).toFixed(1).padStart(7)} MiB  wal ${(w / 2 ** 20).toFixed(1).padStart(7)} MiB  ${((f + w) / Math.max(1, clicks)).toFixed(1).padStart(7)} B/click`);
  };
  const lock = await acquireLock();
  let octet = 11;
  let answered = 0;
  const marks = [...MARKS];
  try {
    while (answered < CLICKS) {
      const run = await runWrk({ port, seconds: 10, octet: octet++, links: LINKS }).result;
      const stats = await ask(child, 'settle', 'settled');
      answered = stats.humanAnswers;
      console.log(`  ${run.requests} requests in 10 s; ${answered} clicks so far`);
      while (marks.length && answered >= marks[0]!) report(`after ~${marks.shift()}`, answered);
    }
  } finally {
    lock.release();
  }
  report('running, all stored', answered);
  const final = await ask(child, 'close', 'closed');
  report('after a normal shutdown', final.humanAnswers);
  const instance = await DuckDBInstance.create(duck);
  const c = await instance.connect();
  const [row] = (await c.runAndReadAll("SELECT count(*) AS n FROM events WHERE kind = 'click'")).getRowObjectsJS();
  c.closeSync();
  instance.closeSync();
  console.log(`\nclicks stored ${Number(row!.n)} of ${final.humanAnswers} answered: ${Number(row!.n) === final.humanAnswers ? 'all' : 'MISMATCH'}`);
  rmSync(dir, { recursive: true, force: true });
  if (Number(row!.n) !== final.humanAnswers) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
