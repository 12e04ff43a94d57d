/**
 * Lowers the calling thread's CPU priority. On Linux every thread has its own nice value, so a
 * worker can step back without slowing the thread that serves redirects. Elsewhere (no
 * `/proc/thread-self`) it does nothing.
 *
 * Raising a nice value needs no privilege; lowering it again does, so callers set it once, at
 * start, and leave it.
 *
 * @example
 * // first thing in a worker thread
 * lowerThreadPriority(10); // { applied: true, tid: 12345 }
 */
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

export interface PriorityResult {
  applied: boolean;
  /** The thread's id, when it could be read. */
  tid?: number;
}

export function lowerThreadPriority(nice: number): PriorityResult {
  if (!(nice > 0)) return { applied: false };
  let tid: number;
  try {
    // "/proc/thread-self" links to "<pid>/task/<tid>".
    tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
  } catch {
    return { applied: false };
  }
  if (!Number.isInteger(tid) || tid <= 0) return { applied: false };
  try {
    setPriority(tid, Math.min(19, Math.floor(nice)));
    return { applied: true, tid };
  } catch {
    return { applied: false, tid };
  }
}

/**
 * Lowers every thread of libuv's pool (`libuv-worker`: the four threads that run the process's
 * asynchronous file work and every DuckDB call, analytics queries included) to `nice`. They are
 * created at nice 0 by whichever thread first used the pool, so without this DuckDB's analytics
 * ran ahead of the redirect thread and of the log thread's appends (bench/mixed-load/README.md).
 * The redirect thread itself never uses the pool. Returns the threads lowered (0 off Linux).
 *
 * @example
 * await stat('.'); // the pool exists once something used it
 * lowerPoolPriority(10); // → 4
 */
export function lowerPoolPriority(nice: number): number {
  if (!(nice > 0)) return 0;
  let lowered = 0;
  let tasks: string[];
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    return 0;
  }
  for (const task of tasks) {
    try {
      if (readFileSync(`/proc/self/task/${task}/comm`, 'utf8').trim() !== 'libuv-worker') continue;
      setPriority(Number(task), Math.min(19, Math.floor(nice)));
      lowered++;
    } catch {
      // The thread ended, or no /proc: nothing to lower.
    }
  }
  return lowered;
}

/**
 * The same step as plain JavaScript, for worker threads evaluated from source without a module
 * loader (db/checkpointer.ts, analytics/sql-runner.ts): lowers the thread to `workerData.nice`
 * when that is above 0. Expects `require` and `workerData` in scope.
 */
export const LOWER_PRIORITY_SOURCE = `
try {
  const tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
  if (tid > 0 && workerData.nice > 0) require('node:os').setPriority(tid, Math.min(19, Math.floor(workerData.nice)));
} catch {}
`;
