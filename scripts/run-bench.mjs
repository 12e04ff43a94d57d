#!/usr/bin/env node
// Runs every benchmark: each top-level bench/*.ts file (helpers live in sub-folders), one after
// the other, through tsx. `npm run bench -- redirect` runs the files whose name contains "redirect".
import { readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const filters = process.argv.slice(2).filter((a) => !a.startsWith('-'));
let files = existsSync('bench') ? readdirSync('bench').filter((f) => f.endsWith('.ts')).sort() : [];
if (filters.length) files = files.filter((f) => filters.some((x) => f.includes(x)));
if (!files.length) {
  console.error('no benchmarks found in bench/');
  process.exit(1);
}
let failed = 0;
for (const f of files) {
  console.log(`\n=== bench/${f} ===`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', join('bench', f)], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
