/**
 * What the redirect benchmarks share around wrk: the check that wrk and flock exist, the lock that
 * keeps two benchmarks from measuring at once, and wrk runs with bench/redirect/load.lua (every
 * request a new click from its own IP, or a crawler) read back from its WRK_JSON line.
 *
 * @example
 * requireWrk();
 * const lock = await acquireLock();
 * const result = await runWrk({ port, seconds: 10, octet: 11, links: 10_000 }).result;
 * lock.release();
 */
import { spawn, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const BENCH_LOCK = '/tmp/waymark-bench.lock';

export interface WrkResult {
  /** Responses received: for the crash benchmark, the clicks answered. */
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

export function requireWrk(): void {
  if (spawnSync('wrk', ['-v'], { encoding: 'utf8' }).error) {
    console.error('this benchmark needs wrk, which is not installed. On Debian/Ubuntu: sudo apt-get install -y wrk');
    process.exit(1);
  }
  if (spawnSync('flock', ['-V'], { encoding: 'utf8' }).error) {
    console.error('this benchmark needs flock (util-linux) to avoid measuring beside another benchmark.');
    process.exit(1);
  }
}

/** Holds the shared benchmark lock until `release()` (flock on a helper process). */
export function acquireLock(): Promise<{ release(): void }> {
  const holder = spawn('flock', [BENCH_LOCK, 'sh', '-c', 'echo locked; read _'], { stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    holder.stdout.once('data', () => resolve({ release: () => holder.stdin.end() }));
    holder.once('error', reject);
  });
}

export interface WrkRun {
  port: number;
  seconds: number;
  /** First octet of this run's client IPs: a fresh one per run keeps every click new. */
  octet: number;
  links: number;
  connections?: number;
  threads?: number;
  bot?: boolean;
  /** Every request a user agent and referer never seen before (load.lua's "flood"). */
  flood?: boolean;
  /** Mean pause of each connection before each request, ms (0: saturate). */
  paceMs?: number;
}

/** wrk's arguments for a run of load.lua. */
export function wrkArgs(run: WrkRun): string[] {
  const threads = run.threads ?? 1;
  const script = [String(run.octet), String(run.links), String(threads), ...(run.bot || run.flood || run.paceMs ? [run.bot ? 'bot' : run.flood ? 'flood' : 'human'] : []), ...(run.paceMs ? [String(run.paceMs)] : [])];
  return ['-t', String(threads), '-c', String(run.connections ?? 50), '-d', `${run.seconds}s`, '--latency', '-s', join(here, 'load.lua'), `http://127.0.0.1:${run.port}`, '--', ...script];
}

/** The WRK_JSON line load.lua prints at the end, parsed; throws when it is missing. */
export function parseWrk(stdout: string, stderr = ''): WrkResult {
  const line = stdout.split('\n').find((l) => l.startsWith('WRK_JSON '));
  if (!line) throw new Error(`wrk failed: ${stderr || stdout}`);
  return JSON.parse(line.slice('WRK_JSON '.length)) as WrkResult;
}

/**
 * Runs wrk in the background: `result` resolves when it ends, at the end of its duration or
 * after `stop()` (SIGINT, on which wrk reports what it counted so far).
 */
export function runWrk(run: WrkRun): { result: Promise<WrkResult>; stop(): void } {
  const child = spawn('wrk', wrkArgs(run), { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const result = new Promise<WrkResult>((resolve, reject) =>
    child.on('exit', () => (out.includes('WRK_JSON ') ? resolve(parseWrk(out)) : reject(new Error(`wrk failed: ${err || out}`)))),
  );
  return { result, stop: () => void child.kill('SIGINT') };
}
