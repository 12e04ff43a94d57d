/** heapFigures: the four figures of V8's heap statistics, for this thread and for a worker's. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getHeapStatistics, type HeapInfo } from 'node:v8';
import { Worker } from 'node:worker_threads';
import { heapFigures } from './heap-figures.js';

test('heapFigures picks used, total, external and malloced bytes', () => {
  const stats = { ...getHeapStatistics(), used_heap_size: 10, total_heap_size: 20, external_memory: 30, malloced_memory: 40 } satisfies HeapInfo;
  assert.deepEqual(heapFigures(stats), { usedBytes: 10, totalBytes: 20, externalBytes: 30, mallocedBytes: 40 });
});

test("heapFigures of a worker: the worker's own heap, which grows with what it holds", async () => {
  // The worker keeps 5,000,000 doubles (40 MB on its heap) alive, then says so and waits.
  const worker = new Worker(`const { parentPort } = require('node:worker_threads'); globalThis.kept = new Array(5_000_000).fill(0.5); parentPort.postMessage('held'); setInterval(() => {}, 1000);`, { eval: true });
  try {
    await new Promise((resolve) => worker.once('message', resolve));
    const theirs = heapFigures(await worker.getHeapStatistics());
    assert.ok(theirs.usedBytes > 40_000_000, `worker heap ${theirs.usedBytes}`);
    assert.ok(theirs.totalBytes >= theirs.usedBytes);
  } finally {
    await worker.terminate();
  }
});
