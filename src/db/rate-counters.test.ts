import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { openDatabase, type OpenDatabase } from './open.js';
import { openRateCounters, type RateCounters } from './rate-counters.js';
import { openTestDatabase, TEST_ENGINE } from '../test-support/harness.js';

let opened: Awaited<ReturnType<typeof openTestDatabase>>;
let counters: RateCounters;
before(async () => {
  opened = await openTestDatabase();
  counters = openRateCounters(opened.database);
});
after(async () => {
  await counters.close();
  await opened.database.close();
  await opened.dispose();
});

const ONLY_POSTGRES = TEST_ENGINE !== 'postgres' && 'PostgreSQL only: on SQLite one process owns the file and counts in memory';

test('hits are counted per key and window length, with the time left in the window', async () => {
  const counts = [];
  for (let i = 0; i < 3; i++) counts.push(await counters.hit('k:a', 60_000));
  assert.deepEqual(counts.map((c) => c.hits), [1, 2, 3]);
  for (const c of counts) assert.ok(c.resetInMs > 0 && c.resetInMs <= 60_000, String(c.resetInMs));
  assert.equal((await counters.hit('k:b', 60_000)).hits, 1, 'another key counts on its own');
  assert.equal((await counters.hit('k:a', 1_000)).hits, 1, 'another window length counts on its own');
});

test('a window that has ended starts over at 1', async () => {
  assert.equal((await counters.hit('k:short', 50)).hits, 1);
  // Sleeping longer than the window can only make it more certainly over.
  await sleep(120);
  assert.equal((await counters.hit('k:short', 50)).hits, 1);
});

test('concurrent hits are each counted once', async () => {
  const counts = await Promise.all(Array.from({ length: 40 }, () => counters.hit('k:burst', 60_000)));
  assert.deepEqual(counts.map((c) => c.hits).sort((a, b) => a - b), Array.from({ length: 40 }, (_, i) => i + 1));
});

test('undo takes back one hit of the current window, never below zero', async () => {
  await counters.hit('k:undo', 60_000);
  await counters.hit('k:undo', 60_000);
  await counters.undo('k:undo', 60_000);
  assert.equal((await counters.hit('k:undo', 60_000)).hits, 2);
  for (let i = 0; i < 5; i++) await counters.undo('k:undo', 60_000);
  assert.equal((await counters.hit('k:undo', 60_000)).hits, 1, 'not below zero');
  await counters.undo('k:undo', 1_000);
  assert.equal((await counters.hit('k:undo', 60_000)).hits, 2, 'another window length is another counter');
  await counters.undo('k:never', 60_000);
  assert.equal((await counters.hit('k:never', 60_000)).hits, 1, 'undoing a key never hit does nothing');
});

test('the memory counters forget the least recently counted key past maxKeys', async () => {
  const small = openRateCounters({}, { maxKeys: 2 });
  await small.hit('one', 60_000);
  await small.hit('one', 60_000);
  await small.hit('two', 60_000);
  await small.hit('three', 60_000);
  assert.equal((await small.hit('one', 60_000)).hits, 1);
  await small.close();
});

test('two pools on one PostgreSQL database (as two processes) count against the same key', { skip: ONLY_POSTGRES }, async () => {
  const second: OpenDatabase = await openDatabase(opened.database.url, { pgSchema: opened.database.pgSchema, migrate: false, poolSize: 4 });
  const other = openRateCounters(second);
  try {
    const seen = [];
    for (let i = 0; i < 6; i++) seen.push((await (i % 2 ? other : counters).hit('k:shared', 60_000)).hits);
    assert.deepEqual(seen, [1, 2, 3, 4, 5, 6]);
    const burst = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? other : counters).hit('k:shared-burst', 60_000)));
    assert.deepEqual(burst.map((c) => c.hits).sort((a, b) => a - b), Array.from({ length: 30 }, (_, i) => i + 1));
  } finally {
    await other.close();
    await second.close();
  }
});

test('the sweep deletes the rows of ended windows and keeps the others', { skip: ONLY_POSTGRES }, async () => {
  await counters.hit('k:ends', 50);
  await counters.hit('k:stays', 60_000);
  await sleep(120);
  await counters.sweep();
  const rows = await opened.database.db.selectFrom('rate_limit_counters').select('bucket').where('bucket', 'in', ['k:ends', 'k:stays']).execute();
  assert.deepEqual(rows.map((r) => r.bucket), ['k:stays']);
});
