/**
 * Side (b) of the redirect benchmark: Waymark itself (the real buildApp, click recording on), on
 * the SQLite file the parent seeded. Reports its port when listening; answers `stats` with the
 * redirect counters, `cpu` with its CPU time (all threads, so the flush worker too, and split by thread), `settle` once
 * every buffered click is committed and folded into rollups and link counters, `retention` with
 * the result and milliseconds of a retention pass started now (bench/retention.ts), and `close`
 * by shutting down the way SIGTERM does (app.close() flushes), and `eld` with the event loop's
 * delay since the last `eld` (max and p99, ms: how long a redirect could wait behind other work),
 * and `memory` with process.memoryUsage() and each thread's heap and DuckDB's memory (ThreadsMemory).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/open.js';
import { buildApp } from '../../src/app.js';
import { threadCpuNs } from './thread-cpu.js';
import type { RedirectModule } from '../../src/redirect/module.js';
import type { AddressInfo } from 'node:net';
import { getHeapStatistics } from 'node:v8';
import { collectIfExposed, heapFigures } from '../../src/heap-figures.js';
import { startFront, type ThreadsMemory } from '../../src/api-thread/front.js';

interface Served {
  /** Each thread's heap and DuckDB's memory (the flood benchmark). */
  memory(collect: boolean): Promise<ThreadsMemory>;
  modules: { redirect: RedirectModule; retention?: { runNow(): Promise<unknown> } };
  listen(): Promise<AddressInfo | string | null>;
  close(): Promise<void>;
}

async function serveApp(): Promise<Served> {
  const { app, modules, ctx } = await buildApp({ config, database, logger: false });
  return {
    modules,
    // The API runs on the main thread here.
    memory: async (collect) => {
      if (collect) collectIfExposed();
      return { main: heapFigures(getHeapStatistics()), log: await ctx.events.memory(collect) };
    },
    listen: async () => {
      await app.listen({ port: 0, host: '127.0.0.1' });
      return app.server.address();
    },
    close: () => app.close(),
  };
}

async function serveFront(): Promise<Served> {
  const front = await startFront({ config, database, logger: false });
  return {
    modules: { redirect: front.redirect },
    memory: (collect) => front.memory(collect),
    listen: () => new Promise((resolve) => front.server.listen(0, '127.0.0.1', () => resolve(front.server.address()))),
    close: () => front.close(),
  };
}

const config = loadConfig(process.env);
const database = await openDatabase(config.databaseUrl);
// API_THREAD=1: the front (src/api-thread/) holds the redirect; retention runs on the API thread.
const served = config.apiThread ? await serveFront() : await serveApp();
const { modules } = served;
await modules.redirect.geoReady();
const address = await served.listen();
process.send?.({ type: 'ready', port: typeof address === 'object' && address ? address.port : 0 });

// Enabled on the first `eld` (which resets it): a 1 ms timer on the main thread costs ~14 ms of CPU
// a second, which benches that never ask for it would count as the redirect's.
const loopDelay = monitorEventLoopDelay({ resolution: 1 });
let measuringDelay = false;

// BENCH_GC=1 (with node's --expose-gc): `memory` reports the heaps after a full collection.
const collect = process.env.BENCH_GC === '1';

process.on('message', async (msg: { type: string }) => {
  if (msg.type === 'eld') {
    if (!measuringDelay) loopDelay.enable();
    measuringDelay = true;
    process.send?.({ type: 'eld', stats: { maxMs: loopDelay.max / 1e6, p99Ms: loopDelay.percentile(99) / 1e6 } });
    loopDelay.reset();
  }
  if (msg.type === 'stats') process.send?.({ type: 'stats', stats: modules.redirect.stats() });
  if (msg.type === 'memory') process.send?.({ type: 'memory', stats: { process: process.memoryUsage(), threads: await served.memory(collect) } });
  if (msg.type === 'cpu') process.send?.({ type: 'cpu', stats: { ...process.cpuUsage(), threads: threadCpuNs() } });
  if (msg.type === 'settle') {
    await modules.redirect.flushClicks();
    process.send?.({ type: 'settled', stats: modules.redirect.stats() });
  }
  if (msg.type === 'retention') {
    const started = performance.now();
    const result = modules.retention ? await modules.retention.runNow().catch((err) => ({ error: String(err) })) : { error: 'retention runs on the API thread (API_THREAD=1)' };
    process.send?.({ type: 'retained', stats: { result, ms: Math.round(performance.now() - started) } });
  }
  if (msg.type === 'close') {
    await served.close();
    const stats = modules.redirect.stats();
    await database.close();
    process.send?.({ type: 'closed', stats }, () => process.exit(0));
  }
});
