#!/usr/bin/env node
// Runs every *.test.ts under src/ and test/ with Node's test runner (TypeScript through tsx).
// The engine is chosen by DATABASE_URL: unset → SQLite temp files, postgres://… → one schema per test app.
// Extra arguments are passed to `node --test` (e.g. --test-name-pattern=links).
import { readdirSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

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
const engine = /^postgres/.test(process.env.DATABASE_URL ?? '') ? 'PostgreSQL' : 'SQLite';
console.log(`Running ${files.length} test files on ${engine}`);
const r = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=120000', ...flags, ...files],
  { stdio: 'inherit', env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent' } },
);
process.exit(r.status ?? 1);
