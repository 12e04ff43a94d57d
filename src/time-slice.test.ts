/**
 * Time slices: work that pauses between units gives the event loop a turn once its budget is
 * spent (and not before), and concurrent jobs take turns one at a time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTimeSlicer } from './time-slice.js';
import { loopDuring } from './test-support/event-loop.js';

const busy = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};

test('within its budget a pause does not give the loop a turn', async () => {
  const slicer = createTimeSlicer(10_000);
  await slicer.pause(); // the first pause of a slicer yields: nothing has resumed yet
  let turned = false;
  setImmediate(() => (turned = true));
  for (let i = 0; i < 100; i++) await slicer.pause();
  assert.equal(turned, false);
  await new Promise((r) => setImmediate(r));
  assert.equal(turned, true);
});

test('past its budget a pause lets timers and sockets run: no stall longer than a slice', async () => {
  const slicer = createTimeSlicer(4);
  const held = await loopDuring(async () => {
    const end = performance.now() + 300;
    while (performance.now() < end) {
      await slicer.pause();
      busy(0.5);
    }
  });
  // Without slices the loop would not turn once in 300 ms, and the stretch would be 300 ms of this
  // thread's CPU. With them a stretch is a 4 ms slice and one unit; the bound is the thread's own
  // CPU (test-support/event-loop.ts), not the wall clock, which a loaded machine stretches by the
  // time the thread waits for a core.
  assert.ok(held.turns >= 10, `the loop turned ${held.turns} times: ${JSON.stringify(held)}`);
  assert.ok(held.maxCpuMs < 100, `longest stretch ${held.maxCpuMs.toFixed(1)} ms of CPU: ${JSON.stringify(held)}`);
});

test('concurrent jobs take turns, one per turn of the loop', async () => {
  const slicer = createTimeSlicer(1);
  const order: string[] = [];
  const job = async (name: string) => {
    for (let i = 0; i < 5; i++) {
      await slicer.pause();
      order.push(name);
      busy(2);
    }
  };
  await Promise.all([job('a'), job('b')]);
  // Each resumed job spends its slice at once (2 ms > 1 ms), so the turns alternate.
  assert.deepEqual(order, ['a', 'b', 'a', 'b', 'a', 'b', 'a', 'b', 'a', 'b']);
});
