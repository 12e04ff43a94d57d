import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createKeyedSerialQueue } from './serial.js';

const tick = () => new Promise((r) => setTimeout(r, 5));

test('tasks of one key run in order, after-work included; other keys do not wait', async () => {
  const log: string[] = [];
  const q = createKeyedSerialQueue(() => {});
  const a1 = q.run('a', async () => {
    log.push('a1');
    return {
      value: 1,
      after: async () => {
        await tick();
        log.push('a1-after');
      },
    };
  });
  const a2 = q.run('a', async () => {
    log.push('a2');
    return { value: 2 };
  });
  const b1 = q.run('b', async () => {
    log.push('b1');
    return { value: 3 };
  });
  assert.equal(await a1, 1); // resolves before its after-work finished
  assert.ok(!log.includes('a1-after'));
  assert.deepEqual(await Promise.all([a2, b1]), [2, 3]);
  assert.deepEqual(log.filter((l) => l.startsWith('a')), ['a1', 'a1-after', 'a2']);
  await q.drain();
  assert.equal(q.pending, 0);
});

test('a failing task rejects its caller only; a failing after-work is reported and the queue goes on', async () => {
  const reported: unknown[] = [];
  const q = createKeyedSerialQueue((_key, err) => reported.push(err));
  await assert.rejects(q.run('k', async () => { throw new Error('boom'); }), /boom/);
  const v = await q.run('k', async () => ({ value: 'x', after: async () => { throw new Error('later'); } }));
  assert.equal(v, 'x');
  assert.equal(await q.run('k', async () => ({ value: 'y' })), 'y');
  await q.drain();
  assert.equal((reported[0] as Error).message, 'later');
});
