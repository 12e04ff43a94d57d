/**
 * How long the event loop was held while `work` ran: what a redirect would have waited.
 *
 * - `delayMs`: the maximum of `perf_hooks.monitorEventLoopDelay` (1 ms resolution) over the work.
 * - `heldMs` (Linux): the main thread's own CPU time across the longest gap between two turns of
 *   a 1 ms timer (`/proc/thread-self/schedstat`). On a loaded machine the loop also waits for a
 *   core, which the delay counts and this does not; `null` elsewhere.
 *
 * A stall is the work's doing when both say so; tests bound `stallMs`, the smaller.
 *
 * @example
 * const { result, stallMs, delayMs } = await measureLoopStall(() => t.inject({ … }));
 * assert.ok(stallMs < 50, `event loop held ${delayMs} ms`);
 */
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** ms this thread has been on a core, or null without /proc. */
function threadCpuMs(): number | null {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return null;
  }
}

export async function measureLoopStall<T>(work: () => Promise<T>): Promise<{ result: T; delayMs: number; heldMs: number | null; stallMs: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  // The histogram's timer takes its first sample a turn after it starts: let it.
  await new Promise((r) => setTimeout(r, 20));
  let lastCpu = threadCpuMs();
  let heldMs: number | null = lastCpu === null ? null : 0;
  const timer = setInterval(() => {
    const cpu = threadCpuMs();
    if (cpu === null || lastCpu === null || heldMs === null) return;
    heldMs = Math.max(heldMs, cpu - lastCpu);
    lastCpu = cpu;
  }, 1);
  try {
    const result = await work();
    // A stall at the very end shows at the next turns.
    await new Promise((r) => setTimeout(r, 20));
    const delayMs = histogram.max / 1e6;
    return { result, delayMs, heldMs, stallMs: heldMs === null ? delayMs : Math.min(delayMs, heldMs) };
  } finally {
    clearInterval(timer);
    histogram.disable();
  }
}
