import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createClickWriter, type ClickSink } from './click-writer.js';
import type { RawClick } from './click-record.js';

function click(id: string): RawClick {
  return { id, timestamp: 1, linkId: 'link_1', workspaceId: 'ws_1', domain: 'go.test', key: 'k', url: 'https://example.com/', ip: '1.1.1.1', ua: '', referer: '', qr: false, geo: null };
}

/** A sink recording batches; `failNext` makes the next writes throw. */
function fakeSink() {
  const batches: string[][] = [];
  const stored = new Set<string>();
  let failures = 0;
  let failWith: Error = new Error('database down');
  const sink: ClickSink & { batches: string[][]; stored: Set<string>; failNext(n: number, err?: Error): void } = {
    batches,
    stored,
    failNext(n, err = new Error('database down')) {
      failures = n;
      failWith = err;
    },
    async write(batch) {
      await new Promise((r) => setImmediate(r));
      if (failures > 0) {
        failures--;
        throw failWith;
      }
      batches.push(batch.map((r) => r.id));
      for (const r of batch) stored.add(r.id);
    },
    async existingClickIds(ids) {
      return ids.filter((id) => stored.has(id));
    },
  };
  return sink;
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
  const sink = fakeSink();
  const writer = createClickWriter({ sink, intervalMs: 30, maxRows: 100 });
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
  const sink = fakeSink();
  const writer = createClickWriter({ sink, intervalMs: 60_000, maxRows: 3 });
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
  const sink = fakeSink();
  const errors: string[] = [];
  const writer = createClickWriter({ sink, intervalMs: 10, maxRows: 100, onError: (_e, ctx) => errors.push(ctx) });
  sink.failNext(2);
  writer.push(click('a'));
  writer.push(click('b'));
  await until(() => writer.stats().failures >= 1);
  assert.equal(sink.batches.length, 0);
  assert.equal(writer.pending('a')?.id, 'a');
  writer.push(click('c'));
  await until(() => sink.batches.length > 0);
  assert.deepEqual(sink.batches.flat(), ['a', 'b', 'c']);
  assert.ok(writer.stats().failures >= 2);
  assert.ok(errors.some((e) => e.includes('keeping them')));
  await writer.close();
});

test('after a unique-key failure, rows an earlier attempt did store are dropped, the rest retried', async () => {
  const sink = fakeSink();
  const writer = createClickWriter({ sink, intervalMs: 10, maxRows: 100 });
  sink.stored.add('a'); // committed by an attempt whose answer was lost
  sink.failNext(1, Object.assign(new Error('UNIQUE constraint failed'), { code: 'SQLITE_CONSTRAINT_PRIMARYKEY' }));
  writer.push(click('a'));
  writer.push(click('b'));
  await writer.close();
  assert.deepEqual(sink.batches, [['b']]);
  assert.equal(writer.pending('a'), undefined);
});

test('close() writes everything, retrying a failing database', async () => {
  const sink = fakeSink();
  const writer = createClickWriter({ sink, intervalMs: 60_000, maxRows: 1000 });
  for (let i = 0; i < 50; i++) writer.push(click(`c${i}`));
  sink.failNext(2);
  await writer.close();
  assert.equal(sink.stored.size, 50);
  assert.equal(writer.stats().buffered, 0);
});

test('a push after close() is still written (a request that was already in flight)', async () => {
  const sink = fakeSink();
  const writer = createClickWriter({ sink, intervalMs: 10, maxRows: 1000 });
  await writer.close();
  writer.push(click('late'));
  await until(() => sink.stored.has('late'));
  assert.ok(sink.stored.has('late'));
});

test('the buffer is bounded while the database is down: extra clicks are counted as dropped', async () => {
  const sink = fakeSink();
  sink.failNext(1000);
  const writer = createClickWriter({ sink, intervalMs: 60_000, maxRows: 1000, maxBuffered: 3 });
  for (let i = 0; i < 5; i++) writer.push(click(`c${i}`));
  assert.equal(writer.stats().dropped, 2);
  assert.equal(writer.stats().buffered, 3);
});
