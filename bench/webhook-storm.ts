/**
 * Webhook storm benchmark (issue 26, class 5): redirects/s and p99 while one workspace has 100
 * `link.clicked` webhooks, against a receiver that never answers (s) and a fast one (f), side by
 * side in one run with the same server without webhooks (n). Method: bench/webhook-storm/README.md.
 *
 * Settings: BENCH_DURATION (s per run, default 10), BENCH_ROUNDS (default 2), BENCH_CONNECTIONS
 * (default 50), BENCH_LINKS (default 10000), BENCH_HOOKS (default 100), BENCH_EVENTS_URL (the
 * server's EVENTS_URL; default unset: DuckDB beside the SQLite file, the default),
 * BENCH_SERVER_ROOT (a checkout of another version whose bench/redirect/waymark-server.ts to run:
 * the same storm on the code before a change).
 *
 * Run: npm run bench -- webhook-storm   (needs wrk)
 */
import { fork } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../src/db/open.js';
import { createWorkspaceService } from '../src/workspaces/service.js';
import { createWorkspaceStore } from '../src/workspaces/store.js';
import { seedLinks } from './redirect/seed.js';
import { clickBatchCost } from './webhook-storm/batch-cost.js';
import { ask } from './redirect/server-child.js';
import { acquireLock, requireWrk, runWrk, type WrkResult } from './redirect/wrk.js';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const LINKS = Number(process.env.BENCH_LINKS ?? 10_000);
const HOOKS = Number(process.env.BENCH_HOOKS ?? 100);
const SERVER_ROOT = process.env.BENCH_SERVER_ROOT ?? join(import.meta.dirname, '..');

/** A receiver on 127.0.0.1: `silent` accepts requests and never answers; otherwise 204 at once. Counts requests. */
async function startReceiver(silent: boolean) {
  const sockets = new Set<Socket>();
  const stats = { requests: 0 };
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      stats.requests++;
      if (!silent) res.writeHead(204).end();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    stats,
    close: () => new Promise<void>((r) => { for (const s of sockets) s.destroy(); server.close(() => r()); }),
  };
}

let octet = 41;
/** wrk in the background: the receivers live in this process and must answer meanwhile. */
const wrk = (port: number): Promise<WrkResult> => runWrk({ port, seconds: DURATION, octet: octet++, links: LINKS, connections: CONNECTIONS }).result;

const rps = (w: WrkResult) => w.requests / (w.duration_us / 1e6);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

async function main() {
  requireWrk();
  // The click writer's side first, on its own: CPU of the webhook work per batch, by webhooks.
  for (const r of await clickBatchCost([1, 10, HOOKS])) {
    console.log(`click batch of 2,000 covered clicks, ${String(r.hooks).padStart(3)} webhooks: webhook work in its transaction ${r.cpuMsPerBatch.toFixed(1)} ms CPU, 1 row of ${(r.bytes / 1024).toFixed(0)} KiB`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'waymark-bench-storm-'));
  const url = `file:${join(dir, 'bench.db')}`;
  const workspaceId = await seedLinks(url, LINKS);
  const setup = await openDatabase(url);
  const { key } = await createWorkspaceService(createWorkspaceStore(setup.db), Date.now).createKey(workspaceId, { name: 'bench' });
  await setup.close();
  const silent = await startReceiver(true);
  const fast = await startReceiver(false);

  const lock = await acquireLock();
  const env: Record<string, string> = { DATABASE_URL: url, TRUST_PROXY: 'true', LOG_LEVEL: 'error', WEBHOOK_ALLOW_PRIVATE: 'true', ...(process.env.BENCH_EVENTS_URL ? { EVENTS_URL: process.env.BENCH_EVENTS_URL } : {}) };
  const child = fork(join(SERVER_ROOT, 'bench/redirect/waymark-server.ts'), [], { cwd: SERVER_ROOT, execArgv: ['--import', 'tsx'], env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: { type: string; port: number }) => (m.type === 'ready' ? resolve(m.port) : reject(new Error('bad message'))));
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  const api = async (method: string, path: string, body?: object) => {
    const r = await fetch(`http://127.0.0.1:${port}${path}`, { method, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
    if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
    return r.json() as Promise<{ id: string }>;
  };
  type Stats = { clicksRecorded: number; writer: { held: number } };
  const settle = () => ask<Stats>(child, 'settle', 'settled');
  const cpuNow = async () => (await ask<{ threads: { main: number; others: number } | null }>(child, 'cpu', 'cpu')).threads;
  const heldNow = async () => (await ask<Stats>(child, 'stats', 'stats')).writer.held;
  console.log(`${cpus().length} CPUs, load average ${loadavg()[0]!.toFixed(2)}; ${DURATION} s runs, ${CONNECTIONS} connections, ${LINKS} links, ${HOOKS} webhooks; server ${SERVER_ROOT}`);

  const sides = { n: 'no webhook', s: `${HOOKS} click webhooks, receiver never answers`, f: `${HOOKS} click webhooks, fast receiver` } as const;
  type Side = keyof typeof sides;
  const results: Record<Side, { rps: number[]; p99: number[]; cpu: number[] }> = { n: { rps: [], p99: [], cpu: [] }, s: { rps: [], p99: [], cpu: [] }, f: { rps: [], p99: [], cpu: [] } };
  try {
    // Warm-up: GeoIP, caches, JIT, and the webhook path (the dispatcher's thread starts with the
    // first webhook; under tsx its start-up compiles modules, which would weigh on the first side).
    const warm = await api('POST', '/webhooks', { name: 'warm-up', url: fast.url, triggers: ['link.clicked'], linkScope: 'workspace' });
    await wrk(port);
    await settle();
    await api('DELETE', `/webhooks/${warm.id}`);
    await settle();
    for (let round = 1; round <= ROUNDS; round++) {
      for (const side of ['n', 's', 'f'] as Side[]) {
        const receiver = side === 's' ? silent : fast;
        const hooks: { id: string }[] = [];
        if (side !== 'n') {
          for (let i = 0; i < HOOKS; i++) hooks.push(await api('POST', '/webhooks', { name: `storm ${i}`, url: `${receiver.url}?n=${i}`, triggers: ['link.clicked'], linkScope: 'workspace' }));
        }
        await settle();
        const sent0 = receiver.stats.requests;
        const [c0, h0] = [await cpuNow(), await heldNow()];
        const w = await wrk(port);
        const [c1, h1] = [await cpuNow(), await heldNow()];
        const sent = receiver.stats.requests - sent0;
        await settle();
        const n = Math.max(1, w.requests);
        const cpu = c0 && c1 ? (c1.main - c0.main + c1.others - c0.others) / 1000 / n : NaN;
        results[side].rps.push(rps(w));
        results[side].p99.push(w.p99_us / 1000);
        results[side].cpu.push(cpu);
        console.log(
          `round ${round} ${side} (${sides[side]})`.padEnd(56) +
            `${rps(w).toFixed(0).padStart(7)} redirects/s  p50 ${(w.p50_us / 1000).toFixed(2)} ms  p99 ${(w.p99_us / 1000).toFixed(2)} ms  ` +
            `cpu/redirect ${cpu.toFixed(1)} µs  held ${h1 - h0}  non-2xx/3xx ${w.status}  webhook requests during the run ${sent}`,
        );
        for (const h of hooks) await api('DELETE', `/webhooks/${h.id}`);
      }
    }
    console.log('\nside                                                     redirects/s (mean)  p99 (median)  cpu/redirect (mean)  vs n');
    for (const side of ['n', 's', 'f'] as Side[]) {
      const r = results[side];
      console.log(`${side} ${sides[side]}`.padEnd(57) + `${mean(r.rps).toFixed(0).padStart(18)}  ${median(r.p99).toFixed(2).padStart(9)} ms  ${mean(r.cpu).toFixed(1).padStart(16)} µs  ${(mean(r.rps) / mean(results.n.rps)).toFixed(2)}`);
    }
  } finally {
    await ask(child, 'close', 'closed').catch(() => undefined);
    lock.release();
    await silent.close();
    await fast.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
