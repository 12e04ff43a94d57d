/**
 * One thread's V8 heap in a few figures, from `v8.getHeapStatistics()` (this thread) or
 * `worker.getHeapStatistics()` (another thread, the same shape): what a thread's JavaScript holds,
 * beside the process's resident memory that every thread and native library shares. The log
 * thread reports its own (events/log/protocol.ts `memory`), benchmarks ask every thread
 * (bench/redirect-flood.ts).
 *
 * @example
 * heapFigures(getHeapStatistics()); // { usedBytes: 48_000_000, totalBytes: 60_000_000, … }
 */
import type { HeapInfo } from 'node:v8';

export interface HeapFigures {
  /** Live and not yet collected objects on the heap. */
  usedBytes: number;
  /** The heap's reserved pages (what the heap adds to resident memory). */
  totalBytes: number;
  /** Memory outside the heap that objects own (buffers, strings of native modules). */
  externalBytes: number;
  /** What V8 itself allocated with malloc (compiler, parser). */
  mallocedBytes: number;
}

/**
 * A full collection first, where the process was started with `--expose-gc` (a benchmark's way to
 * tell live objects from garbage not collected yet); elsewhere nothing.
 */
export function collectIfExposed(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

export function heapFigures(stats: HeapInfo): HeapFigures {
  return {
    usedBytes: stats.used_heap_size,
    totalBytes: stats.total_heap_size,
    externalBytes: stats.external_memory,
    mallocedBytes: stats.malloced_memory,
  };
}
