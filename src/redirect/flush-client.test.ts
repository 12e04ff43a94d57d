import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../db/open.js';
import { createWorkerSink } from './flush-client.js';
import { HAS_THREAD_PRIORITIES, threadNices } from '../test-support/threads.js';

test('the click flush worker runs at the configured nice value (CLICK_WRITER_NICE)', { skip: !HAS_THREAD_PRIORITIES && 'needs /proc/thread-self (Linux)' }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-flush-nice-'));
  const url = `file:${join(dir, 'waymark.db')}`;
  await (await openDatabase(url)).close();
  // 9: no other thread of the test process runs at it (the analytics worker uses 10).
  assert.equal(threadNices().includes(9), false);
  const mainBefore = getPriority(process.pid);
  const sink = createWorkerSink({ url, foldIntervalMs: 1000, nice: 9 });
  try {
    // A round trip: the worker has run its start-up, where it lowers its priority.
    assert.deepEqual(await sink.existingClickIds(['nope']), []);
    assert.equal(threadNices().filter((n) => n === 9).length, 1, 'exactly one thread (the worker) at nice 9');
    assert.equal(getPriority(process.pid), mainBefore, 'the main thread keeps its priority');
  } finally {
    await sink.close?.();
    rmSync(dir, { recursive: true, force: true });
  }
});
