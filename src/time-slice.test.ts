/**
 * Time slices: work that pauses between units gives the event loop a turn once its budget is
 * spent (and not before), and concurrent jobs take turns one at a time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTimeSlicer } from './time-slice.js';

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
  let last = performance.now();
  let longest = 0;
  let ticks = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    ticks++;
  }, 1);
  const end = performance.now() + 300;
  while (performance.now() < end) {
    await slicer.pause();
    busy(0.5);
  }
  clearInterval(timer);
  // A 1 ms timer: without slices it would not run once in 300 ms. Generous for a loaded machine.
  assert.ok(ticks >= 10, `the timer ran ${ticks} times`);
  assert.ok(longest < 100, `longest gap ${longest.toFixed(1)} ms`);
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
