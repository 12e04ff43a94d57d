#!/usr/bin/env node
// Runs every *.test.ts under src/ and test/ with Node's test runner, then, on SQLite, the API
// suites again on the DuckDB event store (DUCKDB_SUITES below). The files run transpiled to
// .test-build/ (scripts/build-tests.mjs: a test process starts ~1.7 s of CPU sooner than under
// tsx's loader hooks); TEST_TSX=1 runs them from source through tsx instead.
// The engine is chosen by DATABASE_URL: unset → SQLite temp files, postgres://… → one schema per test app.
// Extra arguments are passed to `node --test` (e.g. --test-name-pattern=links).
import { readdirSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { buildTests, TEST_BUILD_DIR } from './build-tests.mjs';
import { filesReachingTheDatabase } from './database-reach.mjs';

function find(dir, out = []) {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) find(p, out);
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

const args = process.argv.slice(2);
const filters = args.filter((a) => !a.startsWith('-'));
const flags = args.filter((a) => a.startsWith('-'));
let files = [...find('src'), ...find('test')].sort();
if (filters.length) files = files.filter((f) => filters.some((x) => f.includes(x)));
if (!files.length) {
  console.error('no test files found');
  process.exit(1);
}
const fromSource = process.env.TEST_TSX === '1';
if (!fromSource) await buildTests();
/** The file node runs for a test source. */
const runnable = (f) => (fromSource ? f : join(TEST_BUILD_DIR, f.replace(/\.ts$/, '.js')));
// Node ≥ 22's on-disk cache of compiled modules, shared by every test process and the servers they
// start (they inherit the environment): each imports the whole app, and compiling it was ~1 s of CPU.
const COMPILE_CACHE = process.env.NODE_COMPILE_CACHE ?? join(TEST_BUILD_DIR, '.compile-cache');
const engine = /^postgres/.test(process.env.DATABASE_URL ?? '') ? 'PostgreSQL' : 'SQLite';
// An empty list would make `node --test` look for every test file itself.
const run = (list, env = {}, timeoutMs = 120_000) =>
  list.length === 0 ? 0 : spawnSync(
    process.execPath,
    [...(fromSource ? ['--import', 'tsx'] : ['--enable-source-maps']), '--test', '--test-concurrency=2', `--test-timeout=${timeoutMs}`, ...flags, ...list.map(runnable)],
    { stdio: 'inherit', env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent', NODE_COMPILE_CACHE: COMPILE_CACHE, ...env } },
  ).status ?? 1;
// Files that drive real server processes through a whole scenario (a disk filled and freed under a
// click flood; a kill under load, a restart and a shutdown): each gets 10 minutes instead of 2, in a
// pass of their own after the others.
const LONG_SCENARIOS = ['test/full-disk/', 'src/events/column/crash.test.ts', 'src/events/column/fold-crash.test.ts', 'src/events/duckdb/compaction-crash.test.ts'];
// On PostgreSQL, only the files whose code can reach the database run (database-reach.mjs): the
// others would run the same code again. Nor do the browser tests (test/browser/): they check what
// chromium does with the pages (scripts, the CSP, layout, accessibility), and what the server
// answers them is the route tests' work, which run on both engines (the browser files alone were
// ~140 s of the PostgreSQL pass's test time). TEST_PG_ALL=1, or naming files, runs them all.
if (engine === 'PostgreSQL' && process.env.TEST_PG_ALL !== '1' && !filters.length) {
  const reaching = new Set(await filesReachingTheDatabase(files));
  const skipped = files.filter((f) => f.startsWith('test/browser/') || !reaching.has(f));
  console.log(`Skipping ${skipped.length} files on PostgreSQL: the browser tests and the files that never reach the database (TEST_PG_ALL=1 runs them)`);
  files = files.filter((f) => !skipped.includes(f));
}
console.log(`Running ${files.length} test files on ${engine}`);
const long = files.filter((f) => LONG_SCENARIOS.some((s) => f.includes(s)));
let status = run(files.filter((f) => !long.includes(f)));
if (long.length) status = run(long, {}, 600_000) || status;
// Test apps use the SQL event store unless a suite names one (test-support/harness.ts). On SQLite,
// whose default is DuckDB, the suites that speak for the API's behaviour (the SDK, analytics,
// tracking, customers, isolation, the served process) run a second time on DuckDB.
const DUCKDB_SUITES = ['src/analytics/analytics.test.ts', 'src/analytics/events.test.ts', 'src/analytics/filters.test.ts', 'src/analytics/range.test.ts', 'src/analytics/all-time.test.ts',
  'src/analytics/sdk.test.ts', 'src/links/sdk.test.ts', 'src/tracking/', 'src/customers/', 'src/events/app.test.ts', 'test/server.e2e.test.ts', 'test/isolation.test.ts',
  'src/analytics/attribution.test.ts', 'src/ab-tests/routes.test.ts', 'src/journeys/'];
const duckFiles = files.filter((f) => DUCKDB_SUITES.some((s) => f.includes(s)));
if (engine === 'SQLite' && !process.env.TEST_EVENTS_URL && duckFiles.length && !flags.some((f) => f.startsWith('--test-name-pattern'))) {
  console.log(`\nRunning ${duckFiles.length} test files again with the DuckDB event store (TEST_EVENTS_URL=duckdb::memory:)`);
  status = run(duckFiles, { TEST_EVENTS_URL: 'duckdb::memory:' }) || status;
}
process.exit(status);
