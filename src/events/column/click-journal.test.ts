/**
 * The click journal and its feed (click-journal.ts, journal-feed.ts), on the metadata engine
 * under test: a batch is counted once however the process stops, its journal row goes only once
 * the link counters include it and the column store holds it, and the feed's appends and
 * catch-ups add every click to DuckDB exactly once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestApp } from '../../test-support/harness.js';
import { createLinkCounters } from '../../links/counters.js';
import { contractEvent } from '../contract.js';
import { openDuckDbEngine } from '../duckdb/engine.js';
import { createClickJournal, mergeBumps } from './click-journal.js';
import { createJournalFeed } from './journal-feed.js';
import { eventsCsv } from './csv.js';

const T = Date.parse('2026-03-01T10:00:00Z');

async function fixture() {
  const t = await createTestApp({ config: { eventsUrl: 'sql' } });
  const res = await t.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/journal', key: `j${Date.now()}` } });
  assert.equal(res.statusCode, 200, res.body);
  const linkId: string = res.json().id;
  const dir = mkdtempSync(join(tmpdir(), 'waymark-journal-'));
  const counters = createLinkCounters(t.database.dialect);
  const journal = (now = () => T) => createClickJournal({ db: t.database.db, counters, dir, now });
  const clicks = (n: number, from: number) => Array.from({ length: n }, (_, i) => contractEvent(t.workspaceId, linkId, { timestamp: T + from + i }));
  const link = () => t.database.db.selectFrom('links').select(['clicks', 'last_clicked']).where('id', '=', linkId).executeTakeFirstOrThrow();
  const usage = async () => Number((await t.database.db.selectFrom('workspaces').select('usage').where('id', '=', t.workspaceId).executeTakeFirstOrThrow()).usage);
  const rows = () => t.database.db.selectFrom('click_journal').select(['seq', 'counted', 'stored']).orderBy('seq').execute();
  return {
    t, linkId, dir, journal, clicks, link, usage, rows,
    close: async () => {
      await t.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

test('mergeBumps adds clicks per link and keeps the newest click', () => {
  assert.deepEqual(mergeBumps([[{ id: 'a', clicks: 2, lastClicked: 5 }], [{ id: 'a', clicks: 1, lastClicked: 3 }, { id: 'b', clicks: 1, lastClicked: 9 }]]), [
    { id: 'a', clicks: 3, lastClicked: 5 },
    { id: 'b', clicks: 1, lastClicked: 9 },
  ]);
});

test('a batch commits its journal row and the usage; the fold counts it; the row goes once counted and stored', async () => {
  const f = await fixture();
  try {
    const usage0 = await f.usage();
    const j = f.journal();
    await j.recover();
    const first = f.clicks(3, 0);
    const a = await j.write(first);
    const b = await j.write(f.clicks(2, 10));
    assert.ok(existsSync(a.file));
    assert.equal(readFileSync(a.file, 'utf8'), eventsCsv(first), 'the batch file is the batch as CSV');
    assert.ok(b.seq > a.seq);
    assert.equal(await f.usage(), usage0 + 5, 'usage counts in the batch transaction');
    assert.equal(Number((await f.link()).clicks), 0, 'link counters wait for the fold');
    assert.deepEqual((await f.rows()).map((r) => [Number(r.counted), Number(r.stored)]), [[0, 0], [0, 0]]);
    assert.equal(j.pending(), 0, 'nothing to count before the column store holds a batch');
    await j.fold();
    assert.equal(Number((await f.link()).clicks), 0, 'counters never run ahead of the stored events');

    j.stored([a.seq]);
    assert.equal(j.pending(), 1, 'an acknowledgement is work for the next fold');
    await j.fold();
    const counted = await f.link();
    assert.equal(Number(counted.clicks), 3, 'only the stored batch is counted');
    assert.equal(Number(counted.last_clicked), T + 2);
    assert.deepEqual((await f.rows()).map((r) => [Number(r.seq), Number(r.counted), Number(r.stored)]), [[b.seq, 0, 0]], 'counted and stored: gone; not stored: kept');
    assert.deepEqual((await j.existingClickIds([first[0]!.id, 'nope', ...f.clicks(0, 0).map((c) => c.id)])).length, 0, "batch a's ids are no longer the journal's");

    j.stored([b.seq]);
    await j.fold();
    assert.deepEqual(await f.rows(), []);
    assert.equal(Number((await f.link()).clicks), 5);
    assert.equal(Number((await f.link()).last_clicked), T + 11);
    await j.fold();
    assert.equal(Number((await f.link()).clicks), 5, 'nothing counted twice');
  } finally {
    await f.close();
  }
});

test('a restart counts what a crash left uncounted, once, and never reuses a batch number', async () => {
  const f = await fixture();
  try {
    const crashed = f.journal();
    await crashed.recover();
    const lost = f.clicks(4, 0);
    const written = await crashed.write(lost);
    // The process dies here: no fold, no acknowledgement.
    assert.deepEqual((await crashed.existingClickIds([lost[1]!.id, 'x'])), [lost[1]!.id], 'an uncertain batch is found in the journal');

    // A file whose row never committed (the process died between the two).
    const orphan = join(f.dir, 'clicks-1.csv');
    writeFileSync(orphan, eventsCsv(f.clicks(1, 50)));
    const next = f.journal(() => T - 60_000); // even with a clock that went back
    await next.recover();
    assert.equal(existsSync(orphan), false, 'recover deletes files no row names');
    assert.equal(existsSync(written.file), true);
    assert.equal(next.pending(), 0, 'not stored yet: nothing to count');
    const later = await next.write(f.clicks(1, 100));
    assert.ok(later.seq > written.seq, 'numbers continue after the journal');
    // The column store took both (the catch-up of the crashed run's batch), then this run dies before counting.
    next.stored([written.seq, later.seq]);
    await f.t.database.db.updateTable('click_journal').set({ stored: 1 }).execute();
    const third = f.journal();
    await third.recover();
    assert.equal(third.pending(), 2, 'stored and not counted: counted by the next fold');
    await third.fold();
    assert.equal(Number((await f.link()).clicks), 5);
    const again = f.journal();
    await again.recover();
    assert.equal(again.pending(), 0, 'counted batches are not counted again');
  } finally {
    await f.close();
  }
});

test('the feed gathers batches taken while an append runs into one statement', async () => {
  const f = await fixture();
  const calls: (string | readonly string[])[] = [];
  let release: () => void = () => undefined;
  const gate = new Promise<void>((r) => (release = r));
  const engine = { appendCsvFile: async (p: string | readonly string[]) => { calls.push(p); if (calls.length === 1) await gate; return 0; } };
  try {
    const j = f.journal(Date.now);
    await j.recover();
    const acked: number[] = [];
    const feed = createJournalFeed({ db: f.t.database.db, engine, dir: f.dir, acknowledge: (seqs) => acked.push(...seqs) });
    const batches = [];
    for (let i = 0; i < 4; i++) batches.push(await j.write(f.clicks(1, i)));
    feed.take(batches[0]);
    let settled = false;
    const first = feed.settled().then(() => (settled = true));
    for (const b of batches.slice(1)) feed.take(b);
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(settled, false, 'settled waits for the append under way');
    release();
    await first;
    await feed.settled();
    assert.deepEqual(calls, [[batches[0]!.file], batches.slice(1).map((b) => b.file)]);
    assert.deepEqual(acked, batches.map((b) => b.seq));
  } finally {
    await f.close();
  }
});

test('the feed appends each batch once, acknowledges it, and catches up what was never acknowledged', async () => {
  const f = await fixture();
  const engine = await openDuckDbEngine({ path: ':memory:' });
  try {
    const j = f.journal(Date.now);
    await j.recover();
    const acknowledged: number[] = [];
    const feed = createJournalFeed({ db: f.t.database.db, engine, dir: f.dir, acknowledge: (seqs) => { acknowledged.push(...seqs); j.stored(seqs); } });
    const count = async () => Number((await engine.query({ text: 'SELECT count(*) AS n FROM events', params: [] }))[0]!.n);

    const a = await j.write(f.clicks(3, 0));
    feed.take(a);
    await feed.settled();
    assert.equal(await count(), 3);
    assert.deepEqual(acknowledged, [a.seq]);
    assert.equal(existsSync(a.file), true, 'the file stays until its row goes');

    // A batch whose hand-over was lost (a crash before the append), and one already appended whose acknowledgement was lost.
    const b = await j.write(f.clicks(2, 10));
    const c = await j.write(f.clicks(2, 20));
    await engine.appendCsvFile(c.file!);
    await j.fold(); // counts a, the one acknowledged (b and c wait for theirs); a goes, with its file
    assert.equal(existsSync(a.file), false);
    assert.equal(await feed.catchUp(60_000), 0, 'young batches are left to their own hand-over');
    assert.equal(await feed.catchUp(0), 2);
    assert.equal(await count(), 7, 'each click once');
    assert.deepEqual(acknowledged.slice(1).sort(), [b.seq, c.seq].sort());
    await j.fold();
    assert.deepEqual(await f.rows(), []);
    assert.equal(existsSync(b.file) || existsSync(c.file), false, 'finished batches leave no file');
    assert.equal(await feed.catchUp(0), 0);
  } finally {
    await engine.close();
    await f.close();
  }
});
