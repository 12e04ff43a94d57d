/**
 * Rate-limit counters on PostgreSQL (issue 13): what sharing them across processes adds to an API
 * request, side by side with counting in the process's memory, in the same run.
 *
 * 1. One counter hit, sequential, in this process: the shared table's upsert (one round trip) and
 *    the memory counters, p50 and p99.
 * 2. An authenticated API request (GET /workspaces/{id}) through Waymark in its own process on a
 *    private schema: (a) shared counters, as deployed on PostgreSQL; (b) BENCH_RATE_COUNTERS=process,
 *    the same app counting in memory. wrk with 1 connection (latency: each request waits for the
 *    one before) and with 10 connections (throughput), alternating a/b for several rounds.
 *
 * Needs DATABASE_URL=postgres://… (skipped otherwise) and wrk. Settings: BENCH_DURATION (s per
 * run, default 5), BENCH_ROUNDS (default 3), BENCH_HITS (part 1, default 2000). The whole run
 * holds /tmp/waymark-bench.lock (flock).
 *
 * Run: DATABASE_URL=postgres://postgres@127.0.0.1:54329/waymark_test npm run bench -- rate-limit
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, isPostgresUrl, type OpenDatabase } from '../src/db/open.js';
import { openRateCounters, type RateCounters } from '../src/db/rate-counters.js';
import { createWorkspaceService } from '../src/workspaces/service.js';
import { createWorkspaceStore } from '../src/workspaces/store.js';
import { LOAD_LUA, errors, holdBenchLock, machineLine, ms, rps, startServer, stopServer, wrk, type BenchServer, type WrkResult } from './limits/harness.js';

const DATABASE_URL = process.env.DATABASE_URL ?? '';
if (!isPostgresUrl(DATABASE_URL)) {
  console.log('bench/rate-limit: skipped, it measures the PostgreSQL counters (set DATABASE_URL=postgres://…)');
  process.exit(0);
}
holdBenchLock(import.meta.url, 'bench/rate-limit');

const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const HITS = Number(process.env.BENCH_HITS ?? 2000);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function hitLatency(label: string, counters: RateCounters): Promise<number> {
  for (let i = 0; i < 200; i++) await counters.hit(`warm:${i % 20}`, 60_000);
  const times: number[] = [];
  for (let i = 0; i < HITS; i++) {
    const t0 = performance.now();
    // A few hundred keys, as many clients would give: mostly updates of existing rows.
    await counters.hit(`k:${i % 300}:m`, 60_000);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const p50 = percentile(times, 50);
  console.log(`  ${label.padEnd(28)} p50 ${ms(p50)} ms  p99 ${ms(percentile(times, 99))} ms  (${HITS} hits)`);
  return p50;
}

async function main() {
  console.log(`${machineLine()}\n`);
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const database: OpenDatabase = await openDatabase(DATABASE_URL, { pgSchema: schema, poolSize: 4 });
  try {
    console.log('1. one counter hit, sequential, from this process');
    const shared = openRateCounters(database);
    const local = openRateCounters(database, { inMemory: true });
    const sharedP50 = await hitLatency('shared (PostgreSQL upsert)', shared);
    const localP50 = await hitLatency('memory', local);
    console.log(`  added per hit: ${ms(sharedP50 - localP50)} ms at p50`);
    await shared.close();
    await local.close();

    const workspaces = createWorkspaceService(createWorkspaceStore(database.db), Date.now);
    const ws = await workspaces.createWorkspace({ name: 'Bench', plan: 'enterprise' });
    const { key } = await workspaces.createKey(ws.id, { name: 'bench' });
    const url = new URL(DATABASE_URL);
    url.searchParams.set('schema', schema);
    const env = { DATABASE_URL: url.toString(), BASE_URL: 'http://localhost:3000', RATE_LIMIT_PER_MINUTE: '1000000000' };
    const sides: { label: string; server: BenchServer }[] = [
      { label: 'a shared counters', server: await startServer(env) },
      { label: 'b memory counters', server: await startServer({ ...env, BENCH_RATE_COUNTERS: 'process' }) },
    ];
    const api = (server: BenchServer, connections: number, seconds: number) =>
      wrk(['-t', '1', '-c', String(connections), '-d', `${seconds}s`, '--latency', '-s', LOAD_LUA, server.url, '--', 'api', `/workspaces/${ws.id}`, key]);
    const runs = new Map<string, WrkResult[]>();
    try {
      for (const side of sides) await api(side.server, 10, 2); // warm-up
      console.log(`\n2. GET /workspaces/{id} with a key, ${DURATION} s per run, ${ROUNDS} rounds of a/b`);
      for (let round = 1; round <= ROUNDS; round++) {
        for (const connections of [1, 10]) {
          for (const side of sides) {
            const r = await api(side.server, connections, DURATION);
            const id = `${side.label}, ${connections} conn`;
            runs.set(id, [...(runs.get(id) ?? []), r]);
            console.log(`  round ${round} ${id.padEnd(28)} ${rps(r).toFixed(0).padStart(6)} req/s  p50 ${ms(r.p50_us / 1000)} ms  p99 ${ms(r.p99_us / 1000)} ms  errors ${errors(r)}`);
          }
        }
      }
    } finally {
      for (const side of sides) await stopServer(side.server.child);
    }
    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
    const p50Of = (id: string) => median(runs.get(id)!.map((r) => r.p50_us / 1000));
    const rpsOf = (id: string) => median(runs.get(id)!.map(rps));
    console.log('\nsummary (medians of the rounds)');
    for (const c of [1, 10]) {
      const a = `a shared counters, ${c} conn`;
      const b = `b memory counters, ${c} conn`;
      console.log(
        `  ${String(c).padStart(2)} connection(s): p50 ${ms(p50Of(a))} vs ${ms(p50Of(b))} ms (added ${ms(p50Of(a) - p50Of(b))} ms, a/b ${(p50Of(a) / p50Of(b)).toFixed(2)}), ` +
          `${rpsOf(a).toFixed(0)} vs ${rpsOf(b).toFixed(0)} req/s (a/b ${(rpsOf(a) / rpsOf(b)).toFixed(2)})`,
      );
    }
  } finally {
    await database.close();
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.end();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
