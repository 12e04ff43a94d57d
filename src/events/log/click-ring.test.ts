import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createClickRing, InternTable, intToIpv4, ipv4ToInt, NONE, ROW_BYTES } from './click-ring.js';
import type { RawClick } from './raw-click.js';
import { createRingReader } from './ring-reader.js';
import { clickIdOf, clickIdParts } from '../../visitors/click-id.js';

const T0 = 1_764_000_000_000;

function click(i: number, over: Partial<RawClick> = {}): RawClick & { r1: number; r2: number } {
  const r1 = (i * 7919) % 14_776_336;
  const r2 = (i * 104_729) % 916_132_832;
  const timestamp = T0 + i;
  return {
    id: clickIdOf(timestamp, r1, r2),
    timestamp,
    linkId: `link_${i % 3}`,
    workspaceId: 'ws_1',
    domain: 'go.test',
    key: `k${i % 3}`,
    url: `https://example.com/${i % 5}`,
    ip: `10.0.${i % 256}.${i % 200}`,
    ua: `agent ${i % 4}`,
    referer: i % 2 ? 'https://google.com/' : '',
    qr: i % 3 === 0,
    geo: i % 4 === 0 ? { country: 'FR', city: 'Paris', region: 'FR-IDF', continent: 'EU' } : null,
    r1,
    r2,
    ...over,
  };
}

const plain = ({ r1: _r1, r2: _r2, ...c }: ReturnType<typeof click>): RawClick => c;

test('click ring: rows cross to the reader in place, equal to what was written, across a wrap-around', () => {
  const ring = createClickRing({ capacity: 8, clickIdOf });
  const reader = createRingReader(ring.buffer, clickIdOf);
  assert.equal(ring.buffer.byteLength, 8 * ROW_BYTES);
  let tail = 0;
  const written: RawClick[] = [];
  // Three batches of 5 rows through 8 slots: the second and third wrap around the end.
  for (let b = 0; b < 3; b++) {
    const from = ring.head;
    for (let i = 0; i < 5; i++) {
      const c = click(b * 5 + i, b === 2 && i === 4 ? { ip: '2001:db8::1', referer: 'https://news.example/a' } : {});
      assert.notEqual(ring.write(c, c.r1, c.r2, tail), undefined);
      written.push(plain(c));
    }
    const batch = ring.batch(from, ring.head);
    assert.deepEqual(reader.read(batch), written.slice(from, ring.head));
    tail = ring.head; // committed
  }
  assert.equal(ring.head, 15);
  // The redirect side spells a row back too (spills, a lead naming a pending click).
  assert.deepEqual(ring.read(14), written[14]);
  assert.equal(ring.find(written[13]!.id, 8, 15), 13);
  assert.equal(ring.find('0000000000000000', 8, 15), undefined);
});

test('click ring: a full ring refuses a row until the tail (the last commit) moves', () => {
  const ring = createClickRing({ capacity: 4, clickIdOf });
  for (let i = 0; i < 4; i++) {
    const c = click(i);
    assert.equal(ring.write(c, c.r1, c.r2, 0), i);
  }
  const extra = click(4);
  assert.equal(ring.write(extra, extra.r1, extra.r2, 0), undefined, 'full: nothing written');
  assert.equal(ring.head, 4);
  // The rows of the first batch are still readable: nothing was overwritten.
  assert.equal(ring.read(0).id, click(0).id);
  assert.equal(ring.write(extra, extra.r1, extra.r2, 1), 4, 'one row committed: one slot free');
  assert.equal(ring.read(4).id, extra.id);
});

test('intern table: bounded by entries and characters; new values reported once', () => {
  const t = new InternTable({ maxEntries: 3, maxChars: 10 });
  assert.equal(t.id('ab'), 0);
  assert.equal(t.id('ab'), 0);
  assert.equal(t.id('cdef'), 1);
  assert.deepEqual(t.takeEntries(), [0, 'ab', 1, 'cdef']);
  assert.deepEqual(t.takeEntries(), []);
  assert.equal(t.id('ghijk'), undefined, 'would hold 11 characters');
  assert.equal(t.id('g'), 2);
  assert.equal(t.id('h'), undefined, 'a fourth value');
  assert.equal(t.size, 3);
  assert.equal(t.heldChars, 7);
  t.reset();
  assert.equal(t.size, 0);
  assert.equal(t.heldChars, 7, 'the previous generation is still held');
  assert.equal(t.value(1, false), 'cdef', 'and still spelled');
  t.reset();
  assert.equal(t.heldChars, 0, 'two generations at most');
});

test('click ring: a flood of distinct user agents starts new generations, never more than two live, and memory stays bounded', () => {
  const tables = { ua: { maxEntries: 16, maxChars: 4096 } };
  const ring = createClickRing({ capacity: 8, clickIdOf, tables });
  const reader = createRingReader(ring.buffer, clickIdOf);
  let tail = 0;
  let maxBytes = 0;
  for (let b = 0; b < 50; b++) {
    const from = ring.head;
    const rows: RawClick[] = [];
    for (let i = 0; i < 6; i++) {
      const c = click(b * 6 + i, { ua: `flood agent ${b * 6 + i} ${'x'.repeat(20)}` });
      assert.notEqual(ring.write(c, c.r1, c.r2, tail), undefined);
      rows.push(plain(c));
    }
    assert.deepEqual(reader.read(ring.batch(from, ring.head)), rows, `batch ${b}: every agent spelled right across generations`);
    tail = ring.head;
    maxBytes = Math.max(maxBytes, ring.heldBytes());
  }
  assert.ok(ring.generation >= 15, `generations: ${ring.generation}`);
  assert.equal(ring.notInterned, 0);
  // Rows, plus at most the bounded text of each table (6 tables; ua at most 16 values here).
  assert.ok(maxBytes <= 8 * ROW_BYTES + 2 * (16 * 40 + 5 * 64 * 20), `held ${maxBytes} B`);
});

test('click ring: when no new generation may begin (the one before still uncommitted), the value is not interned and the click still stored', () => {
  const ring = createClickRing({ capacity: 64, clickIdOf, tables: { ua: { maxEntries: 2 } } });
  const reader = createRingReader(ring.buffer, clickIdOf);
  const rows: RawClick[] = [];
  // Nothing committed (tail 0): generation 1 may begin (generation 0 has no predecessor), generation 2 may not.
  for (let i = 0; i < 6; i++) {
    const c = click(i, { ua: `agent ${i}` });
    ring.write(c, c.r1, c.r2, 0);
    rows.push(plain(c));
  }
  assert.equal(ring.generation, 1);
  assert.equal(ring.notInterned, 2);
  const read = reader.read(ring.batch(0, ring.head));
  assert.deepEqual(read.map((r) => r.ua), ['agent 0', 'agent 1', 'agent 2', 'agent 3', '', '']);
  assert.deepEqual(read.map((r) => r.id), rows.map((r) => r.id));
});

test('click ring: a batch sent again (a retry) reads the same rows', () => {
  const ring = createClickRing({ capacity: 8, clickIdOf });
  const reader = createRingReader(ring.buffer, clickIdOf);
  const c = click(1);
  ring.write(c, c.r1, c.r2, 0);
  const batch = ring.batch(0, 1);
  const first = reader.read(batch);
  assert.deepEqual(reader.read(structuredClone(batch)), first);
  assert.deepEqual(first, [plain(c)]);
});

test('addresses: IPv4 as an integer both ways; anything else is not one; click ids split into their parts', () => {
  assert.equal(ipv4ToInt('1.2.3.4'), 0x01020304);
  assert.equal(intToIpv4(ipv4ToInt('255.255.255.255')!), '255.255.255.255');
  for (const bad of ['1.2.3', '1.2.3.4.5', '256.1.1.1', '1..2.3', '::1', '1.2.3.4 ', '']) assert.equal(ipv4ToInt(bad), undefined, bad);
  assert.equal(NONE, 0xffffffff);
  const id = clickIdOf(T0, 123, 456_789);
  assert.deepEqual(clickIdParts(id), [T0, 123, 456_789]);
  assert.equal(clickIdParts('c1'), undefined);
  assert.equal(clickIdParts('!!!!!!!!!!!!!!!!'), undefined);
});

test('click ring: rows written with the redirect\'s agent ids read the same agents as by text, across ring generations and agent epochs', () => {
  // Small bounds on both sides: the ring's user-agent table starts new generations, the agent
  // table (redirect/agents.ts, modelled here: text → id, starting over when full) new epochs.
  const ring = createClickRing({ capacity: 16, clickIdOf, tables: { ua: { maxEntries: 5, maxChars: 4096 } } });
  const reader = createRingReader(ring.buffer, clickIdOf);
  let agentIds = new Map<string, number>();
  let epoch = 0;
  const agentOf = (ua: string): number => {
    let id = agentIds.get(ua);
    if (id === undefined) {
      if (agentIds.size >= 7) {
        agentIds = new Map();
        epoch++;
      }
      agentIds.set(ua, (id = agentIds.size));
    }
    return id;
  };
  let tail = 0;
  for (let b = 0; b < 40; b++) {
    const from = ring.head;
    const rows: RawClick[] = [];
    for (let i = 0; i < 8; i++) {
      const n = b * 8 + i;
      // A few agents recur, new ones keep coming: both tables fill and start over.
      const c = click(n, { ua: n % 3 === 0 ? `agent new ${n}` : `agent ${n % 4}` });
      assert.notEqual(ring.write(c, c.r1, c.r2, tail, agentOf(c.ua), epoch), undefined);
      rows.push(plain(c));
    }
    assert.deepEqual(reader.read(ring.batch(from, ring.head)), rows, `batch ${b}`);
    for (let seq = from; seq < ring.head; seq++) assert.equal(ring.read(seq).ua, rows[seq - from]!.ua);
    tail = ring.head;
  }
  assert.ok(ring.generation >= 10, `ring generations: ${ring.generation}`);
  assert.ok(epoch >= 10, `agent epochs: ${epoch}`);
  assert.equal(ring.notInterned, 0);
});

test('click ring: an agent id is a hint for one epoch only: the same id of another epoch is read by its text', () => {
  const ring = createClickRing({ capacity: 8, clickIdOf });
  const reader = createRingReader(ring.buffer, clickIdOf);
  const a = click(1, { ua: 'first agent' });
  const b = click(2, { ua: 'second agent' });
  ring.write(a, a.r1, a.r2, 0, 0, 0);
  ring.write(b, b.r1, b.r2, 0, 0, 1); // id 0 again, of epoch 1: another agent
  ring.write(a, a.r1, a.r2, 0, 0, 0); // an overflowed row of epoch 0 arriving late
  const rows = reader.read(ring.batch(0, ring.head));
  assert.deepEqual(rows.map((r) => r.ua), ['first agent', 'second agent', 'first agent']);
});
