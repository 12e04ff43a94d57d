import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createClickDeduplicator, type ClickDeduplicator } from './dedup.js';
import { clickIdOf, clickIdTime, newClickIdAt, randomClickParts, PART1_RANGE, PART2_RANGE } from '../visitors/click-id.js';
import { seededRandom } from '../test-support/seeded-random.js';

// User agents by their key in the agent table (agents.ts).
const CHROME = 0;
const IPHONE = 1;
const HOUR = 3_600_000;
const T0 = 1_763_000_000_000;

/** One check, read back as the answer it gives the redirect. */
function seenBy(dedup: ClickDeduplicator, linkId: string, ip: string, agent: number, now: number) {
  const isNew = dedup.check(linkId, ip, agent, now);
  return { clickId: dedup.clickId(), isNew };
}

test('click ids: 16 characters, time-ordered prefix that spells the millisecond, unique', () => {
  const a = newClickIdAt(T0);
  const b = newClickIdAt(T0 + 1);
  assert.match(a, /^[0-9A-Za-z]{16}$/);
  assert.ok(a.slice(0, 7) < b.slice(0, 7));
  assert.equal(clickIdTime(a), T0);
  assert.equal(clickIdTime(b), T0 + 1);
  const ids = new Set(Array.from({ length: 5000 }, () => newClickIdAt(T0)));
  assert.equal(ids.size, 5000);
});

test('click ids from parts: the extremes of both parts stay 16 characters and distinct', () => {
  assert.equal(clickIdOf(T0, 0, 0), `${clickIdOf(T0, 0, 0).slice(0, 7)}000000000`);
  assert.equal(clickIdOf(T0, PART1_RANGE - 1, PART2_RANGE - 1).slice(7), 'zzzzzzzzz');
  assert.notEqual(clickIdOf(T0, 1, 0), clickIdOf(T0, 0, 1));
  for (let i = 0; i < 1000; i++) {
    const [r1, r2] = randomClickParts();
    assert.ok(Number.isInteger(r1) && r1 >= 0 && r1 < PART1_RANGE);
    assert.ok(Number.isInteger(r2) && r2 >= 0 && r2 < PART2_RANGE);
  }
});

test('dedup: same link, IP and user agent within the hour reuse the click id', () => {
  const dedup = createClickDeduplicator();
  const first = seenBy(dedup, 'link_1', '1.1.1.1', CHROME, T0);
  assert.equal(first.isNew, true);
  assert.equal(clickIdTime(first.clickId), T0);
  assert.deepEqual(seenBy(dedup, 'link_1', '1.1.1.1', CHROME, T0 + HOUR - 1), { clickId: first.clickId, isNew: false });
  assert.equal(seenBy(dedup, 'link_1', '1.1.1.2', CHROME, T0 + 10).isNew, true, 'other IP');
  assert.equal(seenBy(dedup, 'link_1', '1.1.1.1', IPHONE, T0 + 10).isNew, true, 'other user agent');
  assert.equal(seenBy(dedup, 'link_2', '1.1.1.1', CHROME, T0 + 10).isNew, true, 'other link');
  assert.equal(seenBy(dedup, 'link_11', '.1.1.1', CHROME, T0 + 10).isNew, true, 'the parts are separated, not concatenated');
  const later = seenBy(dedup, 'link_1', '1.1.1.1', CHROME, T0 + HOUR);
  assert.equal(later.isNew, true, 'after an hour');
  assert.notEqual(later.clickId, first.clickId);
  assert.deepEqual(seenBy(dedup, 'link_1', '1.1.1.1', CHROME, T0 + HOUR + 5), { clickId: later.clickId, isNew: false }, 'the new click starts a new hour');
});

test('dedup: 100,000 distinct visitors are all new, then all repeats', () => {
  const dedup = createClickDeduplicator();
  const ids: string[] = [];
  for (let i = 0; i < 100_000; i++) {
    const r = seenBy(dedup, `link_${i % 1000}`, `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, CHROME, T0 + i);
    assert.equal(r.isNew, true);
    ids.push(r.clickId);
  }
  assert.equal(new Set(ids).size, 100_000);
  for (let i = 0; i < 100_000; i++) {
    const r = seenBy(dedup, `link_${i % 1000}`, `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, CHROME, T0 + 200_000);
    assert.equal(r.isNew, false);
    assert.equal(r.clickId, ids[i]);
  }
});

test('dedup: a full table gives the oldest visitor of the probed slots away; memory stays fixed', () => {
  // 4 slots searched 4 at a time: every key sees the whole table.
  const dedup = createClickDeduplicator({ slots: 4, probes: 4 });
  for (let i = 0; i < 4; i++) assert.equal(seenBy(dedup, 'link', `ip${i}`, CHROME, T0 + i).isNew, true);
  for (let i = 0; i < 4; i++) assert.equal(seenBy(dedup, 'link', `ip${i}`, CHROME, T0 + 10).isNew, false);
  assert.equal(seenBy(dedup, 'link', 'ip4', CHROME, T0 + 20).isNew, true);
  assert.equal(seenBy(dedup, 'link', 'ip0', CHROME, T0 + 21).isNew, true, 'the oldest (ip0) was replaced');
  assert.equal(seenBy(dedup, 'link', 'ip4', CHROME, T0 + 22).isNew, false);
  assert.equal(seenBy(dedup, 'link', 'ip2', CHROME, T0 + 23).isNew, false, 'newer visitors stayed');
});

test('dedup: click ids come from the injected random parts', () => {
  const dedup = createClickDeduplicator({ random: () => [1, 2] });
  assert.equal(seenBy(dedup, 'link', 'ip', CHROME, T0).clickId, clickIdOf(T0, 1, 2));
});

test('dedup: agrees with an exact model while the table has room, through expiries and reused slots', () => {
  const dedup = createClickDeduplicator({ slots: 4096, probes: 16 });
  const model = new Map<string, { at: number; clickId: string }>();
  // A fixed pseudo-random walk (mulberry32), so a failure can be replayed.
  const rand = seededRandom(42);
  let now = T0;
  for (let step = 0; step < 20_000; step++) {
    now += Math.floor(rand() * 2_000); // ~16 s a step on average: entries expire and slots are reused
    const visitor = Math.floor(rand() * 300);
    const ip = `10.0.${visitor >> 8}.${visitor & 255}`;
    const got = seenBy(dedup, `link_${visitor % 7}`, ip, CHROME, now);
    const key = `${visitor}`;
    const known = model.get(key);
    if (known && now - known.at < HOUR) {
      assert.deepEqual(got, { clickId: known.clickId, isNew: false }, `step ${step}: a repeat within the hour`);
    } else {
      assert.equal(got.isNew, true, `step ${step}: new or expired`);
      model.set(key, { at: now, clickId: got.clickId });
    }
  }
});

test('dedup: the result is read from the table, not an object: time and parts of the first click', () => {
  let n = 0;
  const dedup = createClickDeduplicator({ random: () => [++n, 100 + n] });
  assert.equal(dedup.check('link', '1.2.3.4', CHROME, T0), true);
  assert.deepEqual([dedup.time, dedup.part1, dedup.part2], [T0, 1, 101]);
  assert.equal(dedup.check('link', '1.2.3.5', CHROME, T0 + 7), true);
  assert.deepEqual([dedup.time, dedup.part1, dedup.part2], [T0 + 7, 2, 102]);
  assert.equal(dedup.check('link', '1.2.3.4', CHROME, T0 + 50), false);
  assert.deepEqual([dedup.time, dedup.part1, dedup.part2], [T0, 1, 101], 'the first click\'s, for a repeat');
  assert.equal(dedup.clickId(), clickIdOf(T0, 1, 101));
});

test('dedup: agents are told apart by their key, whole 32-bit values included', () => {
  const dedup = createClickDeduplicator();
  const keys = [0, 1, 2, 0x7fffffff, 0x80000000, 0xffffffff];
  for (const k of keys) assert.equal(dedup.check('link', '1.1.1.1', k, T0), true, `key ${k} is new`);
  for (const k of keys) assert.equal(dedup.check('link', '1.1.1.1', k, T0 + 1), false, `key ${k} repeats`);
});

test('dedup: IPv6 addresses and IPv4 integers are told apart; IPv6 by its full text', () => {
  const dedup = createClickDeduplicator();
  assert.equal(dedup.check('link', '2001:db8::1', CHROME, T0), true);
  assert.equal(dedup.check('link', '2001:db8::2', CHROME, T0), true, 'same /48, another address');
  assert.equal(dedup.check('link', '2001:db8::1', CHROME, T0 + 1), false);
  assert.equal(dedup.check('link', '0.0.0.0', CHROME, T0), true);
  assert.equal(dedup.check('link', '255.255.255.255', CHROME, T0), true);
  assert.equal(dedup.check('link', '0.0.0.0', CHROME, T0 + 1), false);
  assert.equal(dedup.check('link', '::ffff:1.2.3.4', CHROME, T0), true);
  assert.equal(dedup.check('link', '1.2.3.4', CHROME, T0), true, 'the mapped IPv6 form is another key');
});

test('dedup: visitors that share a slot are never taken for each other (one slot, one probe)', () => {
  // Every key lands in the only slot: each new visitor replaces the one before, none is a repeat of another.
  const dedup = createClickDeduplicator({ slots: 1, probes: 1 });
  const seen = new Set<string>();
  for (let i = 0; i < 500; i++) {
    const r = seenBy(dedup, `link_${i % 5}`, `10.0.${i >> 8}.${i & 255}`, i % 3, T0 + i);
    assert.equal(r.isNew, true, `visitor ${i} is new`);
    assert.ok(!seen.has(r.clickId));
    seen.add(r.clickId);
    assert.equal(seenBy(dedup, `link_${i % 5}`, `10.0.${i >> 8}.${i & 255}`, i % 3, T0 + i).isNew, false, 'the one in the slot repeats');
  }
});

test('dedup: a repeat expires at exactly the window, a repeat keeps the first click\'s time (it does not extend the window)', () => {
  const dedup = createClickDeduplicator({ windowMs: 1000 });
  assert.equal(dedup.check('link', '1.1.1.1', CHROME, T0), true);
  assert.equal(dedup.check('link', '1.1.1.1', CHROME, T0 + 600), false);
  assert.equal(dedup.check('link', '1.1.1.1', CHROME, T0 + 999), false);
  assert.equal(dedup.time, T0);
  assert.equal(dedup.check('link', '1.1.1.1', CHROME, T0 + 1000), true, 'a window after the first click, not after the repeat');
  assert.equal(dedup.time, T0 + 1000);
});
