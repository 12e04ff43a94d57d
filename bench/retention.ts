/**
 * Retention benchmark (issue 16): redirect throughput while a retention pass deletes old events,
 * against the same redirects without one, on a SQLite file.
 *
 * Generates BENCH_EVENTS click events spread evenly over the 60 days before now (so about half are
 * older than the 30-day horizon; bench/analytics/generate.ts, the production write path) beside
 * the redirect benchmark's 10,000 links, starts Waymark with EVENTS_RETENTION_DAYS=30 in its own
 * process, and drives it with wrk (50 connections, every request a new click, as bench/redirect.ts):
 * BENCH_BASELINE runs without a pass, then runs back to back while a pass runs until it ends, then
 * BENCH_BASELINE runs again. Prints req/s and p99 of each run and the ratio during / without.
 *
 * Settings: BENCH_EVENTS (default 400,000; the issue asks for 5,000,000 with 1,000,000 old, which
 * the generator writes at ~7,500 events/s here: 11 min), BENCH_DURATION (s per run, default 5),
 * BENCH_BASELINE (runs before and after, default 2).
 *
 * Run: npm run bench -- retention   (needs wrk)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { openDatabase } from '../src/db/open.js';
import { createWorkspaceService } from '../src/workspaces/service.js';
import { createWorkspaceStore } from '../src/workspaces/store.js';
import { generate } from './analytics/generate.js';
import { seedLinks } from './redirect/seed.js';
import { ask, startServerChild } from './redirect/server-child.js';
import { acquireLock, parseWrk, requireWrk, runWrk, wrkArgs, type WrkResult } from './redirect/wrk.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 400_000);
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const BASELINE = Number(process.env.BENCH_BASELINE ?? 2);
const LINKS = 10_000;
const DAY = 86_400_000;

let octet = 11;
const wrk = (port: number, seconds: number, bot = false): WrkResult => {
  const r = spawnSync('wrk', wrkArgs({ port, seconds, octet: octet++, links: LINKS, bot }), { encoding: 'utf8' });
  return parseWrk(r.stdout, r.stderr);
};
const rps = (w: WrkResult) => w.requests / (w.duration_us / 1e6);
const show = (label: string, w: WrkResult) => `${label} ${rps(w).toFixed(0).padStart(6)} req/s  p99 ${(w.p99_us / 1000).toFixed(2).padStart(6)} ms`;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

async function main() {
  requireWrk();
  const dir = mkdtempSync(join(tmpdir(), 'waymark-bench-retention-'));
  const url = `file:${join(dir, 'bench.db')}`;
  try {
    const now = Date.now();
    await seedLinks(url, LINKS);
    const database = await openDatabase(url);
    console.log(`generating ${EVENTS.toLocaleString('en')} click events over 60 days …`);
    await generate(database.db, createWorkspaceService(createWorkspaceStore(database.db), () => now - 200 * DAY),
      { events: EVENTS, links: 10_000, workspaces: 495, days: 60, end: now, batch: 10_000, domain: 'old.bench' }, () => undefined);
    const old = Number((await sql<{ n: number }>`select count(*) as n from events where timestamp < ${now - 30 * DAY}`.execute(database.db)).rows[0]!.n);
    await sql`pragma wal_checkpoint(truncate)`.execute(database.db);
    await database.close();

    const { child, port } = await startServerChild('waymark-server.ts', {
      DATABASE_URL: url, PORT: '3000', BASE_URL: 'http://localhost:3000', TRUST_PROXY: 'true', LOG_LEVEL: 'warn', EVENTS_RETENTION_DAYS: '30',
    });
    console.log(`machine: ${cpus().length} × ${cpus()[0]?.model}, Node ${process.version}, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
    console.log(`${EVENTS.toLocaleString('en')} events, ${old.toLocaleString('en')} older than the 30-day horizon; wrk 50 connections, ${DURATION} s runs, every request a new click\n`);
    const lock = await acquireLock();
    const without: WrkResult[] = [];
    const during: WrkResult[] = [];
    try {
      wrk(port, 3, true); // warm the link cache
      await ask(child, 'settle', 'settled');
      for (let i = 0; i < BASELINE; i++) {
        without.push(wrk(port, DURATION));
        console.log(show(`without a pass  `, without.at(-1)!));
        await ask(child, 'settle', 'settled');
      }
      let passDone = false;
      const pass = ask<{ result: { events?: number; error?: string }; ms: number }>(child, 'retention', 'retained').then((r) => ((passDone = true), r));
      while (!passDone) {
        const run = runWrk({ port, seconds: DURATION, octet: octet++, links: LINKS });
        void pass.then(() => run.stop());
        const w = await run.result;
        // A run cut short by the pass's end counts only if it lasted a second.
        if (w.duration_us >= 1e6) {
          during.push(w);
          console.log(show(`during the pass `, w));
        }
      }
      const { result, ms } = await pass;
      if (result.error) throw new Error(`the pass failed: ${result.error}`);
      console.log(`pass: ${(result.events ?? 0).toLocaleString('en')} events deleted in ${(ms / 1000).toFixed(1)} s`);
      await ask(child, 'settle', 'settled');
      for (let i = 0; i < BASELINE; i++) {
        without.push(wrk(port, DURATION));
        console.log(show(`without a pass  `, without.at(-1)!));
        await ask(child, 'settle', 'settled');
      }
    } finally {
      lock.release();
    }
    const a = mean(without.map(rps));
    const b = mean(during.map(rps));
    console.log(`\nwithout ${a.toFixed(0)} req/s, during ${b.toFixed(0)} req/s: ${(b / a).toFixed(2)}× (p99 ${mean(without.map((w) => w.p99_us / 1000)).toFixed(2)} vs ${mean(during.map((w) => w.p99_us / 1000)).toFixed(2)} ms)`);
    await ask(child, 'close', 'closed');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
