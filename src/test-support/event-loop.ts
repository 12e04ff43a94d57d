/**
 * How long the event loop was held while something ran, for tests of work that must leave the
 * loop free (exports, imports). Two measures over the same run:
 *
 * - `maxDelayMs`: `monitorEventLoopDelay`'s longest delay, wall clock. On a shared machine it also
 *   counts the time this thread waited for a core while other processes ran.
 * - `maxCpuMs`: the longest stretch of this thread's own CPU time between two turns of the loop
 *   (Linux `/proc/thread-self/schedstat`), with `maxQueuedMs`, the longest time it waited for a
 *   core within one such stretch. A stall of the loop is CPU time; the wait is the machine's load.
 *
 * So a test can bound the stall tightly whatever the load: `maxCpuMs < 50`, and the wall clock as
 * `maxDelayMs < 50 + maxQueuedMs`.
 *
 * @example
 * const held = await loopDuring(() => exportEverything());
 * assert.ok(held.maxCpuMs < 50 && held.maxDelayMs < 50 + held.maxQueuedMs, JSON.stringify(held));
 */
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface LoopHeld {
  /** Longest event-loop delay, ms (monitorEventLoopDelay, 1 ms resolution). */
  maxDelayMs: number;
  /** Longest CPU time of this thread between two turns of the loop, ms. */
  maxCpuMs: number;
  /** Longest wait for a core within one stretch between two turns, ms. */
  maxQueuedMs: number;
  /** Turns of the loop while `run` ran. */
  turns: number;
  /** Wall time of `run`, ms. */
  elapsedMs: number;
}

/** This thread's time on a core and waiting for one, ns; from process CPU time where /proc has no schedstat. */
function threadTimes(): [number, number] {
  try {
    const [run, wait] = readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ');
    return [Number(run), Number(wait)];
  } catch {
    const u = process.cpuUsage();
    return [(u.user + u.system) * 1000, 0];
  }
}

export async function loopDuring(run: () => Promise<unknown>): Promise<LoopHeld> {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  let turns = 0;
  let maxCpu = 0;
  let maxQueued = 0;
  let last = threadTimes();
  let stop = false;
  // Every turn of the loop runs this once (an immediate that schedules the next one).
  const turn = () => {
    const now = threadTimes();
    maxCpu = Math.max(maxCpu, (now[0] - last[0]) / 1e6);
    maxQueued = Math.max(maxQueued, (now[1] - last[1]) / 1e6);
    last = now;
    turns++;
    if (!stop) setImmediate(turn);
  };
  const started = performance.now();
  delay.enable();
  setImmediate(turn);
  try {
    await run();
  } finally {
    stop = true;
    delay.disable();
  }
  return { maxDelayMs: delay.max / 1e6, maxCpuMs: maxCpu, maxQueuedMs: maxQueued, turns, elapsedMs: performance.now() - started };
}
