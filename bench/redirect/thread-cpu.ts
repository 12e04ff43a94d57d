/**
 * CPU time of this process split by thread, for the redirect benchmark's servers: the main
 * (redirect) thread against every other thread (the click flush worker, the checkpoint thread,
 * V8's and libuv's helpers). Read from `/proc/self/task/<tid>/schedstat` (nanoseconds on a core);
 * null where that does not exist (not Linux).
 *
 * @example
 * const t0 = threadCpuNs(); ...; const t1 = threadCpuNs(); // t1.main - t0.main: ns on the main thread
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface ThreadCpu {
  /** ns the main thread (tid = pid) has been on a core. */
  main: number;
  /** ns every other thread has, including threads that have exited since the first call. */
  others: number;
}

// Threads that exit (a restarted worker) take their time with them: keep the last figure seen.
const lastSeen = new Map<number, number>();

export function threadCpuNs(): ThreadCpu | null {
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return null;
  }
  for (const tid of tids) {
    try {
      const ns = Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      if (Number.isFinite(ns)) lastSeen.set(Number(tid), ns);
    } catch {
      /* the thread ended between the listing and the read */
    }
  }
  let main = 0;
  let others = 0;
  for (const [tid, ns] of lastSeen) {
    if (tid === process.pid) main = ns;
    else others += ns;
  }
  return { main, others };
}
