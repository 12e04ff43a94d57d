import { test } from 'node:test';
import assert from 'node:assert/strict';
import { retryWhileBusy, transactionRetryingBusy } from './busy-retry.js';
import { sql } from 'kysely';
import { openTestDatabase } from '../test-support/harness.js';

const busy = () => Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
const isBusy = (err: unknown) => (err as { code?: string }).code === 'SQLITE_BUSY';

/** A clock that moves only when the retry sleeps. */
function fakeTime() {
  let t = 0;
  const waits: number[] = [];
  return { waits, now: () => t, sleep: async (ms: number) => void (waits.push(ms), (t += ms)), random: () => 1 };
}

test('busy answers are waited out with a doubling pause up to 2 s; the work runs until it succeeds', async () => {
  const clock = fakeTime();
  let calls = 0;
  const told: number[] = [];
  const result = await retryWhileBusy(
    async () => {
      if (++calls <= 8) throw busy();
      return 'done';
    },
    { isBusy, ...clock, onWait: (ms) => told.push(ms) },
  );
  assert.equal(result, 'done');
  assert.equal(calls, 9);
  assert.deepEqual(clock.waits, [50, 100, 200, 400, 800, 1600, 2000, 2000]);
  assert.deepEqual(told, clock.waits);
});

test('another error is thrown at once; a busy one after maxWaitMs of retrying', async () => {
  const clock = fakeTime();
  let calls = 0;
  await assert.rejects(retryWhileBusy(async () => { calls++; throw new Error('constraint'); }, { isBusy, ...clock }), /constraint/);
  assert.equal(calls, 1);
  assert.deepEqual(clock.waits, []);

  const slow = fakeTime();
  await assert.rejects(retryWhileBusy(async () => { throw busy(); }, { isBusy, maxWaitMs: 5_000, ...slow }), (err: unknown) => isBusy(err));
  assert.equal(slow.waits.reduce((a, b) => a + b, 0), 5_000, 'it waited exactly the allowed time, the last pause cut short');
});

test('jitter keeps each pause between half and all of its step', async () => {
  const waits: number[] = [];
  let calls = 0;
  await retryWhileBusy(async () => { if (++calls < 4) throw busy(); }, { isBusy, random: () => 0, sleep: async (ms) => void waits.push(ms) });
  assert.deepEqual(waits, [25, 50, 100]);
});

test('a transaction refused as busy is rolled back and run again whole', async () => {
  const { database, dispose } = await openTestDatabase();
  try {
    const { db } = database;
    await sql`create table busy_probe (id text primary key)`.execute(db);
    let attempts = 0;
    await transactionRetryingBusy(db, async (trx) => {
      attempts++;
      await sql`insert into busy_probe (id) values ('one')`.execute(trx);
      if (attempts === 1) throw busy();
    }, { isBusy, sleep: async () => {} });
    assert.equal(attempts, 2);
    const { rows } = await sql<{ n: number }>`select count(*) as n from busy_probe`.execute(db);
    assert.equal(Number(rows[0]!.n), 1, 'the first attempt left nothing behind (else the second hit the primary key)');
  } finally {
    await database.close();
    await dispose();
  }
});
