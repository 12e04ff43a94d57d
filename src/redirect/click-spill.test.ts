import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeBytesOf, readSpillFile, replaySpilledClicks, spillDirFor, spillSharesVolume, SPILL_VOLUME_LOW_FREE_BYTES, warnOfSpillVolume, writeSpillFile, type ReplayOptions } from './click-spill.js';
import { localFilesFor } from '../db/open.js';
import type { RawClick } from '../events/index.js';

const click = (n: number): RawClick => ({
  id: `1BGXw4k${String(n).padStart(9, '0')}`,
  timestamp: 1_700_000_000_000 + n,
  linkId: 'link_1',
  workspaceId: 'ws_1',
  domain: 'go.test',
  key: 'k',
  url: 'https://example.com/?a=1',
  ip: `10.0.0.${n}`,
  ua: 'Mozilla/5.0',
  referer: '',
  qr: n % 2 === 0,
  geo: n === 1 ? { country: 'DE', region: 'DE-Hesse', city: 'Frankfurt', continent: 'EU' } : null,
});

/** An event log over a Set of stored ids, storing each batch id once; `failWrites` makes appends throw. */
function memorySink(stored = new Set<string>()) {
  const batches: string[][] = [];
  const batchIds = new Set<string>();
  const sink: ReplayOptions['log'] & { failWrites: boolean } = {
    failWrites: false,
    async appendRawClicks(batchId, batch) {
      if (sink.failWrites) throw new Error('database down');
      if (batchIds.has(batchId)) return;
      batchIds.add(batchId);
      batches.push(batch.map((c) => c.id));
      for (const c of batch) stored.add(c.id);
    },
    async existingClickIds(ids) {
      return ids.filter((id) => stored.has(id));
    },
  };
  return { sink, stored, batches };
}

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'waymark-spill-'));
}

test('a spill file holds the raw clicks as they were, private to its owner, and names its database', () => {
  const dir = join(tempDir(), 'spill');
  try {
    const clicks = [click(1), click(2), click(3)];
    const file = writeSpillFile(dir, 'sqlite:/data/w.db', clicks);
    assert.deepEqual(readdirSync(dir), [file.split('/').pop()], 'no .tmp left behind');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    assert.deepEqual(readSpillFile(file), { database: 'sqlite:/data/w.db', clicks });
  } finally {
    rmSync(join(dir, '..'), { recursive: true, force: true });
  }
});

test('replay writes the clicks not yet stored, in batches, skips those already stored, and deletes the file', async () => {
  const dir = tempDir();
  try {
    writeSpillFile(dir, 'db', [click(1), click(2), click(3), click(4), click(5)]);
    // The batch in flight at shutdown committed after all: two of its clicks are already stored.
    const { sink, stored, batches } = memorySink(new Set([click(2).id, click(3).id]));
    const result = await replaySpilledClicks({ dir, database: 'db', log: sink, batchRows: 2 });
    assert.deepEqual(result, { replayed: 1, kept: [], written: 3, alreadyStored: 2 });
    assert.deepEqual(batches, [[click(1).id], [click(4).id], [click(5).id]]);
    assert.equal(stored.size, 5);
    assert.deepEqual(readdirSync(dir), []);
    // A second replay finds nothing to do.
    assert.deepEqual(await replaySpilledClicks({ dir, database: 'db', log: sink, batchRows: 2 }), { replayed: 0, kept: [], written: 0, alreadyStored: 0 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a file that fails to replay, is malformed or belongs to another database is kept', async () => {
  const dir = tempDir();
  const errors: string[] = [];
  const onError = (_err: unknown, context: string) => void errors.push(context);
  try {
    const ours = writeSpillFile(dir, 'db', [click(1)], 1);
    const other = writeSpillFile(dir, 'other-db', [click(2)], 2);
    const truncated = join(dir, 'clicks-3-1-1.jsonl');
    writeFileSync(truncated, `${JSON.stringify({ format: 'waymark-click-spill', version: 1, database: 'db', pid: 1, createdAt: 3, count: 2 })}\n${JSON.stringify(click(3))}\n`);
    const hostile = join(dir, 'clicks-4-1-1.jsonl');
    writeFileSync(hostile, `${JSON.stringify({ format: 'waymark-click-spill', version: 1, database: 'db', pid: 1, createdAt: 4, count: 1 })}\n${JSON.stringify({ ...click(4), id: "x'; drop table events" })}\n`);
    writeFileSync(join(dir, 'clicks-5-1-1.jsonl.tmp'), 'half a file');

    const down = memorySink();
    down.sink.failWrites = true;
    const failed = await replaySpilledClicks({ dir, database: 'db', log: down.sink, batchRows: 10, onError });
    assert.deepEqual(failed.kept.sort(), [ours, other, truncated, hostile].sort());
    assert.equal(failed.replayed, 0);

    const up = memorySink();
    const again = await replaySpilledClicks({ dir, database: 'db', log: up.sink, batchRows: 10, onError });
    assert.equal(again.replayed, 1);
    assert.deepEqual([...up.stored], [click(1).id]);
    assert.deepEqual(readdirSync(dir).sort(), ['clicks-3-1-1.jsonl', 'clicks-4-1-1.jsonl', 'clicks-5-1-1.jsonl.tmp', other.split('/').pop()!].sort());
    assert.ok(errors.some((e) => e.includes('belongs to other-db')));
    assert.ok(errors.some((e) => e.includes('clicks-3-1-1.jsonl')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the spill folder: CLICK_SPILL_DIR, else beside the SQLite file, else ./data/click-spill; none in memory', () => {
  assert.equal(spillDirFor('/var/spill', localFilesFor('file:/data/w.db')), '/var/spill');
  assert.equal(spillDirFor(undefined, localFilesFor('file:/data/w.db')), '/data/click-spill');
  assert.equal(spillDirFor(undefined, localFilesFor('postgres://u:p@db:5432/app')), join(process.cwd(), 'data', 'click-spill'));
  assert.equal(spillDirFor(undefined, localFilesFor(':memory:')), undefined);
});

test('a spill folder on the data volume is named (a folder not made yet by its nearest parent); one on another volume is not', () => {
  const dir = mkdtempSync(join(tmpdir(), 'spill-volume-'));
  try {
    const data = join(dir, 'waymark.db');
    writeFileSync(data, '');
    assert.equal(spillSharesVolume(join(dir, 'click-spill', 'not-yet'), [undefined, data]), data);
    // /proc is a volume of its own on Linux.
    if (process.platform === 'linux' && statSync('/proc').dev !== statSync(dir).dev) assert.equal(spillSharesVolume('/proc/self', [data]), undefined);
    assert.equal(spillSharesVolume(join(dir, 'x'), []), undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the start warns of a spill folder on the data volume only when that volume runs low on space', () => {
  // The default layout (click-spill/ beside the SQLite file) and the deploy docs' one share a
  // volume: with room to spare, no warning on every start.
  assert.equal(warnOfSpillVolume('/var/lib/waymark/waymark.db', 50 * 1024 ** 3), false);
  assert.equal(warnOfSpillVolume('/var/lib/waymark/waymark.db', SPILL_VOLUME_LOW_FREE_BYTES - 1), true);
  assert.equal(warnOfSpillVolume('/var/lib/waymark/waymark.db', undefined), true, 'free space unknown: warned');
  assert.equal(warnOfSpillVolume(undefined, 0), false, 'another volume: never');
  const free = freeBytesOf(join(tmpdir(), 'not-made-yet', 'click-spill'));
  assert.ok(typeof free === 'number' && free >= 0, 'read from the nearest existing parent');
});
