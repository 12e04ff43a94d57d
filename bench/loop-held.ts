/**
 * How long bulk work holds the event loop that serves redirects, against the 50 ms target
 * (bench/loop-held/README.md). The scenarios are the tests that guard it: each reports its
 * figures as a `loop-held <scenario> <json>` diagnostic (test-support/event-loop.ts), and this
 * runs them `BENCH_ROUNDS` times, one file at a time, and prints one row per scenario and round.
 *
 * @example
 * npm run bench -- loop-held
 */
import { spawnSync } from 'node:child_process';
import { loadavg, cpus } from 'node:os';
import type { LoopHeld as Held } from '../src/test-support/event-loop.js';

const TARGET_MS = 50;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const FILES = [
  'src/imports/slices.test.ts',
  'src/imports/stall.test.ts',
  'src/dashboard/upload-stall.test.ts',
  'src/exports/limits.test.ts',
  'src/exports/streams.test.ts',
];

interface Row { scenario: string; round: number; held: Held }

/** Runs one test file under the TAP reporter and returns its `loop-held` diagnostics. */
function runFile(file: string): { scenario: string; held: Held }[] {
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', file], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, LOG_LEVEL: 'silent' },
  });
  if (r.status !== 0) throw new Error(`${file} failed (exit ${r.status}):\n${r.stdout.slice(-3000)}\n${r.stderr.slice(-2000)}`);
  const found: { scenario: string; held: Held }[] = [];
  for (const m of r.stdout.matchAll(/#\s+loop-held (\S+) (\{.*\})/g)) found.push({ scenario: m[1]!, held: JSON.parse(m[2]!) as Held });
  if (!found.length) throw new Error(`${file} reported no loop-held figures`);
  return found;
}

/** The code's own stall: its CPU time in the longest stretch, less garbage collection. */
const stall = (h: Held) => h.maxWorkCpuMs;
const ms = (n: number) => n.toFixed(1).padStart(7);

console.log(`loop-held: ${ROUNDS} rounds of ${FILES.length} files; ${cpus().length} cores; load average at start ${loadavg()[0]!.toFixed(2)}`);
const rows: Row[] = [];
for (let round = 1; round <= ROUNDS; round++) {
  for (const file of FILES) for (const { scenario, held } of runFile(file)) rows.push({ scenario, round, held });
}

console.log(`\n${'scenario'.padEnd(30)} round   stall    delay   GC max  waited   turns  elapsed`);
for (const { scenario, round, held: h } of [...rows].sort((a, b) => a.scenario.localeCompare(b.scenario) || a.round - b.round)) {
  console.log(`${scenario.padEnd(30)} ${String(round).padStart(5)} ${ms(stall(h))}  ${ms(h.maxDelayMs)} ${ms(h.maxGcMs)} ${ms(h.maxWaitMs)} ${String(h.turns).padStart(7)} ${(h.elapsedMs / 1000).toFixed(1).padStart(7)} s`);
}

console.log(`\nper scenario, the worst round against the ${TARGET_MS} ms target (stall: the code's own CPU in one stretch, less garbage collection):`);
const scenarios = [...new Set(rows.map((r) => r.scenario))].sort();
let met = 0;
for (const s of scenarios) {
  const worst = Math.max(...rows.filter((r) => r.scenario === s).map((r) => stall(r.held)));
  if (worst <= TARGET_MS) met++;
  console.log(`  ${s.padEnd(30)} ${ms(worst)} ms  ${worst <= TARGET_MS ? 'met' : 'NOT MET'}`);
}
console.log(`${met} of ${scenarios.length} scenarios met; load average at end ${loadavg()[0]!.toFixed(2)}`);
