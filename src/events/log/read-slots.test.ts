import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createReadSlots } from './read-slots.js';

/** A read that ends when told to, recording that it started. */
function gated(started: number[], n: number) {
  let end!: (v: number) => void;
  const done = new Promise<number>((r) => (end = r));
  return { fn: () => { started.push(n); return done; }, end: () => end(n) };
}

test('at most `max` reads run; the others start in order as slots free', async () => {
  const slots = createReadSlots(2);
  const started: number[] = [];
  const reads = [1, 2, 3, 4].map((n) => gated(started, n));
  const results = reads.map((r) => slots.run(r.fn));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(started, [1, 2]);
  assert.equal(slots.running, 2);
  assert.equal(slots.waiting, 2);
  reads[1]!.end();
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(started, [1, 2, 3], 'the first waiting read takes the freed slot');
  reads[0]!.end();
  reads[2]!.end();
  reads[3]!.end();
  assert.deepEqual(await Promise.all(results), [1, 2, 3, 4]);
  assert.equal(slots.running, 0);
  assert.equal(slots.waiting, 0);
});

test('a failed read frees its slot and fails its caller only', async () => {
  const slots = createReadSlots(1);
  const boom = new Error('query failed');
  const failing = slots.run(() => Promise.reject(boom));
  const next = slots.run(async () => 'ok');
  await assert.rejects(failing, (e: unknown) => e === boom);
  assert.equal(await next, 'ok');
  assert.equal(slots.running, 0);
});

test('0 leaves reads unbounded', async () => {
  const slots = createReadSlots(0);
  const started: number[] = [];
  const reads = [1, 2, 3, 4, 5].map((n) => gated(started, n));
  const results = reads.map((r) => slots.run(r.fn));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(started, [1, 2, 3, 4, 5]);
  for (const r of reads) r.end();
  await Promise.all(results);
  assert.equal(slots.running, 0);
});

test('while an append runs (first), waiting reads wait; they start when it ends', async () => {
  const slots = createReadSlots(2);
  const started: number[] = [];
  const append = gated(started, 0);
  const appended = slots.first(append.fn);
  const reads = [1, 2].map((n) => gated(started, n));
  const results = reads.map((r) => slots.run(r.fn));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(started, [0], 'the append runs, the reads wait though slots are free');
  append.end();
  assert.equal(await appended, 0);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(started, [0, 1, 2]);
  // An append never waits for reads.
  const late = gated(started, 3);
  const lateDone = slots.first(late.fn);
  assert.deepEqual(started, [0, 1, 2, 3]);
  late.end();
  for (const r of reads) r.end();
  await Promise.all([lateDone, ...results]);
  assert.equal(slots.running, 0);
});
