/**
 * Analytics benchmark (issue 6): 5 million click events on the embedded default (SQLite), the
 * median latency of the six issue queries for a large and a small workspace, through the HTTP
 * stack with rollups, and the same queries forced onto raw scans for comparison; the event-loop
 * stall of a raw aggregate in process vs on the worker; and redirect latency (wrk, as
 * bench/redirect.ts drives it) with and without analytics queries running beside it.
 *
 * The data set is generated once (deterministic, ~10 minutes) into a file outside the repository
 * and reused while its parameters match: BENCH_ANALYTICS_DB (default $TMPDIR/waymark-bench-analytics-<N>.db).
 * Settings (environment): BENCH_EVENTS (default 5000000), BENCH_RUNS (timed runs per query,
 * default 9), BENCH_DURATION (s per wrk run, default 10), BENCH_ROUNDS (wrk rounds, default 3),
 * BENCH_REDIRECT=0 to skip the wrk part, BENCH_QUERIES=0 to skip the query timings, BENCH_DUCKDB=0 to
 * skip the same queries on the DuckDB event store (a copy of the data upgraded into a DuckDB file),
 * BENCH_SQL=0 to skip the SQL store's query timings, BENCH_DUCKDB_DIR=<dir> to keep the upgraded
 * copy there and reuse it in later runs (no second upgrade).
 * The generation and the timed phases hold /tmp/waymark-bench.lock (flock), shared with the other benchmarks.
 *
 * Run: npm run bench -- analytics
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.js';
import { COMPACTION_PERIOD_DAYS } from '../src/events/duckdb/duckdb-engine.js';
import { openDatabase } from '../src/db/open.js';
import { buildApp } from '../src/app.js';
import { createWorkspaceService } from '../src/workspaces/service.js';
import { createWorkspaceStore } from '../src/workspaces/store.js';
import { createAnalyticsService } from '../src/analytics/service.js';
import { createSqlRunner } from '../src/events/sql/sql-runner.js';
import { createSqlEventStore } from '../src/events/sql/store.js';
import { AnalyticsQuery } from '../src/analytics/schema.js';
import { generate } from './analytics/generate.js';
import { ingestCost } from './analytics/ingest-cost.js';

const here = dirname(fileURLToPath(import.meta.url));
const N = Number(process.env.BENCH_EVENTS ?? 5_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 9);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const END = Date.UTC(2026, 10, 1);
const DAY = 86_400_000;
/**
 * The clock of the query phase: mid-afternoon after the data's last day, so a 30-day range starts
 * mid-day and its first 9.5 hours come from the raw events, as they would at any real moment.
 */
const NOW = END + 14.5 * 3_600_000;
const DATA_VERSION = 'v1';
const DB_FILE = process.env.BENCH_ANALYTICS_DB ?? join(tmpdir(), `waymark-bench-analytics-${N}.db`);
const LOCK = '/tmp/waymark-bench.lock';
const DOMAIN = 'go.bench';

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const fmt = (ms: number) => (ms < 10 ? ms.toFixed(2) : ms.toFixed(1));

function acquireLock(): Promise<{ release(): void }> {
  const holder = spawn('flock', [LOCK, 'sh', '-c', 'echo locked; read _'], { stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    holder.stdout.once('data', () => resolve({ release: () => holder.stdin.end() }));
    holder.once('error', reject);
  });
}

interface Meta {
  version: string;
  events: number;
  insert_s: number;
  rollup_s: number;
  total_s: number;
}

/** The data set's record when the file holds this version at this size. */
async function existingData(): Promise<Meta | undefined> {
  if (!existsSync(DB_FILE)) return undefined;
  const database = await openDatabase(`file:${DB_FILE}`);
  const meta = await sql<Meta>`select * from bench_meta`.execute(database.db).catch(() => ({ rows: [] as Meta[] }));
  await database.close();
  const m = meta.rows[0];
  return m && m.version === DATA_VERSION && Number(m.events) === N ? m : undefined;
}

async function ensureData(): Promise<Meta> {
  const existing = await existingData();
  if (existing) return existing;
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${DB_FILE}${suffix}`, { force: true });
  console.log(`generating ${N.toLocaleString('en')} click events into ${DB_FILE} …`);
  const database = await openDatabase(`file:${DB_FILE}`);
  const workspaces = createWorkspaceService(createWorkspaceStore(database.db), () => END - 200 * DAY);
  const g = await generate(database.db, workspaces, { events: N, links: 10_000, workspaces: 495, days: 90, end: END, batch: 10_000, domain: DOMAIN }, console.log);
  await sql`create table bench_meta (version text, events integer, insert_s real, rollup_s real, total_s real)`.execute(database.db);
  await sql`insert into bench_meta values (${DATA_VERSION}, ${N}, ${g.insertSeconds}, ${g.rollupSeconds}, ${g.totalSeconds})`.execute(database.db);
  await sql`pragma wal_checkpoint(truncate)`.execute(database.db);
  await database.close();
  return { version: DATA_VERSION, events: N, insert_s: g.insertSeconds, rollup_s: g.rollupSeconds, total_s: g.totalSeconds };
}

const QUERIES: [string, string][] = [
  ['count, 30d', '/analytics?interval=30d'],
  ['timeseries 30d by day', '/analytics?groupBy=timeseries&interval=30d'],
  ['top countries', '/analytics?groupBy=countries&interval=30d'],
  ['top links', '/analytics?groupBy=top_links&interval=30d'],
  ['top referers, device=Mobile', '/analytics?groupBy=referers&device=Mobile&interval=30d'],
  ['events, first page (100)', '/events?interval=30d'],
  ['— timeseries 30d, America/New_York', '/analytics?groupBy=timeseries&interval=30d&timezone=America/New_York'],
  ['— composite top countries', '/analytics?groupBy=countries&event=composite&interval=30d'],
  ['— top countries, browser=Chrome (no tuple: raw)', '/analytics?groupBy=countries&browser=Chrome&interval=30d'],
];

async function main() {
  console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}`);
  // Generating the data set is heavy and holds the lock; finding it already made does not wait for it.
  let meta = await existingData();
  if (!meta) {
    const lock = await acquireLock();
    try {
      meta = await ensureData();
    } finally {
      lock.release();
    }
  }
  console.log(
    `data: ${N.toLocaleString('en')} clicks, 10,000 links, 495 workspaces, 90 days to ${new Date(END).toISOString()}; load ${meta.total_s.toFixed(0)} s ` +
      `(${(N / meta.total_s).toFixed(0)} events/s; inserting events ${meta.insert_s.toFixed(0)} s, rollup upserts ${meta.rollup_s.toFixed(0)} s)`,
  );

  const url = `file:${DB_FILE}`;
  const database = await openDatabase(url);
  const config = loadConfig({ PORT: '3999', BASE_URL: 'http://localhost:3999', LOG_LEVEL: 'silent', DATABASE_URL: url, EVENTS_URL: 'sql' }, { rateLimitPerMinute: 1e7, analyticsRateLimitPerSecond: 1e7 });
  const { app, ctx } = await buildApp({ config, database, logger: false, now: () => NOW });

  const from = NOW - 30 * DAY;
  const counts = await sql<{ workspace_id: string; n: number }>`select workspace_id, sum(clicks) as n from analytics_hourly where bucket >= ${from} group by workspace_id order by n desc`.execute(database.db);
  const big = counts.rows[0]!;
  const small = [...counts.rows].sort((a, b) => Math.abs(a.n - 5000) - Math.abs(b.n - 5000))[0]!;
  const sizes = await sql<{ n: number; file: number }>`select (select count(*) from analytics_daily) as n, (select page_count * page_size from pragma_page_count(), pragma_page_size()) as file`.execute(database.db);
  console.log(`query clock: ${new Date(NOW).toISOString()}`);
  console.log(`large workspace: ${Number(big.n).toLocaleString('en')} clicks in the last 30 days (rank 1); small: ${Number(small.n).toLocaleString('en')} (rank ${counts.rows.findIndex((r) => r.workspace_id === small.workspace_id) + 1})`);
  console.log(`rollups: ${Number(sizes.rows[0]!.n).toLocaleString('en')} daily rows; database file ${(Number(sizes.rows[0]!.file) / 2 ** 20).toFixed(0)} MiB`);

  const keys = {
    large: (await ctx.workspaces.createKey(big.workspace_id, { name: 'bench' })).key,
    small: (await ctx.workspaces.createKey(small.workspace_id, { name: 'bench' })).key,
  };
  const rawReader = createSqlRunner(database);
  const raw = createAnalyticsService({ db: database.db, reader: rawReader, events: createSqlEventStore({ database, runner: rawReader, useRollups: false }), now: () => NOW, linkSettings: config });

  const measureHttp = (path: string, key: string) => medianHttp(app, path, key);
  const measureRaw = async (path: string, key: string) => {
    if (path.startsWith('/events')) return NaN; // the event list is always an indexed read of the events
    const auth = await ctx.workspaces.authenticate(key);
    const q = AnalyticsQuery.parse(Object.fromEntries(new URL(path, 'http://x').searchParams));
    const times: number[] = [];
    for (let i = 0; i <= Math.min(RUNS, 5); i++) {
      const t0 = performance.now();
      await raw.retrieve(auth, q);
      if (i > 0) times.push(performance.now() - t0);
    }
    return median(times);
  };

  const table: string[] = [];
  if (process.env.BENCH_QUERIES !== '0' && process.env.BENCH_SQL !== '0') {
    const lock2 = await acquireLock();
    try {
      await timings();
    } finally {
      lock2.release();
    }
  }
  await app.close();
  await sql`pragma wal_checkpoint(truncate)`.execute(database.db);
  await database.close();
  if (process.env.BENCH_QUERIES !== '0' && process.env.BENCH_DUCKDB !== '0') await duckDbTimings({ large: big.workspace_id, small: small.workspace_id });

  if (process.env.BENCH_REDIRECT !== '0') await redirectUnderAnalytics(keys.large);

  /** The query table and the event-loop stall comparison. */
  async function timings(): Promise<void> {
    table.push('| query | large: rollups (HTTP) | large: raw scan | small: rollups (HTTP) | small: raw scan |', '|---|---:|---:|---:|---:|');
    for (const [name, path] of QUERIES) {
      const cells = [await measureHttp(path, keys.large), await measureRaw(path, keys.large), await measureHttp(path, keys.small), await measureRaw(path, keys.small)];
      table.push(`| ${name} | ${cells.map((c) => (Number.isNaN(c) ? 'same' : `${fmt(c)} ms`)).join(' | ')} |`);
    }
    console.log(`\nmedian of ${RUNS} runs after one warm-up (raw scan: median of 5, service call without HTTP)\n`);
    console.log(table.join('\n'));

    // The event loop while a heavy raw aggregate runs: on the worker vs on this thread.
    const auth = await ctx.workspaces.authenticate(keys.large);
    const heavy = AnalyticsQuery.parse({ groupBy: 'countries', browser: 'Chrome', interval: '30d' });
    const serviceOn = (inProcess: boolean) => {
      const reader = createSqlRunner(database, { inProcess });
      return createAnalyticsService({ db: database.db, reader, events: createSqlEventStore({ database, runner: reader }), now: () => NOW, linkSettings: config });
    };
    console.log('\nlongest event-loop stall (gap between 1 ms timer ticks) while 5 raw aggregates run (top countries, browser=Chrome, large workspace)');
    for (const [label, service] of [['analytics worker', serviceOn(false)], ['in process', serviceOn(true)]] as const) {
      await service.retrieve(auth, heavy);
      let last = performance.now();
      let stall = 0;
      const ticker = setInterval(() => {
        const now = performance.now();
        stall = Math.max(stall, now - last);
        last = now;
      }, 1);
      const t0 = performance.now();
      for (let i = 0; i < 5; i++) await service.retrieve(auth, heavy);
      const per = (performance.now() - t0) / 5;
      await new Promise((r) => setTimeout(r, 5));
      clearInterval(ticker);
      console.log(`  ${label.padEnd(17)} ${per.toFixed(0)} ms per query; longest stall ${stall.toFixed(1)} ms`);
    }
  }
}

/** Median time of RUNS requests after one warm-up, through the app's HTTP stack. */
async function medianHttp(app: { inject(o: { method: 'GET'; url: string; headers: Record<string, string> }): Promise<{ statusCode: number; body: string }> }, path: string, key: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i <= RUNS; i++) {
    const t0 = performance.now();
    const res = await app.inject({ method: 'GET', url: path, headers: { authorization: `Bearer ${key}` } });
    if (res.statusCode !== 200) throw new Error(`${path}: ${res.statusCode} ${res.body}`);
    if (i > 0) times.push(performance.now() - t0);
  }
  return median(times);
}

/**
 * The same queries with the DuckDB event store, beside the SQL store's: a copy of the data set is
 * upgraded into a DuckDB file the way an installation is at its first start with the default
 * (events/upgrades/to-column-store.ts, timed), then queried through the HTTP stack with the same keys.
 */
async function duckDbTimings(workspaces: { large: string; small: string }): Promise<void> {
  // BENCH_DUCKDB_DIR keeps the upgraded copy there, and a later run reuses it (no second upgrade).
  const kept = process.env.BENCH_DUCKDB_DIR;
  const dir = kept ?? mkdtempSync(join(tmpdir(), 'waymark-bench-analytics-duckdb-'));
  try {
    const copy = join(dir, 'copy.db');
    const eventFile = join(dir, 'events.duckdb');
    const reused = kept !== undefined && existsSync(copy) && existsSync(eventFile);
    if (!reused) {
      mkdirSync(dir, { recursive: true });
      copyFileSync(DB_FILE, copy);
    }
    const database = await openDatabase(`file:${copy}`);
    const config = loadConfig({ PORT: '3999', BASE_URL: 'http://localhost:3999', LOG_LEVEL: 'silent', DATABASE_URL: `file:${copy}`, EVENTS_URL: `duckdb:${eventFile}` }, { rateLimitPerMinute: 1e7, analyticsRateLimitPerSecond: 1e7 });
    const t0 = performance.now();
    const { app, ctx } = await buildApp({ config, database, logger: false, now: () => NOW });
    const upgradeS = (performance.now() - t0) / 1000;
    const keys = {
      large: (await ctx.workspaces.createKey(workspaces.large, { name: 'bench' })).key,
      small: (await ctx.workspaces.createKey(workspaces.small, { name: 'bench' })).key,
    };
    // The DuckDB instance belongs to the event log's thread (src/event-log.ts): `ctx.events` is its
    // client, with no engine to checkpoint or compact from here. The file is then measured with
    // its write-ahead log, and the compaction pass below is skipped (reported so).
    const engine: { checkpoint?(): Promise<void> } = (ctx.events as unknown as { engine?: { checkpoint?(): Promise<void> } }).engine ?? {};
    await engine.checkpoint?.();
    const wal = `${eventFile}.wal`;
    const bytes = statSync(eventFile).size + (existsSync(wal) ? statSync(wal).size : 0);
    console.log(`
DuckDB: ${reused ? `reused the upgraded copy in ${dir}; start` : 'the upgrade at start moved'} ${N.toLocaleString('en')} events in ${upgradeS.toFixed(1)} s (${(N / upgradeS).toFixed(0)} events/s); event file ${(bytes / 2 ** 20).toFixed(0)} MiB, ${(bytes / N).toFixed(1)} B/event ${engine.checkpoint ? 'after CHECKPOINT' : 'with its write-ahead log (no CHECKPOINT: the engine is on the log thread)'}`);
    const measure = (path: string, key: string) => medianHttp(app, path, key);
    // The timed queries hold the benchmark lock; the upgrade before them does not (minutes of one core).
    const times = async () => {
      const lock = await acquireLock();
      const load = loadavg()[0]!.toFixed(2);
      try {
        const out: [number, number][] = [];
        for (const [, path] of QUERIES) out.push([await measure(path, keys.large), await measure(path, keys.small)]);
        return out;
      } finally {
        lock.release();
        console.log(`  (load average ${load} before these timings, ${loadavg()[0]!.toFixed(2)} after; ${new Date().toISOString()})`);
      }
    };
    const upgraded = await times();
    // What the app's hourly compaction does to closed weeks (app.ts): the layout live clicks end up
    // in. The upgrade recorded its weeks as compacted (their order skips as well); forget that here.
    const compactable = engine as { compact?(before: number, maxDays: number, periodDays: number): Promise<{ days: number; rows: number }>; query?(q: { text: string; params: [] }): Promise<unknown> };
    await compactable.query?.({ text: 'DELETE FROM event_compactions', params: [] });
    const c0 = performance.now();
    const compacted = await compactable.compact?.(NOW - 3_600_000, Number.MAX_SAFE_INTEGER, COMPACTION_PERIOD_DAYS);
    const compactS = (performance.now() - c0) / 1000;
    await engine.checkpoint?.();
    // Without the engine (it is on the log thread) nothing was compacted: the same layout again is not timed twice.
    const after = compactable.compact ? await times() : upgraded.map(() => [NaN, NaN] as [number, number]);
    console.log(`median of ${RUNS} runs after one warm-up, the same queries as above (targets: ≤ 20 ms large, ≤ 5 ms small);
as the upgrade left the file (all history in (workspace, time) order), then after compacting closed weeks by workspace key
(${compactable.compact ? '' : 'skipped: the engine is on the log thread; '}${compacted?.days ?? 0} weeks, ${(compacted?.rows ?? 0).toLocaleString('en')} rows, ${compactS.toFixed(1)} s; event file then ${((statSync(eventFile).size + (existsSync(wal) ? statSync(wal).size : 0)) / 2 ** 20).toFixed(0)} MiB with its log)
`);
    const rows = ['| query | large: DuckDB, upgraded | small: DuckDB, upgraded | large: weeks compacted | small: weeks compacted |', '|---|---:|---:|---:|---:|'];
    const cell = (ms: number) => (Number.isNaN(ms) ? 'skipped' : `${fmt(ms)} ms`);
    QUERIES.forEach(([name], i) => rows.push(`| ${name} | ${cell(upgraded[i]![0])} | ${cell(upgraded[i]![1])} | ${cell(after[i]![0])} | ${cell(after[i]![1])} |`));
    console.log(rows.join('\n'));
    await app.close();
    await database.close();
  } finally {
    if (!kept) rmSync(dir, { recursive: true, force: true });
  }
}

interface Wrk {
  requests: number;
  duration_us: number;
  p50_us: number;
  p99_us: number;
  status: number;
  timeout: number;
}

function wrk(port: number, seconds: number, octet: number): Promise<Wrk> {
  const args = ['-t', '1', '-c', '50', '-d', `${seconds}s`, '--latency', '-s', join(here, 'redirect', 'load.lua'), `http://127.0.0.1:${port}`, '--', String(octet), '10000', '1'];
  const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  return new Promise((resolve, reject) =>
    child.on('exit', () => {
      const line = out.split('\n').find((l) => l.startsWith('WRK_JSON '));
      if (line) resolve(JSON.parse(line.slice(9)) as Wrk);
      else reject(new Error(`wrk failed: ${out}`));
    }),
  );
}

/** Redirect latency (wrk, 50 connections) alone and while a client loops over analytics queries. */
async function redirectUnderAnalytics(key: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-bench-an-'));
  const copy = join(dir, 'copy.db');
  copyFileSync(DB_FILE, copy); // the redirects write clicks: keep the generated data set unchanged
  const ingestLock = await acquireLock();
  try {
    await ingestCost(`file:${copy}`, { domain: DOMAIN, from: END + DAY });
  } finally {
    ingestLock.release();
  }
  const child: ChildProcess = fork(join(here, 'redirect', 'waymark-server.ts'), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, DATABASE_URL: `file:${copy}`, EVENTS_URL: 'sql', PORT: '3000', BASE_URL: 'http://localhost:3000', TRUST_PROXY: 'true', LOG_LEVEL: 'warn', ANALYTICS_RATE_LIMIT_PER_SECOND: '100000', RATE_LIMIT_PER_MINUTE: '10000000' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve) => child.once('message', (m: { port: number }) => resolve(m.port)));
  const range = `start=${new Date(END - 30 * DAY).toISOString().slice(0, 10)}&end=${new Date(END - DAY).toISOString().slice(0, 10)}`;
  const paths = [
    `/analytics?groupBy=countries&${range}`,
    `/analytics?groupBy=countries&browser=Chrome&${range}`,
    `/analytics?groupBy=top_links&${range}`,
    `/analytics?groupBy=timeseries&${range}`,
    `/analytics?groupBy=referers&device=Mobile&${range}`,
    `/events?${range}`,
  ];
  const lock = await acquireLock();
  const alone: Wrk[] = [];
  const loaded: Wrk[] = [];
  let analyticsDone = 0;
  const analyticsTimes: number[] = [];
  try {
    await wrk(port, 3, 30); // warm-up
    for (let round = 0; round < ROUNDS; round++) {
      alone.push(await wrk(port, DURATION, 40 + round * 2));
      let running = true;
      const loop = (async () => {
        for (let i = 0; running; i++) {
          const t0 = performance.now();
          const res = await fetch(`http://127.0.0.1:${port}${paths[i % paths.length]}`, { headers: { authorization: `Bearer ${key}` } });
          await res.arrayBuffer();
          if (res.status !== 200) throw new Error(`analytics ${res.status}`);
          analyticsTimes.push(performance.now() - t0);
          analyticsDone++;
        }
      })();
      loaded.push(await wrk(port, DURATION, 41 + round * 2));
      running = false;
      await loop;
    }
  } finally {
    lock.release();
    child.send({ type: 'close' });
    await new Promise((r) => child.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
  const rps = (w: Wrk) => w.requests / (w.duration_us / 1e6);
  console.log(`\nredirects (wrk, 1 thread, 50 connections, ${DURATION} s per run, ${ROUNDS} rounds alternating; medians of the rounds)`);
  console.log(`  per round p99 alone: ${alone.map((w) => (w.p99_us / 1000).toFixed(1)).join(', ')} ms; with analytics: ${loaded.map((w) => (w.p99_us / 1000).toFixed(1)).join(', ')} ms`);
  console.log(`  alone                    ${median(alone.map(rps)).toFixed(0)} req/s  p50 ${(median(alone.map((w) => w.p50_us)) / 1000).toFixed(2)} ms  p99 ${(median(alone.map((w) => w.p99_us)) / 1000).toFixed(2)} ms`);
  console.log(`  with analytics running   ${median(loaded.map(rps)).toFixed(0)} req/s  p50 ${(median(loaded.map((w) => w.p50_us)) / 1000).toFixed(2)} ms  p99 ${(median(loaded.map((w) => w.p99_us)) / 1000).toFixed(2)} ms`);
  console.log(`  analytics requests answered meanwhile: ${analyticsDone} (median ${fmt(median(analyticsTimes))} ms, max ${fmt(Math.max(...analyticsTimes))} ms), large workspace, 6 queries in turn incl. a raw scan`);
}

main()
  // Worker threads of the extra services above are not closed one by one: end the process here.
  .then(() => process.exit(0))
  .catch((err) => {
    console.error(err);
    process.exit(1);
  });
