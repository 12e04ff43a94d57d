/**
 * Room for DuckDB's writes on a full volume (disk-room.ts): the log's budget follows the free
 * space, a write without room is refused before DuckDB sees it, and, on a real small tmpfs (root
 * only), the engine refuses appends while the disk is full without ever invalidating its
 * instance, and appends again once space returns.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { contractEvent } from '../contract.js';
import { clickIdOf } from '../../visitors/click-id.js';
import { mountSmallDisk, smallDiskUnavailable } from '../../test-support/small-disk.js';
import { createDiskRoom, isNoSpace, MIN_FREE_BYTES, walBudgetMb } from './disk-room.js';
import { openDuckDbEngine } from './duckdb-engine.js';

const MB = 1024 * 1024;

test('the log budget is a quarter of the free space, within 1 and 256 MB', () => {
  assert.equal(walBudgetMb(0), 1);
  assert.equal(walBudgetMb(3 * MB), 1);
  assert.equal(walBudgetMb(40 * MB), 10);
  assert.equal(walBudgetMb(1024 * MB), 256);
  assert.equal(walBudgetMb(100 * 1024 * MB), 256);
  // The engine's own threshold (DUCKDB_CHECKPOINT_MB) caps it instead.
  assert.equal(walBudgetMb(100 * 1024 * MB, 64), 64);
  assert.equal(walBudgetMb(40 * MB, 64), 10);
});

test('with room on the disk the budget stays at the engine threshold: nothing is set; a fuller disk lowers it', async () => {
  let free = 100 * 1024 * MB;
  const budgets: number[] = [];
  const room = createDiskRoom({ dir: '/data', freeBytes: () => free, setBudget: async (mb) => void budgets.push(mb), maxBudgetMb: 64 });
  await room.before();
  assert.deepEqual(budgets, [], 'the instance opened at 64 MB: not raised to 256');
  free = 100 * MB;
  await room.before();
  free = 100 * 1024 * MB;
  await room.before();
  assert.deepEqual(budgets, [25, 64], 'back to the threshold, not above it');
});

test('no-space errors are recognised in Node, DuckDB and SQLite wordings, nothing else', () => {
  assert.ok(isNoSpace(Object.assign(new Error('write failed'), { code: 'ENOSPC' })));
  assert.ok(isNoSpace(new Error('TransactionContext Error: Failed to commit: Could not write file "/d/e.duckdb.wal": No space left on device')));
  assert.ok(isNoSpace(Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' })));
  assert.ok(!isNoSpace(new Error('Constraint Error: duplicate key')));
  assert.ok(!isNoSpace(undefined));
});

test('a write is refused below the minimum free space, and the budget is set only when it changes', async () => {
  let free = 200 * MB;
  const budgets: number[] = [];
  const room = createDiskRoom({ dir: '/data', freeBytes: () => free, setBudget: async (mb) => void budgets.push(mb) });
  await room.before();
  await room.before();
  assert.deepEqual(budgets, [50]);
  free = MIN_FREE_BYTES - 1;
  await assert.rejects(room.before(), (err) => isNoSpace(err) && (err as { code?: string }).code === 'ENOSPC');
  assert.deepEqual(budgets, [50], 'a refused write sets nothing');
  free = 8 * MB;
  await room.before();
  assert.deepEqual(budgets, [50, 2]);
  assert.equal(room.fits(3 * MB), true);
  assert.equal(room.fits(5 * MB), false, 'a checkpoint of a 5 MB log does not fit in 8 MB with the 4 MB reserve');
  const memory = createDiskRoom({ dir: undefined, freeBytes: () => 0, setBudget: async () => assert.fail('no budget in memory') });
  await memory.before();
  assert.equal(memory.fits(1e12), true);
});

const skip = smallDiskUnavailable();
test('on a full tmpfs the engine refuses appends, stays usable, and appends again once space returns', { skip, timeout: 120_000 }, async () => {
  const disk = mountSmallDisk(24);
  const T = Date.parse('2026-01-01T00:00:00Z');
  const rows = (n: number, from: number) =>
    Array.from({ length: n }, (_, i) => contractEvent('ws_d', 'lnk_d', { id: clickIdOf(T + from + i, i, 3), click_id: clickIdOf(T + from + i, i, 3), timestamp: T + from + i }));
  const engine = await openDuckDbEngine({ path: join(disk.dir, 'e.duckdb') });
  try {
    assert.equal(await engine.append(rows(2_000, 0)), 2_000);
    const filler = disk.fill();
    await assert.rejects(engine.append(rows(2_000, 10_000)), isNoSpace);
    await assert.rejects(engine.checkpoint().then(() => engine.append(rows(10, 20_000))), isNoSpace, 'no checkpoint is tried on a full disk');
    const count = async () => Number((await engine.query({ text: 'SELECT count(*) AS n FROM events', params: [] }))[0]!.n);
    assert.equal(await count(), 2_000, 'reads go on while full');
    filler.free();
    assert.equal(await engine.append(rows(2_000, 10_000)), 2_000, 'the instance was not invalidated');
    await engine.checkpoint();
    assert.equal(await count(), 4_000);
  } finally {
    await engine.close();
    disk.unmount();
  }
});
