/**
 * How long the event loop was held while something ran, for tests of work that must leave the
 * loop free (exports, imports). A timer ticks every millisecond; between two ticks the loop was
 * either free (the thread sleeps until the tick) or held. Per stretch between ticks:
 *
 * - `maxCpuMs`: the longest stretch of this thread's own CPU time (Linux
 *   `/proc/thread-self/schedstat`; elsewhere the process's CPU time). A loop held by work shows
 *   here, whatever else runs on the machine.
 * - `maxWaitMs`: the longest wall time within one stretch that the thread did not run: it waited
 *   for a core while other processes ran, or for the garbage collector's helper threads. On a
 *   shared machine this reaches 100-200 ms with no work held at all.
 * - `maxDelayMs`: `monitorEventLoopDelay`'s longest delay, the wall clock, which counts both.
 *
 * So a test bounds the stall by the CPU (`maxCpuMs < 50`) and the wall clock by the same bound
 * plus what the machine added (`maxDelayMs < 50 + maxWaitMs`).
 *
 * @example
 * const held = await loopDuring(() => exportEverything());
 * assert.ok(held.maxCpuMs < 50 && held.maxDelayMs < 50 + held.maxWaitMs, JSON.stringify(held));
 */
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';

export interface LoopHeld {
  /** Longest event-loop delay, ms (monitorEventLoopDelay, 1 ms resolution). */
  maxDelayMs: number;
  /** Longest CPU time of this thread between two turns of the loop, ms. */
  maxCpuMs: number;
  /** Longest time between two turns that the thread was not running, ms. */
  maxWaitMs: number;
  /** Timer ticks seen while `run` ran (at most one a millisecond). */
  turns: number;
  /** Wall time of `run`, ms. */
  elapsedMs: number;
}

/** This thread's CPU time, ms: schedstat's time on a core, or the process's CPU time where /proc has none. */
function threadCpuMs(): number {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6;
  } catch {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  }
}

export async function loopDuring(run: () => Promise<unknown>): Promise<LoopHeld> {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  let turns = 0;
  let maxCpu = 0;
  let maxWait = 0;
  let stop = false;
  let lastCpu = threadCpuMs();
  let lastWall = performance.now();
  const tick = () => {
    if (stop) return;
    const cpu = threadCpuMs();
    const wall = performance.now();
    maxCpu = Math.max(maxCpu, cpu - lastCpu);
    maxWait = Math.max(maxWait, wall - lastWall - (cpu - lastCpu));
    lastCpu = cpu;
    lastWall = wall;
    turns++;
    setTimeout(tick, 1);
  };
  const started = performance.now();
  delay.enable();
  setTimeout(tick, 1);
  try {
    await run();
  } finally {
    tick();
    stop = true;
    delay.disable();
  }
  return { maxDelayMs: delay.max / 1e6, maxCpuMs: maxCpu, maxWaitMs: maxWait, turns, elapsedMs: performance.now() - started };
}
