/**
 * The upgrade from the previous version's click journal (journal-replay.ts): what a crash or a
 * stop left in `click_journal` and the batch folder is appended once and counted once, then the
 * table and the folder go; a second start finds nothing to do.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestApp } from '../../test-support/harness.js';
import { insertLink } from '../../redirect/testing.js';
import { contractEvent } from '../contract.js';
import { linkBumps } from '../counters.js';
import { clickIdOf } from '../../visitors/click-id.js';
import { openDuckDbEngine } from '../duckdb/duckdb-engine.js';
import { eventsCsv } from './legacy-journal.js';
import { replayClickJournal } from './journal-replay.js';

const T = Date.parse('2026-02-01T00:00:00Z');

test('a journal left by the previous version: batches not stored are appended once, batches not counted are counted once, then the journal goes', async () => {
  const t = await createTestApp();
  const dir = mkdtempSync(join(tmpdir(), 'waymark-journal-'));
  const eventFile = join(dir, 'w.events.duckdb');
  const batchDir = `${eventFile}.batches`;
  mkdirSync(batchDir);
  const engine = await openDuckDbEngine({ path: eventFile });
  try {
    const db = t.database.db;
    const link = await insertLink(db, t.workspaceId, { domain: 'go.test', key: 'journal', url: 'https://example.com/' });
    const clicks = (n: number, from: number) =>
      Array.from({ length: n }, (_, i) => contractEvent(t.workspaceId, String(link.id), { id: clickIdOf(T + from + i, i, 3), click_id: clickIdOf(T + from + i, i, 3), timestamp: T + from + i }));
    // 1: stored and counted (a row a crash left before its delete); 2: stored, not counted;
    // 3: counted, not stored; 4: neither (its append's acknowledgement was lost: half of it is in
    // DuckDB already); 5: neither, and its file is gone.
    const batches = [clicks(3, 0), clicks(4, 100), clicks(5, 200), clicks(6, 300), clicks(2, 400)];
    const flags = [[1, 1], [0, 1], [1, 0], [0, 0], [0, 0]];
    await engine.append([...batches[0]!, ...batches[1]!, ...batches[3]!.slice(0, 3)]);
    for (let i = 0; i < batches.length; i++) {
      const file = `clicks-${i + 1}.csv`;
      if (i !== 4) writeFileSync(join(batchDir, file), eventsCsv(batches[i]!));
      const [counted, stored] = flags[i]!;
      await db.withTables<{ click_journal: Record<string, unknown> }>().insertInto('click_journal')
        .values({ seq: i + 1, created_at: T, clicks: batches[i]!.length, file, bumps: JSON.stringify(linkBumps(batches[i]!)), counted, stored }).execute();
    }
    // What the previous version's folds had counted: batches 1 and 3.
    await db.updateTable('links').set({ clicks: 3 + 5 }).where('id', '=', String(link.id)).execute();

    const replayed = await replayClickJournal({ db, dialect: t.database.dialect, engine, eventFile });
    assert.deepEqual(replayed, { batches: 5, appended: 5 + 3, counted: 4 + 6, missingFiles: 1 });
    const stored = await engine.query({ text: "SELECT id, count(*) AS n FROM events WHERE kind = 'click' GROUP BY id", params: [] });
    assert.equal(stored.length, 3 + 4 + 5 + 6, 'every batch with a file, each click once');
    assert.ok(stored.every((r) => Number(r.n) === 1), 'nothing stored twice');
    const counter = await db.selectFrom('links').select('clicks').where('id', '=', String(link.id)).executeTakeFirstOrThrow();
    assert.equal(Number(counter.clicks), stored.length, 'the counter counts what is stored: each batch once, the lost file\'s not at all');
    assert.equal((await db.introspection.getTables()).some((x) => x.name === 'click_journal' && (!t.database.pgSchema || x.schema === t.database.pgSchema)), false, 'the journal table is dropped (PostgreSQL: from this test\'s schema; others run beside it)');
    assert.equal(existsSync(batchDir), false, 'the batch folder is removed');

    assert.equal(await replayClickJournal({ db, dialect: t.database.dialect, engine, eventFile }), null, 'a later start has nothing to do');
  } finally {
    await engine.close();
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
