/**
 * Backup benchmark (issue 18): `backupSqlite` (the online backup behind `npx waymark backup`) of a
 * SQLite database holding BENCH_EVENTS click events (bench/analytics/generate.ts: 10,000 links,
 * the rollups too), idle, then again while this process keeps appending click batches through
 * the event writer from another process (bench/backup/writer-child.ts, a stand-in for a server's click
 * writer), and `restoreSqlite` of the copy.
 * Prints the size, the time and MB/s of each, and how many batches committed during the backup.
 *
 * Run: npm run bench -- backup   (BENCH_EVENTS default 300,000)
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../src/db/open.js';
import { createWorkspaceService } from '../src/workspaces/service.js';
import { createWorkspaceStore } from '../src/workspaces/store.js';
import { spawn } from 'node:child_process';
import { backupSqlite, restoreSqlite } from '../src/backup/sqlite.js';
import { generate } from './analytics/generate.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 300_000);
const dir = mkdtempSync(join(tmpdir(), 'waymark-bench-backup-'));
const file = join(dir, 'waymark.db');
try {
  const database = await openDatabase(`file:${file}`);
  const workspaces = createWorkspaceService(createWorkspaceStore(database.db));
  const g = await generate(database.db, workspaces, { events: EVENTS, links: 10_000, workspaces: 50, days: 90, end: Date.now(), batch: 10_000, domain: 'go.bench' }, () => {});
  const mb = (f: string) => statSync(f).size / 1048576;
  console.log(`database: ${EVENTS} events, ${mb(file).toFixed(0)} MB (generated in ${g.totalSeconds.toFixed(0)} s)`);

  const idle = await backupSqlite(file, join(dir, 'idle.db'));
  console.log(`backup, idle: ${(idle.ms / 1000).toFixed(2)} s, ${(idle.bytes / 1048576 / (idle.ms / 1000)).toFixed(0)} MB/s`);

  // Writes beside the backup, from another process (as a server's click writer): batches of 200 clicks.
  await database.close();
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/backup/writer-child.ts', `file:${file}`], { stdio: ['ignore', 'pipe', 'inherit'] });
  const commits: number[] = [];
  child.stdout.on('data', (d: Buffer) => {
    for (const line of String(d).trim().split('\n')) commits.push(Number(line.split(' ')[1]));
  });
  while (commits.length < 5) await new Promise((r) => setTimeout(r, 50));
  const began = Date.now();
  const busy = await backupSqlite(file, join(dir, 'busy.db'));
  const ended = Date.now();
  await new Promise((r) => setTimeout(r, 300)); // the lines printed during the backup arrive
  const during = commits.filter((t) => t >= began && t <= ended).length;
  child.kill('SIGTERM');
  await new Promise((r) => child.on('exit', r));
  console.log(`backup while another process writes: ${(busy.ms / 1000).toFixed(2)} s, ${(busy.bytes / 1048576 / (busy.ms / 1000)).toFixed(0)} MB/s; ${during} batches of 200 clicks committed meanwhile`);

  const t = Date.now();
  restoreSqlite(join(dir, 'busy.db'), file);
  console.log(`restore (check + copy + rename): ${((Date.now() - t) / 1000).toFixed(2)} s`);
  console.log(`machine: ${cpus().length} cores, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
