/**
 * Tests that run the real process: `node src/main.ts` on a database private to the test, started
 * and awaited until it prints its banner.
 *
 * @example
 * const db = await privateDatabase();
 * const server = await startServer(db.url, await freePort(), 'wm_testkey', { RATE_LIMIT_PER_MINUTE: '5' });
 * await fetch(`http://127.0.0.1:${server.port}/health`);
 * server.child.kill('SIGTERM'); await server.exited; await db.dispose();
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../db/open.js';
import { databaseUrlOf, openTestDatabase } from './harness.js';
import { entryArgs } from './entry.js';

/** A TCP port free on 127.0.0.1 a moment ago. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  await new Promise((r) => server.close(r));
  return typeof address === 'object' && address ? address.port : 0;
}

export interface PrivateDatabase {
  /** DATABASE_URL for the processes: a temp SQLite file, or the server's URL with `?schema=`. */
  url: string;
  /** A folder of the test's own, removed with the database (e.g. for CLICK_SPILL_DIR). */
  dir: string;
  /** Opens it from the test (migrations already ran). */
  open(): ReturnType<typeof openDatabase>;
  dispose(): Promise<void>;
}

/** A database URL private to this test: a temp SQLite file, or a fresh, migrated schema. */
export async function privateDatabase(): Promise<PrivateDatabase> {
  const { database, dispose } = await openTestDatabase();
  await database.close();
  const url = databaseUrlOf(database);
  const dir = mkdtempSync(join(tmpdir(), 'waymark-process-'));
  return {
    url,
    dir,
    open: () => openDatabase(url, { migrate: false }),
    dispose: async () => {
      await dispose();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface RunningServer {
  child: ChildProcess;
  port: number;
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** What it printed on stdout alone (the JSON log). */
  stdout(): string;
}

/**
 * Spawns `src/main.ts` on the database (listening on 127.0.0.1, client addresses from
 * X-Forwarded-For, `key` as WAYMARK_API_KEY) and returns at once, while it starts.
 */
export function spawnServer(url: string, port: number, key: string, env: Record<string, string> = {}): RunningServer {
  const child = spawn(process.execPath, entryArgs('src/main.ts'), {
    // The SQL store unless the test names one: these suites read its tables from outside the process.
    env: { ...process.env, DATABASE_URL: url, PORT: String(port), HOST: '127.0.0.1', WAYMARK_API_KEY: key, TRUST_PROXY: 'true', LOG_LEVEL: 'warn', EVENTS_URL: process.env.EVENTS_URL ?? 'sql', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let stdout = '';
  child.stdout.on('data', (d) => {
    output += d;
    stdout += d;
  });
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, port, exited, output: () => output, stdout: () => stdout };
}

/** `spawnServer`, then waits until it prints that it is running. */
export async function startServer(url: string, port: number, key: string, env: Record<string, string> = {}): Promise<RunningServer> {
  const server = spawnServer(url, port, key, env);
  const { child } = server;
  // A generous bound for a start (the app loads, GeoIP data loads) on a busy CI machine.
  const deadline = Date.now() + 60_000;
  while (!server.output().includes('Waymark is running')) {
    if (Date.now() > deadline || child.exitCode !== null) {
      if (child.exitCode === null) child.kill('SIGKILL');
      throw new Error(`server did not start:\n${server.output()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return server;
}
