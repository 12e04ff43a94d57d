import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createClickWriter, flushIntervalWithin, nextFlushDelay, type ClickAppender } from './click-writer.js';
import type { RawClick } from '../events/index.js';

function click(id: string): RawClick {
  return { id, timestamp: 1, linkId: 'link_1', workspaceId: 'ws_1', domain: 'go.test', key: 'k', url: 'https://example.com/', ip: '1.1.1.1', ua: '', referer: '', qr: false, geo: null };
}

/**
 * An event log recording batches, stored once by batch id as the real one does; `failNext` makes
 * the next appends throw, `loseNextAnswer` stores the next batch and then throws (a commit whose
 * answer was lost).
 */
function fakeLog() {
  const batches: string[][] = [];
  const stored = new Set<string>();
  const batchIds: string[] = [];
  const storedBatches = new Set<string>();
  let failures = 0;
  let lostAnswers = 0;
  let failWith: Error = new Error('database down');
  const log: ClickAppender & { batches: string[][]; stored: Set<string>; batchIds: string[]; failNext(n: number, err?: Error): void; loseNextAnswer(): void } = {
    batches,
    stored,
    batchIds,
    failNext(n, err = new Error('database down')) {
      failures = n;
      failWith = err;
    },
    loseNextAnswer() {
      lostAnswers++;
    },
    async appendRawClicks(batchId, batch) {
      await new Promise((r) => setImmediate(r));
      batchIds.push(batchId);
      if (failures > 0) {
        failures--;
        throw failWith;
      }
      if (storedBatches.has(batchId)) return;
      storedBatches.add(batchId);
      batches.push(batch.map((r) => r.id));
      for (const r of batch) stored.add(r.id);
      if (lostAnswers > 0) {
        lostAnswers--;
        throw new Error('the answer was lost');
      }
    },
  };
  return log;
}

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `cond` holds (timers run late on a loaded machine; no fixed sleeps in assertions). */
async function until(cond: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await wait(5);
  }
}

test('rows wait in memory until the interval, then go in one batch', async () => {
  const sink = fakeLog();
  const writer = createClickWriter({ log: sink, intervalMs: 30, maxRows: 100 });
  for (let i = 0; i < 5; i++) writer.push(click(`c${i}`));
  assert.equal(sink.batches.length, 0);
  assert.equal(writer.pending('c3')?.id, 'c3');
  await until(() => sink.batches.length === 1);
  assert.deepEqual(sink.batches, [['c0', 'c1', 'c2', 'c3', 'c4']]);
  assert.equal(writer.pending('c3'), undefined);
  assert.equal(writer.stats().flushed, 5);
  await writer.close();
});

test('maxRows triggers a flush at once and caps every batch', async () => {
  const sink = fakeLog();
  const writer = createClickWriter({ log: sink, intervalMs: 60_000, maxRows: 3 });
  for (let i = 0; i < 7; i++) writer.push(click(`c${i}`));
  await until(() => sink.batches.length >= 2);
  assert.deepEqual(sink.batches.slice(0, 2), [
    ['c0', 'c1', 'c2'],
    ['c3', 'c4', 'c5'],
  ]);
  await writer.close();
  assert.deepEqual(sink.batches.flat(), ['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6']);
  assert.ok(sink.batches.every((b) => b.length <= 3));
});

test('a failed flush keeps its rows (still findable) and retries them first', async () => {
  const sink = fakeLog();
  const errors: string[] = [];
  const writer = createClickWriter({ log: sink, intervalMs: 10, maxRows: 100, onError: (_e, ctx) => errors.push(ctx) });
  sink.failNext(2);
  writer.push(click('a'));
  writer.push(click('b'));
  await until(() => writer.stats().failures >= 1);
  assert.equal(sink.batches.length, 0);
  assert.equal(writer.pending('a')?.id, 'a');
  writer.push(click('c'));
  await until(() => sink.stored.size === 3);
  assert.deepEqual(sink.batches[0], ['a', 'b'], 'the kept batch goes again as it was, first');
  assert.deepEqual(sink.batches.flat(), ['a', 'b', 'c']);
  assert.ok(writer.stats().failures >= 2, `failures: ${writer.stats().failures}`);
  assert.ok(errors.some((e) => e.includes('keeping it for a retry')), errors.join('; '));
  await writer.close();
});

test('a batch whose store went unanswered is sent again under the same id, and stored once', async () => {
  const sink = fakeLog();
  const writer = createClickWriter({ log: sink, intervalMs: 10, maxRows: 100, onError: () => undefined });
  sink.loseNextAnswer();
  writer.push(click('a'));
  writer.push(click('b'));
  await writer.close();
  assert.deepEqual(sink.batches, [['a', 'b']]);
  assert.ok(sink.batchIds.length >= 2, 'sent again after the lost answer');
  assert.equal(new Set(sink.batchIds).size, 1, 'every attempt carries the batch id');
  assert.equal(writer.pending('a'), undefined);
  assert.equal(writer.stats().flushed, 2);
});

test('batch ids differ between batches and between writers', async () => {
  const sink = fakeLog();
  const one = createClickWriter({ log: sink, intervalMs: 60_000, maxRows: 1 });
  const two = createClickWriter({ log: sink, intervalMs: 60_000, maxRows: 1 });
  one.push(click('a'));
  one.push(click('b'));
  two.push(click('c'));
  await one.close();
  await two.close();
  assert.equal(sink.batches.length, 3);
  assert.equal(new Set(sink.batchIds).size, 3);
});

test('close() writes everything, retrying a failing database', async () => {
  const sink = fakeLog();
  const writer = createClickWriter({ log: sink, intervalMs: 60_000, maxRows: 1000 });
  for (let i = 0; i < 50; i++) writer.push(click(`c${i}`));
  sink.failNext(2);
  await writer.close();
  assert.equal(sink.stored.size, 50);
  assert.equal(writer.stats().buffered, 0);
});

test('a push after close() is still written (a request that was already in flight)', async () => {
  const sink = fakeLog();
  const writer = createClickWriter({ log: sink, intervalMs: 10, maxRows: 1000 });
  await writer.close();
  writer.push(click('late'));
  await until(() => sink.stored.has('late'));
  assert.ok(sink.stored.has('late'));
});

test('the buffer is bounded while the database is down: extra clicks are counted as dropped', async () => {
  const sink = fakeLog();
  sink.failNext(1000);
  const writer = createClickWriter({ log: sink, intervalMs: 60_000, maxRows: 1000, maxBuffered: 3 });
  for (let i = 0; i < 5; i++) writer.push(click(`c${i}`));
  assert.equal(writer.stats().dropped, 2);
  assert.equal(writer.stats().buffered, 3);
});

/** A log whose appends wait for `open()`: a database that is slow (or locked) for as long as the test wants. */
function gatedSink() {
  const sink = fakeLog();
  let gate: Promise<void> = new Promise(() => undefined);
  let openGate: () => void = () => undefined;
  const close = () => {
    gate = new Promise<void>((r) => (openGate = r));
  };
  close();
  const append = sink.appendRawClicks;
  sink.appendRawClicks = async (batchId, batch) => {
    await gate;
    return append(batchId, batch);
  };
  return Object.assign(sink, { open: () => openGate(), close });
}

const stamped = (id: string) => ({ ...click(id), timestamp: Date.now() });

test('past maxLagMs the answers of new clicks wait until the writer has caught up', async () => {
  const sink = gatedSink();
  const writer = createClickWriter({ log: sink, intervalMs: 10, maxRows: 100, maxLagMs: 40, maxHoldMs: 60_000 });
  writer.push(stamped('a'));
  assert.equal(writer.holding, false);
  await until(() => writer.holding); // 'a' is still being written 40 ms later
  writer.push(stamped('b'));
  let answered = false;
  writer.holdAnswer(() => (answered = true));
  await wait(30);
  assert.equal(answered, false, 'held while the oldest uncommitted click is past the bound');
  sink.open();
  await until(() => answered);
  // Once every click is committed nothing is uncommitted, so nothing is held. (Checked right after
  // the answer, 'b' could itself be 40 ms old on a loaded machine and hold again.)
  await writer.flush();
  assert.equal(writer.holding, false);
  assert.ok(sink.stored.has('a'));
  assert.equal(writer.stats().held, 1);
  assert.equal(writer.stats().heldTooLong, 0);
  await writer.close();
});

test('without maxLagMs (0) nothing is ever held', async () => {
  const sink = gatedSink();
  const writer = createClickWriter({ log: sink, intervalMs: 10, maxRows: 100 });
  writer.push({ ...click('a'), timestamp: Date.now() - 60_000 });
  await wait(30);
  assert.equal(writer.holding, false);
  let answered = false;
  writer.holdAnswer(() => (answered = true));
  assert.equal(answered, true);
  sink.open();
  await writer.close();
});

test('an answer is held at most maxHoldMs; a failing database is not waited for at all', async () => {
  const sink = gatedSink();
  const writer = createClickWriter({ log: sink, intervalMs: 10, maxRows: 100, maxLagMs: 20, maxHoldMs: 50, onError: () => undefined });
  writer.push(stamped('a'));
  await until(() => writer.holding);
  let answered = false;
  writer.holdAnswer(() => (answered = true));
  await until(() => answered);
  assert.equal(writer.holding, true, 'still behind: the next answer is held again');
  assert.equal(writer.stats().heldTooLong, 1);

  // The write fails: answers go out at once while the database fails.
  sink.failNext(1000);
  sink.open();
  await until(() => writer.stats().failures > 0);
  await until(() => !writer.holding);
  let second = false;
  writer.holdAnswer(() => (second = true));
  assert.equal(second, true);
  sink.failNext(0);
  await writer.close();
  assert.ok(sink.stored.has('a'));
});

test('close() sends held answers at once, writes until its deadline and spills the rest, the batch in flight included', async () => {
  const sink = gatedSink();
  const spilled: string[][] = [];
  const writer = createClickWriter({ log: sink, intervalMs: 10, maxRows: 2, maxLagMs: 20, maxHoldMs: 60_000, spill: (rows) => void spilled.push(rows.map((r) => r.id)) });
  for (const id of ['a', 'b', 'c']) writer.push(stamped(id));
  await until(() => writer.holding);
  let answered = false;
  writer.holdAnswer(() => (answered = true));
  const started = Date.now();
  const closing = writer.close({ deadline: Date.now() + 100 });
  assert.equal(answered, true, 'held answers go out when the shutdown begins');
  assert.equal(writer.holding, false);
  await closing;
  assert.ok(Date.now() - started < 2_000, 'close() keeps to its deadline');
  assert.deepEqual(spilled, [['a', 'b', 'c']]);
  assert.equal(writer.stats().spilled, 3);
  assert.equal(writer.stats().lost, 0);
  // The batch in flight commits after all: the spill file's replay skips it (click-spill.ts).
  sink.open();
  assert.equal(writer.spillNow(), 0, 'nothing is spilled twice');
});

test('spillNow() writes every row in memory to the spill once; without a spill they count as lost at close', async () => {
  const sink = gatedSink();
  const spilled: string[][] = [];
  const writer = createClickWriter({ log: sink, intervalMs: 10, maxRows: 100, spill: (rows) => void spilled.push(rows.map((r) => r.id)) });
  writer.push(click('a'));
  await until(() => writer.stats().buffered === 1 && writer.pending('a') !== undefined);
  await wait(20); // 'a' is in flight
  writer.push(click('b'));
  assert.equal(writer.spillNow(), 2);
  assert.equal(writer.spillNow(), 0);
  assert.deepEqual(spilled, [['a', 'b']]);

  const lost = createClickWriter({ log: gatedSink(), intervalMs: 10, maxRows: 100, onError: () => undefined });
  lost.push(click('x'));
  await lost.close({ deadline: Date.now() + 50 });
  assert.equal(lost.stats().lost, 1);
});

test('the next flush is due an interval after its oldest click, not after the write that ended', () => {
  const base = { intervalMs: 100, failures: 0, full: false, holding: false };
  // Clicks that waited 70 ms behind a write go 30 ms later; those that waited the interval or more, at once.
  assert.equal(nextFlushDelay({ ...base, oldestAgeMs: 70 }), 30);
  assert.equal(nextFlushDelay({ ...base, oldestAgeMs: 100 }), 0);
  assert.equal(nextFlushDelay({ ...base, oldestAgeMs: 450 }), 0);
  // A fresh click waits the whole interval; a clock set back never makes it wait longer.
  assert.equal(nextFlushDelay({ ...base, oldestAgeMs: 0 }), 100);
  assert.equal(nextFlushDelay({ ...base, oldestAgeMs: -5_000 }), 100);
  // A full batch and held answers go at once, whatever the age.
  assert.equal(nextFlushDelay({ ...base, oldestAgeMs: 1, full: true }), 0);
  assert.equal(nextFlushDelay({ ...base, oldestAgeMs: 1, holding: true }), 0);
  // Failures back off, doubling up to 2 s, even for old clicks.
  assert.equal(nextFlushDelay({ ...base, oldestAgeMs: 500, failures: 1 }), 200);
  assert.equal(nextFlushDelay({ ...base, oldestAgeMs: 500, failures: 3 }), 800);
  assert.equal(nextFlushDelay({ ...base, oldestAgeMs: 500, failures: 9 }), 2_000);
});

test('the interval leaves the lag bound room for twice the slowest recent write, within [100 ms, the setting]', () => {
  // Fast writes: the setting.
  assert.equal(flushIntervalWithin({ intervalMs: 200, maxLagMs: 250, slowestWriteMs: 10 }), 200);
  assert.equal(flushIntervalWithin({ intervalMs: 100, maxLagMs: 250, slowestWriteMs: 0 }), 100);
  // Slower writes shorten it: 250 - 2 × 40 - 20.
  assert.equal(flushIntervalWithin({ intervalMs: 200, maxLagMs: 250, slowestWriteMs: 40 }), 150);
  // Never below 100 ms (more commits would slow the writes further), nor above a setting below that.
  assert.equal(flushIntervalWithin({ intervalMs: 200, maxLagMs: 250, slowestWriteMs: 90 }), 100);
  assert.equal(flushIntervalWithin({ intervalMs: 200, maxLagMs: 250, slowestWriteMs: 500 }), 100);
  assert.equal(flushIntervalWithin({ intervalMs: 20, maxLagMs: 250, slowestWriteMs: 500 }), 20);
  // Without a lag bound, the setting whatever the writes.
  assert.equal(flushIntervalWithin({ intervalMs: 200, maxLagMs: 0, slowestWriteMs: 500 }), 200);
});

test('a writer whose writes are slow flushes sooner than its interval, so its clicks commit within the lag bound', async () => {
  const written: number[] = [];
  const log: ClickAppender = {
    async appendRawClicks(_id, rows) {
      // Each write takes 60 ms: the interval becomes max(100, 250 - 2 × 60 - 20) = 110 ms instead of a minute.
      await new Promise((r) => setTimeout(r, 60));
      written.push((rows as readonly RawClick[]).length);
    },
  };
  const writer = createClickWriter({ log, intervalMs: 60_000, maxRows: 2, maxLagMs: 250 });
  // A full batch goes at once, and times the write.
  writer.push(click('a'));
  writer.push(click('b'));
  while (written.length < 1) await new Promise((r) => setTimeout(r, 5));
  const started = Date.now();
  writer.push(click('c'));
  while (written.length < 2) await new Promise((r) => setTimeout(r, 5));
  assert.deepEqual(written, [2, 1]);
  assert.ok(Date.now() - started < 30_000, `the lone click waited ${Date.now() - started} ms: the interval of the setting, not the one the lag bound leaves`);
  await writer.close();
});
