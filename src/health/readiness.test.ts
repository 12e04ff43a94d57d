import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createReadiness, readyAnswer, sharedProbe } from './readiness.js';

test('readyAnswer: 503 with the step while starting, 503 while stopping or without the database, else 200', () => {
  assert.deepEqual(readyAnswer({ kind: 'starting', phase: 'spill replay' }), { status: 503, body: { status: 'starting', phase: 'spill replay' } });
  assert.deepEqual(readyAnswer({ kind: 'stopping' }), { status: 503, body: { status: 'stopping' } });
  assert.deepEqual(readyAnswer({ kind: 'serving' }, false), { status: 503, body: { status: 'unavailable', reason: 'The database does not answer.' } });
  assert.deepEqual(readyAnswer({ kind: 'serving' }, true), { status: 200, body: { status: 'ready' } });
});

test('createReadiness: steps, then serving; a stop is final; a process built serving starts there', () => {
  const r = createReadiness();
  assert.deepEqual(r.state, { kind: 'starting', phase: 'starting' });
  r.enter('migrations');
  assert.deepEqual(r.state, { kind: 'starting', phase: 'migrations' });
  r.started();
  assert.deepEqual(r.state, { kind: 'serving' });
  r.enter('spill replay');
  assert.deepEqual(r.state, { kind: 'serving' }, 'no step after the start');
  r.stopping();
  r.started();
  assert.deepEqual(r.state, { kind: 'stopping' });
  assert.deepEqual(createReadiness('serving').state, { kind: 'serving' });
});

test('sharedProbe: one ping for probes that arrive together; false on failure or past the timeout; a hung ping is replaced once stale', async () => {
  let calls = 0;
  let behaviour: 'ok' | 'fail' | 'hang' = 'ok';
  let clock = 0;
  const probe = sharedProbe(
    () => {
      calls++;
      if (behaviour === 'ok') return new Promise((r) => setTimeout(r, 5));
      if (behaviour === 'fail') return Promise.reject(new Error('ECONNREFUSED'));
      return new Promise(() => {});
    },
    30,
    1_000,
    () => clock,
  );
  assert.deepEqual(await Promise.all([probe(), probe(), probe()]), [true, true, true]);
  assert.equal(calls, 1, 'shared');
  assert.equal(await probe(), true);
  assert.equal(calls, 2, 'a settled ping is not reused');

  behaviour = 'fail';
  assert.equal(await probe(), false);

  behaviour = 'hang';
  const before = calls;
  assert.equal(await probe(), false, 'timed out');
  assert.equal(await probe(), false);
  assert.equal(calls, before + 1, 'the hung ping is reused, not started again');
  clock += 1_001;
  behaviour = 'ok';
  assert.equal(await probe(), true, 'a fresh ping once the hung one is stale');
});
