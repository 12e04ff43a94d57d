import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { getPriority } from 'node:os';
import { Worker } from 'node:worker_threads';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { lowerPoolPriority, lowerThreadPriority } from './thread-priority.js';

const linux = existsSync('/proc/thread-self');

test('lowerThreadPriority: 0 or less leaves the thread alone', () => {
  const before = getPriority(process.pid);
  assert.deepEqual(lowerThreadPriority(0), { applied: false });
  assert.deepEqual(lowerThreadPriority(-5), { applied: false });
  assert.equal(getPriority(process.pid), before);
});

test('lowerThreadPriority in a worker lowers that thread only', { skip: !linux && 'needs /proc/thread-self (Linux)' }, async () => {
  const mainBefore = getPriority(process.pid);
  // A worker that loads this module through tsx, as flush-client.ts starts its worker in tests.
  const tsx = import.meta.resolve('tsx/esm/api');
  const entry = pathToFileURL(resolve('src/thread-priority.ts')).href;
  const source = `
    const { parentPort } = require('node:worker_threads');
    const { getPriority } = require('node:os');
    import(${JSON.stringify(tsx)}).then(async (m) => {
      m.register();
      const { lowerThreadPriority } = await import(${JSON.stringify(entry)});
      const result = lowerThreadPriority(7);
      parentPort.postMessage({ result, nice: getPriority(result.tid) });
    });`;
  const worker = new Worker(source, { eval: true });
  const reply = await new Promise<{ result: { applied: boolean; tid: number }; nice: number }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  await worker.terminate();
  assert.equal(reply.result.applied, true);
  assert.notEqual(reply.result.tid, process.pid, 'the worker has a thread id of its own');
  assert.equal(reply.nice, 7);
  assert.equal(getPriority(process.pid), mainBefore, 'the main thread keeps its priority');
});

test('lowerPoolPriority lowers libuv\'s pool threads and no other', { skip: !linux && 'needs /proc (Linux)' }, async () => {
  const mainBefore = getPriority(process.pid);
  await stat('.'); // the pool's threads start with the first work sent to it
  const threads = () => readdirSync('/proc/self/task').map((tid) => ({ tid: Number(tid), comm: readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim() }));
  const pool = threads().filter((t) => t.comm === 'libuv-worker');
  assert.ok(pool.length >= 1, 'the pool has started');
  assert.equal(lowerPoolPriority(0), 0, '0 leaves them');
  assert.equal(lowerPoolPriority(2), pool.length);
  for (const t of pool) assert.equal(getPriority(t.tid), 2, `pool thread ${t.tid} lowered`);
  for (const t of threads().filter((x) => x.comm !== 'libuv-worker')) assert.equal(getPriority(t.tid), mainBefore, `${t.comm} ${t.tid} left alone`);
});
