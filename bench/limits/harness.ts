/**
 * What bench/qr.ts and bench/rate-limit.ts share: the benchmark lock, wrk runs read back as JSON
 * (from load.lua or bench/redirect/load.lua), and Waymark in its own process (server.ts).
 *
 * @example
 * holdBenchLock(import.meta.url, 'bench/qr');   // first thing: re-runs the file under flock
 * const server = await startServer({ DATABASE_URL: url });
 * const run = await wrk(['-c', '8', '-d', '10s', '-s', LOAD_LUA, server.url, '--', 'qr', '2000', 'short']);
 * await stopServer(server.child);
 */
import { fork, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const LOCK = '/tmp/waymark-bench.lock';
/** The wrk script of these benchmarks. */
export const LOAD_LUA = join(here, 'load.lua');

/**
 * Everything a benchmark measures must not run beside another benchmark: unless this process
 * already holds /tmp/waymark-bench.lock, runs `file` again under flock and exits with its status.
 */
export function holdBenchLock(file: string, name: string): void {
  if (process.env.WAYMARK_BENCH_LOCKED) return;
  for (const tool of ['wrk', 'flock']) {
    if (spawnSync(tool, ['--version']).error) {
      console.error(`${name} needs ${tool} (apt-get install -y wrk util-linux)`);
      process.exit(1);
    }
  }
  const r = spawnSync('flock', [LOCK, process.execPath, ...process.execArgv, fileURLToPath(file)], { stdio: 'inherit', env: { ...process.env, WAYMARK_BENCH_LOCKED: '1' } });
  process.exit(r.status ?? 1);
}

export function machineLine(): string {
  return `machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`;
}

export interface WrkResult {
  requests: number;
  duration_us: number;
  connect: number;
  read: number;
  write: number;
  status: number;
  timeout: number;
  p50_us: number;
  p90_us: number;
  p99_us: number;
  max_us: number;
}

/** Runs wrk with a script that prints a WRK_JSON line; resolves with that line. */
export function wrk(args: string[]): Promise<WrkResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', () => {
      const line = out.split('\n').find((l) => l.startsWith('WRK_JSON '));
      if (line) resolve(JSON.parse(line.slice('WRK_JSON '.length)) as WrkResult);
      else reject(new Error(`wrk failed: ${out}`));
    });
  });
}

export const rps = (w: WrkResult) => w.requests / (w.duration_us / 1e6);
export const errors = (w: WrkResult) => w.connect + w.read + w.write + w.status + w.timeout;
/** Milliseconds with two decimals below 10, one above. */
export const ms = (x: number) => x.toFixed(x < 10 ? 2 : 1);

export interface BenchServer {
  child: ChildProcess;
  port: number;
  url: string;
}

/** Starts server.ts (Waymark) with `env` and waits until it listens. */
export function startServer(env: Record<string, string>): Promise<BenchServer> {
  const child = fork(join(here, 'server.ts'), [], { execArgv: ['--import', 'tsx'], env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', (m: { type: string; port: number }) => (m.type === 'ready' ? resolve({ child, port: m.port, url: `http://127.0.0.1:${m.port}` }) : reject(new Error('bad message'))));
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
}

export function stopServer(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.send({ type: 'close' });
  });
}
