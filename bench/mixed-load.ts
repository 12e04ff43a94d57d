/**
 * Redirects under a mixed load (issue 38): redirect latency with API writes, analytics and an
 * export stream running at once, against redirects alone, in the same run, side by side.
 *
 * Seeds a SQLite file with 10,000 links on `go.bench` and an API key, starts Waymark (buildApp,
 * default settings: the DuckDB event store) in its own process, fills the event log with a
 * saturating warm-up, then per round: (1) *alone*: wrk on the redirects; (2) *mix*: the same wrk
 * plus `BENCH_WRITERS` loops of `POST /links`, `BENCH_ANALYTICS` loops of `GET /analytics`
 * (cycling through the groupings) and one `GET /events/export` stream read to its end again and
 * again. Prints per side wrk's req/s, p50/p99/max, the server's event-loop delay, the answers the
 * click writer's lag bound held, each thread's CPU (/proc/<pid>/task), the RSS peak; and the p99
 * ratio mix / alone (target ≤ 2). Method and findings: bench/mixed-load/README.md.
 *
 * Settings (environment): BENCH_ROUNDS (2), BENCH_DURATION (s per side, 20), BENCH_CONNECTIONS
 * (20), BENCH_RATE (req/s offered in all; 0, the default, saturates), BENCH_WRITERS (4),
 * BENCH_ANALYTICS (3), BENCH_EXPORTS (1), BENCH_CLIENT_NICE (0: the nice value of the API clients'
 * process, mixed-load/clients.ts), BENCH_WARMUP (s, 10), BENCH_SERVER_ARGS (node
 * arguments for the server, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`), BENCH_SERVER_ENV
 * (`K=V,K=V` settings for the server), BENCH_COMPARE (`K=V,…`: a second server with these
 * settings, measured side by side in each round, the order alternating), BENCH_BASELINE (a
 * checkout of another commit with its node_modules: a second server from that tree, side by
 * side in the same rounds, e.g. `git worktree add /tmp/wm-base main && ln -s
 * $PWD/node_modules /tmp/wm-base/`).
 *
 * Run: npm run bench -- mixed-load   (needs wrk: apt-get install -y wrk)
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { openDatabase } from '../src/db/open.js';
import { createWorkspaceService } from '../src/workspaces/service.js';
import { createWorkspaceStore } from '../src/workspaces/store.js';
import { seedLinks } from './redirect/seed.js';
import { ask, startServerChild } from './redirect/server-child.js';
import { acquireLock, requireWrk, runWrk, type WrkResult } from './redirect/wrk.js';
import { threadDelta, threadTimes } from './redirect/threads.js';
import { processCpuUs, rssMb } from './redirect/proc.js';
import type { MixCounts } from './mixed-load/clients.js';

const here = fileURLToPath(new URL('.', import.meta.url));

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const DURATION = Number(process.env.BENCH_DURATION ?? 20);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const RATE = Number(process.env.BENCH_RATE ?? 0);
const WRITERS = Number(process.env.BENCH_WRITERS ?? 4);
const ANALYTICS = Number(process.env.BENCH_ANALYTICS ?? 3);
const EXPORTS = Number(process.env.BENCH_EXPORTS ?? 1);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 10);
const LINKS = 10_000;
/** Nice value of the mix's API clients (0: as the server; above 0 they stand in for callers on other machines). */
const CLIENT_NICE = Number(process.env.BENCH_CLIENT_NICE ?? 0);

const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');

/** The API side of the mix, in a process of its own (mixed-load/clients.ts) at `BENCH_CLIENT_NICE`. */
function startMix(base: string, key: string, round: number): { pid: number; stop(): Promise<MixCounts> } {
  const child = fork(join(here, 'mixed-load/clients.ts'), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, MIX_BASE: base, MIX_KEY: key, MIX_ROUND: String(round), MIX_WRITERS: String(WRITERS), MIX_ANALYTICS: String(ANALYTICS), MIX_EXPORTS: String(EXPORTS), MIX_NICE: String(CLIENT_NICE) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return {
    pid: child.pid!,
    stop: () =>
      new Promise<MixCounts>((resolve, reject) => {
        child.once('message', (m: { type: string; counts: MixCounts }) => (m.type === 'stopped' ? resolve(m.counts) : reject(new Error('bad message'))));
        child.once('exit', (code) => reject(new Error(`the mix's clients exited with ${code}`)));
        child.send({ type: 'stop' });
      }),
  };
}

interface Side {
  wrk: WrkResult;
  seconds: number;
  loop: { maxMs: number; p99Ms: number };
  held: number;
  heldTooLong: number;
  threads: { tid: number; name: string; ms: number; waitMs: number }[];
  rssPeakMb: number;
  bufferedPeak: number;
  /** This process's CPU over the side (the mix's API clients), % of one core. */
  clientCpuPct: number;
  mix?: MixCounts;
}

type Stats = { writer: { held: number; heldTooLong: number; buffered: number } };

let octet = 31;
async function side(child: ChildProcess, port: number, key: string, withMix: boolean, round: number): Promise<Side> {
  const pid = child.pid!;
  await ask(child, 'eld', 'eld');
  const s0 = await ask<Stats>(child, 'stats', 'stats');
  const t0 = threadTimes(pid);
  let rssPeakMb = rssMb(pid);
  let bufferedPeak = 0;
  const sampler = setInterval(() => {
    rssPeakMb = Math.max(rssPeakMb, rssMb(pid));
  }, 250);
  const client0 = process.cpuUsage();
  const paceMs = RATE > 0 ? Math.max(1, Math.round((CONNECTIONS * 1000) / RATE)) : 0;
  const started = performance.now();
  const mix = withMix ? startMix(`http://127.0.0.1:${port}`, key, round) : undefined;
  const wrk = runWrk({ port, seconds: DURATION, octet: octet++, links: LINKS, connections: CONNECTIONS, paceMs });
  const statsPoll = setInterval(() => {
    void ask<Stats>(child, 'stats', 'stats').then((s) => (bufferedPeak = Math.max(bufferedPeak, s.writer.buffered)));
  }, 500);
  const w = await wrk.result;
  const seconds = (performance.now() - started) / 1000;
  const threads = threadDelta(t0, threadTimes(pid));
  const client = process.cpuUsage(client0);
  const mixCpuUs = mix ? processCpuUs(mix.pid) : 0;
  const clientCpuPct = ((client.user + client.system + mixCpuUs) / 1e6 / seconds) * 100;
  clearInterval(statsPoll);
  const counts = await mix?.stop();
  clearInterval(sampler);
  const loop = await ask<{ maxMs: number; p99Ms: number }>(child, 'eld', 'eld');
  const s1 = await ask<Stats>(child, 'stats', 'stats');
  return { wrk: w, seconds, loop, held: s1.writer.held - s0.writer.held, heldTooLong: s1.writer.heldTooLong - s0.writer.heldTooLong, threads, rssPeakMb, bufferedPeak, clientCpuPct, mix: counts };
}

const ms = (us: number) => (us / 1000).toFixed(1).padStart(7);
function report(label: string, s: Side): void {
  const errors = s.wrk.connect + s.wrk.read + s.wrk.write + s.wrk.status + s.wrk.timeout;
  console.log(
    `  ${label.padEnd(6)} ${(s.wrk.requests / s.seconds).toFixed(0).padStart(6)} req/s  p50 ${ms(s.wrk.p50_us)} ms  p99 ${ms(s.wrk.p99_us)} ms  max ${ms(s.wrk.max_us)} ms  errors ${errors}  ` +
      `loop delay max ${s.loop.maxMs.toFixed(1)} ms (p99 ${s.loop.p99Ms.toFixed(1)})  held ${s.held} (past the hold limit ${s.heldTooLong})  buffered peak ${s.bufferedPeak}  RSS peak ${s.rssPeakMb.toFixed(0)} MB`,
  );
  const pct = (ms: number) => `${((ms / 1000 / s.seconds) * 100).toFixed(0)}%`;
  const cpu = s.threads.slice(0, 8).map((t) => `${t.name}/${t.tid} ${pct(t.ms)} (waited ${pct(t.waitMs)})`).join(', ');
  console.log(`         CPU per thread, share of one core (and runnable, waiting for one): ${cpu}`);
  if (s.mix) console.log(`         mix (its clients used ${s.clientCpuPct.toFixed(0)}% of a core): ${s.mix.writes} writes, ${s.mix.analytics} analytics, ${s.mix.exports} exports (${(s.mix.exportBytes / 2 ** 20).toFixed(1)} MiB), ${s.mix.errors} errors, slowest API call ${s.mix.slowestApiMs.toFixed(0)} ms`);
}

/** `K=V,K=V` → settings. */
const settingsOf = (text: string) => Object.fromEntries(text.split(',').filter(Boolean).map((kv) => kv.split('=') as [string, string]));

interface Server {
  label: string;
  child: ChildProcess;
  port: number;
  key: string;
  dir: string;
  ratios: number[];
}

/** A seeded SQLite file, an API key, and Waymark on it in its own process. */
async function startServer(label: string, extra: Record<string, string>, root?: string): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-bench-mixed-'));
  const url = `file:${join(dir, 'bench.db')}`;
  // Another tree's database is made by that tree's code (its migrations).
  const from = async <T>(path: string): Promise<T> => (await import(pathToFileURL(join(root!, path)).href)) as T;
  const seed = root ? (await from<{ seedLinks: typeof seedLinks }>('bench/redirect/seed.ts')).seedLinks : seedLinks;
  const open = root ? (await from<{ openDatabase: typeof openDatabase }>('src/db/open.ts')).openDatabase : openDatabase;
  const service = root ? (await from<{ createWorkspaceService: typeof createWorkspaceService }>('src/workspaces/service.ts')).createWorkspaceService : createWorkspaceService;
  const store = root ? (await from<{ createWorkspaceStore: typeof createWorkspaceStore }>('src/workspaces/store.ts')).createWorkspaceStore : createWorkspaceStore;
  const workspaceId = await seed(url, LINKS);
  const database = await open(url);
  const { key } = await service(store(database.db)).createKey(workspaceId, { name: 'bench' });
  await database.close();
  const settings = { PORT: '3000', BASE_URL: 'http://localhost:3000', TRUST_PROXY: 'true', LOG_LEVEL: 'error', DATABASE_URL: url, RATE_LIMIT_PER_MINUTE: '10000000', ANALYTICS_RATE_LIMIT_PER_SECOND: '1000000', ...extra };
  const serverArgs = (process.env.BENCH_SERVER_ARGS ?? '').split(' ').filter(Boolean);
  const { child, port } = await startServerChild('waymark-server.ts', settings, serverArgs, root);
  return { label, child, port, key, dir, ratios: [] };
}

async function main() {
  requireWrk();
  // One server, or two side by side (BENCH_COMPARE: the second one's settings), measured in turn each round.
  const sides = [await startServer(process.env.BENCH_SERVER_ENV ?? 'defaults', settingsOf(process.env.BENCH_SERVER_ENV ?? ''))];
  if (process.env.BENCH_COMPARE) sides.push(await startServer(process.env.BENCH_COMPARE, settingsOf(process.env.BENCH_COMPARE)));
  if (process.env.BENCH_BASELINE) {
    const root = resolve(process.env.BENCH_BASELINE);
    sides.push(await startServer(`baseline ${root}`, settingsOf(process.env.BENCH_SERVER_ENV ?? ''), root));
  }
  console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}, load average ${load()}`);
  console.log(`redirects: wrk ${CONNECTIONS} connections, ${RATE > 0 ? `paced at ${RATE} req/s` : 'saturating'}, every request a new click; mix: ${WRITERS} write loops, ${ANALYTICS} analytics loops, ${EXPORTS} export stream(s) (clients at nice ${CLIENT_NICE}); ${ROUNDS} rounds of (alone, mix), ${DURATION} s each; servers: ${sides.map((s) => s.label).join(' | ')}\n`);

  const lock = await acquireLock();
  try {
    for (const s of sides) {
      const warm = await runWrk({ port: s.port, seconds: WARMUP, octet: octet++, links: LINKS, connections: CONNECTIONS }).result;
      await ask(s.child, 'settle', 'settled');
      console.log(`warm-up [${s.label}]: ${warm.requests} clicks stored (the event log the analytics and exports read); load average ${load()}`);
    }
    for (let round = 1; round <= ROUNDS; round++) {
      // Sides alternate their order from round to round.
      for (const s of round % 2 ? sides : [...sides].reverse()) {
        const alone = await side(s.child, s.port, s.key, false, round);
        await ask(s.child, 'settle', 'settled');
        const mixed = await side(s.child, s.port, s.key, true, round);
        await ask(s.child, 'settle', 'settled');
        const ratio = mixed.wrk.p99_us / alone.wrk.p99_us;
        s.ratios.push(ratio);
        console.log(`round ${round} [${s.label}] (load average ${load()}):`);
        report('alone', alone);
        report('mix', mixed);
        console.log(`  redirect p99 mix / alone: ${ratio.toFixed(2)}x (target ≤ 2)\n`);
      }
    }
  } finally {
    lock.release();
    for (const s of sides) {
      const closed = await ask<{ writer: { flushed: number; queued: number; dropped: number } }>(s.child, 'close', 'closed').catch(() => undefined);
      if (closed) console.log(`[${s.label}] at close: ${closed.writer.queued} clicks queued, ${closed.writer.flushed} stored, ${closed.writer.dropped} dropped`);
      rmSync(s.dir, { recursive: true, force: true });
    }
  }
  for (const s of sides) console.log(`[${s.label}] p99 ratio per round: ${s.ratios.map((r) => r.toFixed(2)).join(', ')}`);
  console.log(`load average at the end ${load()}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
