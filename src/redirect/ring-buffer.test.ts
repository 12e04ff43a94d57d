import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createClickRing, createRingReader, type RawClick, type RingBatch } from '../events/index.js';
import { clickIdOf } from '../visitors/click-id.js';
import { createClickWriter } from './click-writer.js';
import { createRingBuffer } from './ring-buffer.js';

const T0 = 1_764_000_000_000;
let n = 0;
function click(now: number): RawClick {
  n++;
  return { id: clickIdOf(now, n, n * 3), timestamp: now, linkId: 'link_1', workspaceId: 'ws_1', domain: 'go.test', key: 'k', url: 'https://example.com/', ip: '10.1.2.3', ua: 'agent', referer: '', qr: false, geo: null };
}

/** A log thread stand-in: reads each batch from the ring in place; stores when `gate` allows. */
function fakeLog(buffer: SharedArrayBuffer) {
  const reader = createRingReader(buffer, clickIdOf);
  const stored = new Map<string, RawClick[]>();
  let gate: Promise<void> = Promise.resolve();
  let fail = 0;
  return {
    stored,
    ids: () => [...stored.values()].flat().map((c) => c.id),
    hold() {
      let open!: () => void;
      gate = new Promise((r) => (open = r));
      return () => open();
    },
    failNext: (count: number) => void (fail = count),
    async appendRawClicks(batchId: string, batch: RingBatch) {
      const rows = reader.read(batch);
      await gate;
      if (fail > 0) {
        fail--;
        throw new Error('database down');
      }
      stored.set(batchId, rows);
    },
  };
}

const setup = (capacity: number, options: { overflow?: number; maxLagMs?: number; now?: () => number; spill?: (rows: readonly RawClick[]) => void } = {}) => {
  const buffer = createRingBuffer(createClickRing({ capacity, clickIdOf }));
  const log = fakeLog(buffer.ring.buffer);
  const writer = createClickWriter<RawClick, RingBatch>({ log, buffer, intervalMs: 5, maxRows: 4, ...options });
  return { buffer, log, writer };
};

test('ring writer: the tail moves only after the commit; the same object may be pushed for every click', async () => {
  const { buffer, log, writer } = setup(16);
  assert.equal(writer.copiesRows, true);
  const release = log.hold();
  const scratch = click(T0);
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    Object.assign(scratch, click(T0 + i));
    ids.push(scratch.id);
    writer.push(scratch);
  }
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(buffer.inFlight, 3, 'sent to the log');
  assert.equal(buffer.tail, 0, 'not committed: still in memory');
  assert.equal(writer.pending(ids[1]!)?.id, ids[1]);
  release();
  await writer.flush();
  assert.equal(buffer.tail, 3);
  assert.deepEqual(log.ids(), ids);
  assert.equal(writer.pending(ids[1]!), undefined);
});

test('ring writer: a full ring holds answers until a commit makes room; no click is lost', async () => {
  const { buffer, log, writer } = setup(4, { overflow: 100 });
  const release = log.hold();
  for (let i = 0; i < 4; i++) writer.push(click(T0 + i));
  assert.equal(writer.holding, false, 'room left until now');
  writer.push(click(T0 + 4));
  assert.equal(writer.holding, true, 'the fifth click found the ring full');
  let answered = false;
  writer.holdAnswer(() => (answered = true));
  assert.equal(answered, false);
  assert.equal(writer.stats().buffered, 5);
  release();
  await writer.flush();
  assert.equal(answered, true);
  assert.equal(writer.holding, false);
  assert.equal(log.ids().length, 5);
  assert.equal(buffer.tail, 5);
  assert.equal(writer.stats().dropped, 0);
});

test('ring writer: beyond the ring and the overflow, clicks are dropped and counted', () => {
  const { writer } = setup(2, { overflow: 1 });
  for (let i = 0; i < 5; i++) writer.push(click(T0 + i));
  assert.equal(writer.stats().buffered, 3);
  assert.equal(writer.stats().dropped, 2);
});

test('ring writer: a failed batch is sent again with the same id and rows; the tail waits for it', async () => {
  const { buffer, log, writer } = setup(8);
  log.failNext(1);
  writer.push(click(T0));
  writer.push(click(T0 + 1));
  await assert.rejects(writer.flush());
  assert.equal(buffer.tail, 0);
  await writer.flush();
  assert.equal(log.stored.size, 1);
  assert.equal([...log.stored.values()][0]!.length, 2);
  assert.equal(buffer.tail, 2);
});

test('ring writer: at shutdown what is not committed is spilled from the ring, in order', async () => {
  const spilled: RawClick[] = [];
  const { log, writer } = setup(4, { overflow: 10, spill: (rows) => void spilled.push(...rows) });
  log.hold(); // never stored
  const pushed = Array.from({ length: 6 }, (_, i) => click(T0 + i));
  for (const c of pushed) writer.push(c);
  await writer.close({ deadline: Date.now() + 50 });
  assert.deepEqual(spilled, pushed);
  assert.equal(writer.stats().spilled, 6);
  assert.equal(writer.stats().lost, 0);
});

test('ring writer: the lag bound holds answers as with the array buffer', async () => {
  const { log, writer } = setup(16, { maxLagMs: 30 });
  const release = log.hold();
  writer.push(click(Date.now()));
  assert.equal(writer.holding, false);
  // The store takes no batch: once the oldest click is 30 ms old, answers are held.
  await new Promise((r) => setTimeout(r, 80));
  writer.push(click(Date.now()));
  assert.equal(writer.holding, true);
  release();
  await writer.flush();
  assert.equal(writer.holding, false);
  assert.equal(log.ids().length, 2);
});

test('ring buffer: a row with its click id\'s parts and agent id is written from them; a full ring overflows its copy, which keeps them', async () => {
  const { buffer, log, writer } = setup(2, { overflow: 10 });
  const release = log.hold();
  // One reused object, as the redirect pushes it (visit.ts): parts and agent as integers.
  const row: RawClick & { part1?: number; part2?: number; agent?: number; agentEpoch?: number } = { ...click(T0) };
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    row.timestamp = T0 + i;
    row.part1 = 100 + i;
    row.part2 = 200 + i;
    row.id = clickIdOf(row.timestamp, row.part1, row.part2);
    row.ua = i % 2 ? 'agent odd' : 'agent even';
    row.agent = i % 2;
    row.agentEpoch = 0;
    ids.push(row.id);
    writer.push(row);
  }
  // Two rows in the ring, three beside it (their answers held).
  assert.equal(buffer.ring.head, 2);
  assert.deepEqual(writer.pending(ids[4]!)?.ua, 'agent even');
  release();
  await writer.flush();
  await writer.flush();
  const stored = [...log.stored.values()].flat();
  assert.deepEqual(stored.map((c) => c.id), ids, 'each id spelled from the parts, in order, none twice');
  assert.deepEqual(stored.map((c) => c.ua), ['agent even', 'agent odd', 'agent even', 'agent odd', 'agent even']);
  await writer.close();
});
