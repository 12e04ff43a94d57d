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
 * - `maxGcMs`: the longest total of garbage-collection pauses within one stretch (`gc`
 *   performance entries). V8 collects when the heap says so, not when the code under test
 *   chooses; on a loaded machine one major collection of a test app's heap took 100 ms.
 * - `maxWorkCpuMs`: the longest stretch of this thread's CPU time less the collections in it: the
 *   time the code itself held the loop, which is what yielding controls.
 * - `maxDelayMs`: `monitorEventLoopDelay`'s longest delay, the wall clock, which counts all.
 *
 * So a test bounds the stall by the code's own CPU (`maxWorkCpuMs < 50`) and the wall clock by
 * the same bound plus what the machine and the collector added
 * (`maxDelayMs < 50 + maxWaitMs + maxGcMs`).
 *
 * @example
 * const held = await loopDuring(() => exportEverything());
 * assert.ok(held.maxWorkCpuMs < 50 && held.maxDelayMs < 50 + held.maxWaitMs + held.maxGcMs, JSON.stringify(held));
 */
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks';

export interface LoopHeld {
  /** Longest event-loop delay, ms (monitorEventLoopDelay, 1 ms resolution). */
  maxDelayMs: number;
  /** Longest CPU time of this thread between two turns of the loop, ms. */
  maxCpuMs: number;
  /** Longest time between two turns that the thread was not running, ms. */
  maxWaitMs: number;
  /** Longest total of garbage-collection pauses between two turns, ms. */
  maxGcMs: number;
  /** Longest CPU time of this thread between two turns less the collections in it, ms. */
  maxWorkCpuMs: number;
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

/** A stretch between two turns that took long enough to be worth explaining. */
interface Stretch { start: number; end: number; cpu: number }

/** Milliseconds of the `gc` pauses that fall within [start, end]. */
function gcWithin(pauses: readonly { startTime: number; duration: number }[], start: number, end: number): number {
  let total = 0;
  for (const p of pauses) total += Math.max(0, Math.min(end, p.startTime + p.duration) - Math.max(start, p.startTime));
  return total;
}

export async function loopDuring(run: () => Promise<unknown>): Promise<LoopHeld> {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  const pauses: { startTime: number; duration: number }[] = [];
  const gc = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) pauses.push({ startTime: e.startTime, duration: e.duration });
  });
  gc.observe({ entryTypes: ['gc'] });
  const long: Stretch[] = [];
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
    if (cpu - lastCpu > 5 || wall - lastWall > 5) long.push({ start: lastWall, end: wall, cpu: cpu - lastCpu });
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
  const elapsedMs = performance.now() - started;
  // The observer hears of a collection after it; one more turn lets the last ones arrive.
  await new Promise((r) => setTimeout(r, 5));
  gc.disconnect();
  let maxGc = 0;
  let maxWork = 0;
  for (const s of long) {
    const paused = gcWithin(pauses, s.start, s.end);
    maxGc = Math.max(maxGc, paused);
    maxWork = Math.max(maxWork, s.cpu - paused);
  }
  return { maxDelayMs: delay.max / 1e6, maxCpuMs: maxCpu, maxWaitMs: maxWait, maxGcMs: maxGc, maxWorkCpuMs: Math.max(0, maxWork), turns, elapsedMs };
}

/**
 * Runs `work` under `loopDuring` and names the stall the work itself caused: the smaller of the
 * wall-clock delay and the code's own CPU time in one stretch (`maxWorkCpuMs`). A stall is the
 * work's doing when both say so.
 *
 * @example
 * const { result, stallMs, figures } = await measureLoopStall(() => t.inject({ … }));
 * assert.ok(stallMs < 50, figures);
 */
export async function measureLoopStall<T>(work: () => Promise<T>): Promise<{ result: T; stallMs: number; held: LoopHeld; figures: string }> {
  let result: T | undefined;
  const held = await loopDuring(async () => {
    result = await work();
    // A stall at the very end shows at the next turns.
    await new Promise((r) => setTimeout(r, 20));
  });
  return { result: result as T, stallMs: Math.min(held.maxDelayMs, held.maxWorkCpuMs), held, figures: JSON.stringify(held) };
}
