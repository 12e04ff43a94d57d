/**
 * CPU time of every thread of this process by name, for the benchmarks that must say which thread
 * a load lands on (bench/mixed-load.ts): `/proc/self/task/<tid>/schedstat` (ns on a core) and
 * `comm` (the main thread is `node`, worker threads are named by Node as `WorkerThread` or after
 * their `name`, V8's helpers `V8 DefaultWorke`, libuv's pool `libuv-worker`, DuckDB's `duckdb…`).
 * Threads that ended keep their last figure. Empty where /proc does not exist. Another process's
 * threads are read the same way (`threadTimes(child.pid)`), without asking it over a busy loop.
 *
 * @example
 * const a = threadTimes(pid); ...; threadDelta(a, threadTimes(pid)) // [{ tid, name: 'main', ms: 812.5 }, …]
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface ThreadTime {
  tid: number;
  name: string;
  /** ns on a core. */
  ns: number;
  /** ns runnable and waiting for a core (schedstat's second field): starved, not blocked. */
  waitNs: number;
}

const seen = new Map<string, ThreadTime>();

/** Every thread of process `pid` (default: this one) now. */
export function threadTimes(pid: number = process.pid): ThreadTime[] {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  for (const t of tids) {
    try {
      const [ns, waitNs] = readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ').map(Number) as [number, number];
      const name = readFileSync(`/proc/${pid}/task/${t}/comm`, 'utf8').trim();
      const tid = Number(t);
      if (Number.isFinite(ns)) seen.set(`${pid}/${tid}`, { tid, name: tid === pid ? 'main' : name, ns, waitNs });
    } catch {
      /* ended between the listing and the read */
    }
  }
  return [...seen.entries()].filter(([k]) => k.startsWith(`${pid}/`)).map(([, t]) => ({ ...t }));
}

/** ms of CPU (and of waiting for a core) per thread between two readings, each thread that used any, busiest first. */
export function threadDelta(before: readonly ThreadTime[], after: readonly ThreadTime[]): { tid: number; name: string; ms: number; waitMs: number }[] {
  const start = new Map(before.map((t) => [t.tid, t]));
  return after
    .map((t) => ({ tid: t.tid, name: t.name, ms: (t.ns - (start.get(t.tid)?.ns ?? 0)) / 1e6, waitMs: (t.waitNs - (start.get(t.tid)?.waitNs ?? 0)) / 1e6 }))
    .filter((t) => t.ms > 0.5)
    .sort((a, b) => b.ms - a.ms);
}
