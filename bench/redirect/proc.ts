/**
 * What the redirect benchmarks read of a server process from /proc (Linux): its resident memory
 * (every thread's), its CPU time and that of its process group. One place for both, so each benchmark
 * reads them the same way (bench/redirect-flood.ts, bench/mixed-load.ts, bench/redirect-cpu.ts).
 *
 * @example
 * const rss = rssMb(child.pid!);          // MB resident now
 * const before = groupCpuUs(child.pid!);  // µs of CPU of the group child leads (detached: true)
 */
import { readdirSync, readFileSync } from 'node:fs';

const TICK_US = 1e6 / 100; // USER_HZ

/** Resident memory of process `pid`, all threads, in MB (VmRSS of /proc/<pid>/status); NaN if unreadable. */
export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** CPU time (µs) of process `pid`, all its threads (utime + stime of /proc/<pid>/stat). */
export function processCpuUs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_US;
}

/** CPU time (µs) of every process in the group `pgid`, all threads, from /proc/<pid>/stat. */
export function groupCpuUs(pgid: number): number {
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // Fields after the command name (which may hold spaces): state is field 3, pgrp 5, utime 14, stime 15.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(f[2]) === pgid) ticks += Number(f[11]) + Number(f[12]);
  }
  return ticks * TICK_US;
}
