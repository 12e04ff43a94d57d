/**
 * Export streams: pages are read only as the output is consumed (backpressure), and a consumer
 * that goes away stops the reads.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { assertLoopFree, loopDuring } from '../test-support/event-loop.js';
import { csvStream, ndjsonStream } from './streams.js';

/** Endless pages of 100 rows, counting how many pages were asked for and whether the walk was closed. */
function endless() {
  const state = { pages: 0, closed: false };
  const pages = (async function* () {
    try {
      for (;;) {
        state.pages++;
        yield Array.from({ length: 100 }, (_, i) => ({ n: state.pages * 100 + i, text: 'x'.repeat(50) }));
      }
    } finally {
      state.closed = true;
    }
  })();
  return { state, pages };
}

for (const [name, make] of [
  ['csv', (p: AsyncIterable<{ n: number; text: string }[]>) => csvStream(['n', 'text'], p, (r) => [String(r.n), r.text])],
  ['ndjson', (p: AsyncIterable<{ n: number; text: string }[]>) => ndjsonStream(p)],
] as const) {
  test(`${name}: an unread stream reads a bounded number of pages, and destroying it ends the walk`, async () => {
    const { state, pages } = endless();
    const out = make(pages);
    const first = await new Promise<Buffer>((resolve) => out.once('data', resolve));
    assert.ok(first.length > 0);
    out.pause();
    // Let every buffer fill up while nobody reads: stream hand-offs are event-loop turns (no
    // timers, no I/O), so 50 turns without a new page mean the walk is waiting for a reader.
    let last = -1;
    let stable = 0;
    for (let turn = 0; turn < 20_000 && stable < 50; turn++) {
      await new Promise((r) => setImmediate(r));
      if (state.pages === last) stable++;
      else [last, stable] = [state.pages, 0];
    }
    assert.equal(stable, 50, 'the reads stop while nobody reads');
    assert.ok(state.pages < 100, `pages read ahead: ${state.pages}`);
    out.destroy();
    await once(out, 'close');
    for (let turn = 0; turn < 100 && !state.closed; turn++) await new Promise((r) => setImmediate(r));
    assert.equal(state.closed, true);
  });
}

test('a fast reader of a large export does not hold the event loop: rows are built in short slices', async (tc) => {
  // 200 pages of 1,000 records, read as fast as they come (no socket pushes back): without the
  // slices the whole file is built in one run of microtasks (seconds).
  const pages = (function* () {
    for (let p = 0; p < 200; p++) yield Array.from({ length: 1000 }, (_, i) => ({ n: p * 1000 + i, text: `=cell ${i}`, amount: -i }));
  })();
  const out = csvStream(['n', 'text', 'amount'], pages, (r) => [r.n, r.text, r.amount]);
  let bytes = 0;
  const held = await loopDuring(async () => {
    for await (const chunk of out) bytes += (chunk as Buffer).length;
  });
  assert.ok(bytes > 4_000_000, `bytes: ${bytes}`);
  assertLoopFree(tc, 'export-csv-stream-200k', held);
});
