import { test } from 'node:test';
import assert from 'node:assert/strict';
import { admissionDelay, createApiAdmission, redirectsWaiting, type Bucket } from './api-admission.js';

const o = { ratePerSecond: 100, burst: 2 };

/** Redirects arriving every millisecond (with a utilisation of 1: a saturated loop), until stopped; resolves once sampled. */
async function saturate(admission: ReturnType<typeof createApiAdmission>): Promise<() => void> {
  admission.redirected();
  const every = setInterval(() => admission.redirected(), 1);
  await new Promise((r) => setTimeout(r, 30));
  return () => clearInterval(every);
}

test('no redirects waiting: every request starts at once, and the bucket refills meanwhile', () => {
  const bucket: Bucket = { tokens: 0, at: 0 };
  for (let i = 0; i < 50; i++) assert.equal(admissionDelay(bucket, i, false, o), 0);
  assert.equal(bucket.tokens, 2, 'refilled by the elapsed time up to the burst, none spent');
});

test('redirects waiting: a burst starts, then one request per 1/rate, the wait said in ms', () => {
  const bucket: Bucket = { tokens: 2, at: 0 };
  assert.equal(admissionDelay(bucket, 0, true, o), 0);
  assert.equal(admissionDelay(bucket, 0, true, o), 0);
  assert.equal(admissionDelay(bucket, 0, true, o), 10, 'the next token in 10 ms at 100/s');
  assert.equal(admissionDelay(bucket, 4, true, o), 6);
  assert.equal(admissionDelay(bucket, 10, true, o), 0);
  assert.equal(admissionDelay(bucket, 10, true, o), 10);
  // A long quiet stretch refills no more than the burst.
  assert.equal(admissionDelay(bucket, 10_000, true, o), 0);
  assert.equal(admissionDelay(bucket, 10_000, true, o), 0);
  assert.ok(admissionDelay(bucket, 10_000, true, o) > 0);
});

test('rate 0 turns the admission off', () => {
  const bucket: Bucket = { tokens: 0, at: 0 };
  for (let i = 0; i < 10; i++) assert.equal(admissionDelay(bucket, 0, true, { ratePerSecond: 0, burst: 1 }), 0);
});

test('redirects are waiting only while the loop is saturated and redirects came in', () => {
  assert.equal(redirectsWaiting(0.95, 10, 0.9), true);
  assert.equal(redirectsWaiting(0.95, 0, 0.9), false, 'a loop busy with API work alone admits it');
  assert.equal(redirectsWaiting(0.5, 1000, 0.9), false, 'redirects with room to spare');
});

test('the gate: an idle loop starts requests at once; close starts what waits', () => {
  const admission = createApiAdmission({ ratePerSecond: 1, burst: 1, sampleMs: 10_000 });
  const started: number[] = [];
  for (let i = 0; i < 3; i++) admission.admit(() => started.push(i));
  assert.deepEqual(started, [0, 1, 2], 'no saturation sampled: nothing deferred');
  assert.equal(admission.stats().deferred, 0);
  admission.close();
});

test('the gate under saturation: the burst starts, the rest wait in order and all start (by the rate or the wait limit)', async () => {
  const admission = createApiAdmission({ ratePerSecond: 50, burst: 1, sampleMs: 20, maxWaitMs: 200, utilization: () => 1 });
  const stop = await saturate(admission);
  const started: number[] = [];
  const all = Array.from({ length: 4 }, (_, i) => new Promise<void>((r) => admission.admit(() => { started.push(i); r(); })));
  assert.deepEqual(started, [0], 'one token: the first starts at once');
  assert.equal(admission.stats().waiting, 3);
  await Promise.all(all);
  assert.deepEqual(started, [0, 1, 2, 3], 'in order');
  assert.equal(admission.stats().deferred, 3);
  stop();
  admission.close();
});

test('the gate: past maxQueued a request starts at once', async () => {
  const admission = createApiAdmission({ ratePerSecond: 1, burst: 1, sampleMs: 20, maxQueued: 1, maxWaitMs: 60_000, utilization: () => 1 });
  const stop = await saturate(admission);
  const started: number[] = [];
  for (let i = 0; i < 3; i++) admission.admit(() => started.push(i));
  assert.deepEqual(started, [0, 2], 'the first by its token, the third past the queue bound; the second waits');
  stop();
  admission.close();
  assert.deepEqual(started, [0, 2, 1], 'close starts what waits');
});
