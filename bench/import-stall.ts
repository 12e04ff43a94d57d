/**
 * Redirects during an import (issue 26): redirect latency while `POST /links/import` takes a
 * 100,000-row CSV, against the same load without it, in one run, side by side.
 *
 * Seeds a SQLite file with 10,000 links on `go.bench` and an API key, starts Waymark (the real
 * buildApp, DuckDB event store, default settings) in its own process, and drives its redirects
 * with wrk on 127.0.0.1 (bench/redirect/load.lua: browser user agents, every request a new
 * click), paced below saturation. Each round: (1) wrk starts, the CSV is posted (a real import,
 * keys new to the round), wrk stops when the import answers; (2) wrk runs as long again, without
 * an import. Prints p50/p99/max of both, the p99 ratio (target ≤ 2), the server's longest event
 * loop delay in each, its main thread's CPU, and the import's rows/s. Method: bench/import-stall/README.md.
 *
 * Settings (environment): BENCH_ROWS (100000), BENCH_ROUNDS (2), BENCH_RATE (req/s offered, 2000),
 * BENCH_CONNECTIONS (50), BENCH_DRY_RUN (1: dry runs instead of imports).
 *
 * Run: npm run bench -- import-stall   (needs wrk: apt-get install -y wrk)
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../src/db/open.js';
import { createWorkspaceService } from '../src/workspaces/service.js';
import { createWorkspaceStore } from '../src/workspaces/store.js';
import { seedLinks } from './redirect/seed.js';
import { postBody } from '../src/test-support/upload.js';
import { ask, startServerChild } from './redirect/server-child.js';
import { acquireLock, requireWrk, runWrk, type WrkResult } from './redirect/wrk.js';

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const RATE = Number(process.env.BENCH_RATE ?? 2000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DRY_RUN = process.env.BENCH_DRY_RUN === '1';
const LINKS = 10_000;
/** wrk's longest run: an import that takes longer is cut short (and reported so). */
const MAX_SECONDS = 600;

function csvOf(round: number): Buffer {
  const tags = ['news', 'promo', 'docs', 'social', 'email'];
  const lines = ['url,key,title,tags'];
  for (let i = 0; i < ROWS; i++) lines.push(`https://example.com/articles/${i}?ref=import,r${round}-${i.toString(36)},Article ${i},"${tags[i % 5]},${tags[(i + 2) % 5]}"`);
  return Buffer.from(lines.join('\n') + '\n');
}

interface Side {
  wrk: WrkResult;
  seconds: number;
  loop: { maxMs: number; p99Ms: number };
  mainCpuMs: number;
  /** Answers the lag bound held for the click writer (CLICK_MAX_LAG_MS) during the side. */
  held: number;
}

type Stats = { writer: { held: number } };
const heldOf = async (child: ChildProcess) => (await ask<Stats>(child, 'stats', 'stats')).writer.held;

const cpuOf = async (child: ChildProcess) => (await ask<{ threads: { main: number } | null }>(child, 'cpu', 'cpu')).threads?.main ?? NaN;

let octet = 31;
/** One side: wrk for the time `during` takes (or `seconds`), with the server's loop delay and main-thread CPU over it. */
async function side(child: ChildProcess, port: number, during: (() => Promise<unknown>) | number): Promise<Side & { result?: unknown }> {
  const paceMs = Math.max(1, Math.round((CONNECTIONS * 1000) / RATE));
  await ask(child, 'eld', 'eld');
  const cpu0 = await cpuOf(child);
  const held0 = await heldOf(child);
  const started = performance.now();
  const wrk = runWrk({ port, seconds: typeof during === 'number' ? during : MAX_SECONDS, octet: octet++, links: LINKS, connections: CONNECTIONS, paceMs });
  let result: unknown;
  if (typeof during !== 'number') {
    // wrk's connections open first.
    await new Promise((r) => setTimeout(r, 500));
    result = await during();
    wrk.stop();
  }
  const w = await wrk.result;
  const seconds = (performance.now() - started) / 1000;
  const loop = await ask<{ maxMs: number; p99Ms: number }>(child, 'eld', 'eld');
  const mainCpuMs = ((await cpuOf(child)) - cpu0) / 1e6;
  const held = (await heldOf(child)) - held0;
  return { wrk: w, seconds, loop, mainCpuMs, held, result };
}

const ms = (us: number) => (us / 1000).toFixed(2).padStart(7);
const line = (label: string, s: Side) =>
  `${label} ${s.seconds.toFixed(1).padStart(5)} s  ${(s.wrk.requests / s.seconds).toFixed(0).padStart(5)} req/s  p50 ${ms(s.wrk.p50_us)} ms  p99 ${ms(s.wrk.p99_us)} ms  max ${ms(s.wrk.max_us)} ms  ` +
  `errors ${s.wrk.connect + s.wrk.read + s.wrk.write + s.wrk.status + s.wrk.timeout}  loop delay max ${s.loop.maxMs.toFixed(1)} ms (p99 ${s.loop.p99Ms.toFixed(1)})  ` +
  `main thread CPU ${(s.mainCpuMs / 1000).toFixed(1)} s  answers held for the writer ${s.held}`;

async function main() {
  requireWrk();
  const dir = mkdtempSync(join(tmpdir(), 'waymark-bench-import-stall-'));
  const url = `file:${join(dir, 'bench.db')}`;
  const workspaceId = await seedLinks(url, LINKS);
  const database = await openDatabase(url);
  const { key } = await createWorkspaceService(createWorkspaceStore(database.db)).createKey(workspaceId, { name: 'bench' });
  await database.close();
  const settings = { PORT: '3000', BASE_URL: 'http://localhost:3000', TRUST_PROXY: 'true', LOG_LEVEL: 'warn', DATABASE_URL: url, IMPORT_MAX_ROWS: String(ROWS) };
  const { child, port } = await startServerChild('waymark-server.ts', settings);
  console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  console.log(`${ROWS.toLocaleString('en')}-row ${DRY_RUN ? 'dry runs' : 'imports'}; wrk: ${CONNECTIONS} connections paced at ${RATE} req/s, every request a new click; ${ROUNDS} rounds of (import, none)\n`);

  const lock = await acquireLock();
  const ratios: number[] = [];
  try {
    // Warm-up: the link cache and the JIT.
    await side(child, port, 3);
    for (let round = 1; round <= ROUNDS; round++) {
      const csv = csvOf(round);
      const importing = await side(child, port, async () => {
        // node:http: no client-side timeout (on a busy machine the import may take minutes).
        const res = await postBody(`http://127.0.0.1:${port}`, `/links/import${DRY_RUN ? '?dryRun=true' : ''}`, { authorization: `Bearer ${key}`, 'content-type': 'text/csv' }, csv);
        if (res.status !== 200) throw new Error(`import answered ${res.status}: ${res.body.slice(0, 500)}`);
        return (JSON.parse(res.body) as { counts: Record<string, number> }).counts;
      });
      const without = await side(child, port, Math.max(3, Math.round(importing.seconds)));
      console.log(`round ${round}: import ${JSON.stringify(importing.result)} in ${importing.seconds.toFixed(1)} s (${Math.round(ROWS / importing.seconds)} rows/s)`);
      console.log(line('  with import   ', importing));
      console.log(line('  without       ', without));
      const ratio = importing.wrk.p99_us / without.wrk.p99_us;
      ratios.push(ratio);
      console.log(`  p99 with / without: ${ratio.toFixed(2)}x (target ≤ 2)\n`);
    }
  } finally {
    lock.release();
    await ask(child, 'close', 'closed').catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`p99 ratio per round: ${ratios.map((r) => r.toFixed(2)).join(', ')}; load average at the end ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
