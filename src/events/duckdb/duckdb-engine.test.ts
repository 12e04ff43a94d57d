/**
 * The DuckDB engine's own promises, beyond the contract: stored-id checks of many ids (the
 * range-bounded path) are exact, appends skip stored ids, a refused batch leaves nothing, click
 * batches are stored once by id and numbered, a click is found by id whatever its id spells, and a file an earlier
 * version made with a primary key is rebuilt without it, every row kept.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { DuckDBInstance } from '@duckdb/node-api';
import type { StoredEvent } from '../event-store.js';
import { contractEvent } from '../contract.js';
import { columnsOf, rowsOf } from '../batch/wide-rows.js';
import { clickIdOf } from '../../visitors/click-id.js';
import { eventsCsv } from '../upgrades/legacy-journal.js';
import { EVENT_COLUMNS, INTEGER_COLUMNS, NULLABLE_EVENT_COLUMNS } from '../column/column-engine.js';
import { openDuckDbEngine, type DuckDbEngine } from './duckdb-engine.js';

const T = Date.parse('2026-01-01T00:00:00Z');
const clicks = (n: number, from: number) =>
  Array.from({ length: n }, (_, i) => contractEvent('ws_e', 'lnk_e', { id: clickIdOf(T + from + i, i, 7), click_id: clickIdOf(T + from + i, i, 7), timestamp: T + from + i }));

test('stored ids: many at once are found exactly, unknown and non-ASCII ids are not', async () => {
  const engine = await openDuckDbEngine({ path: ':memory:' });
  try {
    const stored = clicks(40, 0);
    assert.equal(await engine.append(stored), 40);
    const unknown = [clickIdOf(T + 5, 99, 99), 'évt_ünknown', '\u{1F600}x', clickIdOf(T - 1000, 1, 1)];
    const found = await engine.existingIds([...unknown, ...stored.map((r) => r.id)]);
    assert.deepEqual([...found].sort(), stored.map((r) => r.id).sort());
    assert.deepEqual(await engine.existingIds([stored[3]!.id, 'nope']), [stored[3]!.id], 'the point look-up path');
  } finally {
    await engine.close();
  }
});

test('appends skip stored ids and duplicates within a batch; a refused batch leaves nothing', async () => {
  const engine = await openDuckDbEngine({ path: ':memory:' });
  try {
    const first = clicks(30, 0);
    await engine.append(first);
    const next = clicks(10, 100);
    assert.equal(await engine.append([...first.slice(0, 20), ...next, next[0]!]), 10);
    const [row] = await engine.query({ text: 'select count(*) as n from events', params: [] });
    assert.equal(Number(row!.n), 40);

    const broken = { ...clicks(1, 500)[0]!, workspace_id: null } as unknown as StoredEvent;
    await assert.rejects(engine.append([...clicks(5, 400), broken]));
    const [after] = await engine.query({ text: 'select count(*) as n from events', params: [] });
    assert.equal(Number(after!.n), 40, 'nothing of the refused batch');
  } finally {
    await engine.close();
  }
});

const count = async (engine: DuckDbEngine) => Number((await engine.query({ text: 'select count(*) as n from events', params: [] }))[0]!.n);

test('click batches: appended once by batch id, numbered in commit order, read back after a watermark, forgotten when counted and old', async () => {
  const engine = await openDuckDbEngine({ path: ':memory:' });
  try {
    const a = clicks(10, 0);
    assert.deepEqual(await engine.appendClicks('b1', columnsOf(a)), { seq: 1, duplicate: false });
    assert.deepEqual(await engine.appendClicks('b1', columnsOf(a)), { seq: 1, duplicate: true }, 'the same batch id again adds nothing');
    const b = clicks(5, 1000);
    assert.deepEqual(await engine.appendClicks('b2', columnsOf(b)), { seq: 2, duplicate: false });
    assert.equal(await count(engine), 15);

    // A refused batch leaves neither rows nor its id, and no gap in the numbers.
    const broken = { ...clicks(1, 5000)[0]!, workspace_id: null } as unknown as StoredEvent;
    await assert.rejects(engine.appendClicks('b3', columnsOf([...clicks(3, 4000), broken])));
    assert.equal(await count(engine), 15);
    assert.deepEqual(await engine.appendClicks('b3', columnsOf(clicks(3, 4000))), { seq: 3, duplicate: false });

    const after1 = await engine.batchLog.after(1);
    assert.deepEqual(after1.map((x) => [x.seq, x.clicks.length]), [[2, 5], [3, 3]]);
    assert.deepEqual(rowsOf(after1[0]!.clicks).map((r) => r.id), b.map((r) => r.id));
    assert.equal(rowsOf(after1[0]!.clicks)[0]!.link_id, 'lnk_e');

    assert.equal(await engine.batchLog.forget(2, Date.now() - 60_000), 0, 'recent batches are kept');
    assert.equal(await engine.batchLog.forget(2, Date.now() + 1), 2);
    assert.deepEqual((await engine.batchLog.after(0)).map((x) => x.seq), [3], 'uncounted batches are never forgotten');
    assert.equal(await count(engine), 18, 'forgetting a batch keeps its events');
  } finally {
    await engine.close();
  }
});

test('eventById: a click is found through the time its id spells, and one whose id spells another time everywhere', async () => {
  const engine = await openDuckDbEngine({ path: ':memory:' });
  try {
    const own = clicks(3, 0);
    // An imported click: its id has the form of ours, but spells a time years away from its timestamp.
    const importedId = clickIdOf(T - 5 * 365 * 86_400_000, 1, 2);
    const imported = contractEvent('ws_e', 'lnk_e', { id: importedId, click_id: importedId, timestamp: T + 50 });
    const other = contractEvent('ws_e', 'lnk_e', { id: 'evt_other_form', timestamp: T + 60 });
    await engine.append([...own, imported, other]);
    for (const e of [...own, imported, other]) assert.equal((await engine.eventById(e.id))?.timestamp, e.timestamp, e.id);
    assert.equal(await engine.eventById(clickIdOf(T, 5, 5)), undefined);
    const keys = await engine.storedEvents([own[0]!, { ...imported }, { id: 'nope', workspace_id: 'ws_e', timestamp: T }]);
    assert.deepEqual([...keys].sort(), [own[0]!.id, importedId].sort());
  } finally {
    await engine.close();
  }
});

test('a file made with the primary key of an earlier version is rebuilt without it and with workspace keys, every row kept, once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-duck-pk-'));
  const path = join(dir, 'events.duckdb');
  try {
    // The table as the earlier version created it, with rows out of time order.
    const rows = [...clicks(20, 500), ...clicks(20, 0)];
    const file = join(dir, 'rows.csv');
    writeFileSync(file, eventsCsv(rows));
    const instance = await DuckDBInstance.create(path);
    const c = await instance.connect();
    const typed = (col: string) => (INTEGER_COLUMNS.has(col) ? 'BIGINT' : 'VARCHAR');
    const columns = EVENT_COLUMNS.map((col) => `"${col}" ${typed(col)}${col === 'id' ? ' PRIMARY KEY' : NULLABLE_EVENT_COLUMNS.has(col) ? '' : ' NOT NULL'}`);
    await c.run(`CREATE TABLE events (${columns.join(', ')})`);
    await c.run(`INSERT INTO events SELECT * FROM read_csv('${file}', header = false, nullstr = '\\N', columns = {${EVENT_COLUMNS.map((col) => `'${col}': '${typed(col)}'`).join(', ')}})`);
    c.closeSync();
    instance.closeSync();

    const logged: string[] = [];
    const engine = await openDuckDbEngineWithLog(path, logged);
    try {
      assert.equal(logged.length, 1, 'the rebuild is logged');
      assert.equal(await count(engine), 40);
      const keys = await engine.query({ text: `select count(*) as n from duckdb_constraints() where table_name = 'events' and constraint_type = 'PRIMARY KEY'`, params: [] });
      assert.equal(Number(keys[0]!.n), 0, 'no primary key left');
      const keyed = await engine.query({ text: `select count(distinct workspace_key) as n, count(*) filter (where workspace_key is null) as missing from events`, params: [] });
      assert.deepEqual([Number(keyed[0]!.n), Number(keyed[0]!.missing)], [1, 0], 'every row has its workspace key');
      const order = await engine.query({ text: 'select "timestamp" from events order by rowid', params: [] });
      const times = order.map((r) => Number(r.timestamp));
      assert.deepEqual(times, [...times].sort((x, y) => x - y), 'rows rewritten in time order');
      assert.equal(await engine.append(rows), 0, 'stored ids are still skipped');
    } finally {
      await engine.close();
    }
    const reopened: string[] = [];
    await (await openDuckDbEngineWithLog(path, reopened)).close();
    assert.deepEqual(reopened, [], 'nothing to rebuild the second time');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const openDuckDbEngineWithLog = (path: string, logged: string[]) => openDuckDbEngine({ path, log: (message) => logged.push(message) });

test('latestSummaryBucket: none at first, the newest expired hour after an expiry, read again at open', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-duck-sum-'));
  const path = join(dir, 'events.duckdb');
  try {
    const engine = await openDuckDbEngine({ path });
    assert.equal(engine.latestSummaryBucket!(), null);
    await engine.append([...clicks(3, 0), ...clicks(3, 5 * 3_600_000)]);
    assert.equal((await engine.expire(T + 2 * 3_600_000, 100)).count, 3);
    assert.equal(engine.latestSummaryBucket!(), T, 'the hour of the expired clicks');
    await engine.close();
    const again = await openDuckDbEngine({ path });
    assert.equal(again.latestSummaryBucket!(), T);
    await again.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('prepared reads: one text with other values answers for those values, and many texts keep working', async () => {
  const engine = await openDuckDbEngine({ path: ':memory:' });
  try {
    await engine.append([...clicks(3, 0), ...clicks(5, 10_000).map((e) => ({ ...e, workspace_id: 'ws_other' }))]);
    const countOf = async (ws: string) =>
      Number((await engine.query({ text: 'select count(*) as n from events where workspace_id = $1::VARCHAR', params: [{ type: 'text', value: ws }] }))[0]!.n);
    for (let i = 0; i < 3; i++) assert.deepEqual([await countOf('ws_e'), await countOf('ws_other'), await countOf('ws_none')], [3, 5, 0]);
    // More distinct texts than a connection keeps: the cache starts over, answers stay right.
    for (let i = 0; i < 300; i++) {
      const [row] = await engine.query({ text: `select count(*) + ${i} as n from events where "timestamp" >= $1::BIGINT`, params: [{ type: 'int', value: T + 10_000 }] });
      assert.equal(Number(row!.n), 5 + i);
    }
    assert.equal(await countOf('ws_other'), 5);
  } finally {
    await engine.close();
  }
});

test('close waits for reads in flight: closing a connection mid-query left the process unable to exit', async () => {
  // In a child process: the hang was in the process's exit, which waited forever on the thread
  // running the query.
  const dir = mkdtempSync(join(tmpdir(), 'waymark-duckdb-close-'));
  try {
    const script = join(dir, 'close.mts');
    writeFileSync(
      script,
      `import { openDuckDbEngine } from ${JSON.stringify(resolve('src/events/duckdb/duckdb-engine.ts'))};
import { contractEvent } from ${JSON.stringify(resolve('src/events/contract.ts'))};
const engine = await openDuckDbEngine({ path: ':memory:' });
const T = ${T};
await engine.append(Array.from({ length: 20000 }, (_, i) => contractEvent('ws_c', 'lnk_c', { id: 'evt_' + i, click_id: 'evt_' + i, timestamp: T + i })));
// A read of a few hundred ms, closed while it runs.
const reading = engine.query({ text: 'SELECT sum(length(e.id) + r.range) AS n FROM events e, range(400) r', params: [] });
await new Promise((r) => setTimeout(r, 20));
await engine.close();
const rows = await reading.then((r) => r.length, (err) => 'refused: ' + err.message);
const late = await engine.query({ text: 'SELECT 1', params: [] }).then(() => 'answered', (err) => err.message);
console.log(JSON.stringify({ rows, late }));
process.exit(0);
`,
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    const killer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
    clearTimeout(killer);
    assert.equal(signal, null, `the child ended by ${signal} (SIGKILL: no exit within 90 s) after ${JSON.stringify(out)}`);
    assert.equal(code, 0);
    assert.deepEqual(JSON.parse(out), { rows: 1, late: 'the DuckDB event store is closed' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('click batches under ids with quotes are stored once, and a failed commit call leaves no open transaction', async () => {
  const engine = await openDuckDbEngine({ path: ':memory:' });
  try {
    // The id goes into SQL text (BEGIN and the look-up in one call): a quote must stay a quote.
    assert.deepEqual(await engine.appendClicks("it's-1", columnsOf(clicks(4, 0))), { seq: 1, duplicate: false });
    assert.deepEqual(await engine.appendClicks("it's-1", columnsOf(clicks(4, 0))), { seq: 1, duplicate: true });
    assert.deepEqual(await engine.appendClicks("x'); DROP TABLE events; --", columnsOf(clicks(2, 100))), { seq: 2, duplicate: false });
    assert.equal(await count(engine), 6);
    // A refused batch rolls back; the next one starts a transaction of its own and commits.
    const broken = { ...clicks(1, 500)[0]!, workspace_id: null } as unknown as StoredEvent;
    await assert.rejects(engine.appendClicks('b-bad', columnsOf([broken])));
    assert.deepEqual(await engine.appendClicks('b-next', columnsOf(clicks(3, 900))), { seq: 3, duplicate: false });
    assert.equal(await count(engine), 9);
    assert.deepEqual((await engine.batchLog.after(0)).map((b) => [b.seq, b.batchId, b.clicks.length]), [[1, "it's-1", 4], [2, "x'); DROP TABLE events; --", 2], [3, 'b-next', 3]]);
  } finally {
    await engine.close();
  }
});

test('the log is checkpointed beside the appends once past checkpointMb, every batch kept, without a call to checkpoint()', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-beside-'));
  const file = join(dir, 'events.duckdb');
  const walBytes = () => (existsSync(`${file}.wal`) ? statSync(`${file}.wal`).size : 0);
  const engine = await openDuckDbEngine({ path: file, checkpointMb: 1 });
  try {
    let peak = 0;
    let fell = false;
    // Batches of 500 clicks with long agents, ~0.2 MB of log each: past 1 MB within a few.
    for (let b = 0; b < 40 && !fell; b++) {
      const rows = clicks(500, b * 1000).map((r, i) => ({ ...r, ua: `agent ${b}-${i} ${'z'.repeat(300)}` }));
      assert.deepEqual(await engine.appendClicks(`beside-${b}`, columnsOf(rows)), { seq: b + 1, duplicate: false });
      const wal = walBytes();
      if (wal < peak) fell = true;
      peak = Math.max(peak, wal);
    }
    // Let a checkpoint still running finish, then the log is below what it reached.
    for (let i = 0; i < 200 && !fell; i++) {
      await new Promise((r) => setTimeout(r, 25));
      if (walBytes() < peak) fell = true;
    }
    assert.ok(peak >= 1024 * 1024, `the log passed 1 MB (${peak} bytes)`);
    assert.ok(fell, 'a checkpoint beside the appends shrank the log');
    assert.ok(peak < 4 * 1024 * 1024 + 512 * 1024, `DuckDB's own backstop (4 MB) was not what checkpointed (${peak} bytes)`);
    const batches = await engine.batchLog.after(0);
    assert.equal(batches.reduce((n, b) => n + b.clicks.length, 0), await count(engine), 'every batch whole');
  } finally {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a file whose click_batches has the primary key of an earlier version opens without it, every batch kept and found again', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-unkey-'));
  const file = join(dir, 'events.duckdb');
  try {
    const first = await openDuckDbEngine({ path: file });
    assert.deepEqual(await first.appendClicks('old-1', columnsOf(clicks(3, 0))), { seq: 1, duplicate: false });
    await first.close();
    // The earlier layout: the same rows under `seq BIGINT PRIMARY KEY`.
    const instance = await DuckDBInstance.create(file);
    const c = await instance.connect();
    await c.run('CREATE TABLE kb AS SELECT * FROM click_batches; DROP TABLE click_batches');
    await c.run('CREATE TABLE click_batches (seq BIGINT PRIMARY KEY, batch_id VARCHAR NOT NULL, appended_at BIGINT NOT NULL, clicks BIGINT NOT NULL)');
    await c.run('INSERT INTO click_batches SELECT * FROM kb; DROP TABLE kb; CHECKPOINT');
    c.closeSync();
    instance.closeSync();

    const engine = await openDuckDbEngine({ path: file });
    try {
      const keys = await engine.query({ text: "SELECT count(*) AS n FROM duckdb_constraints() WHERE table_name = 'click_batches' AND constraint_type = 'PRIMARY KEY'", params: [] });
      assert.equal(Number(keys[0]!.n), 0, 'no key left');
      assert.deepEqual(await engine.appendClicks('old-1', columnsOf(clicks(3, 0))), { seq: 1, duplicate: true }, 'the batch is still known');
      assert.deepEqual(await engine.appendClicks('new-2', columnsOf(clicks(2, 100))), { seq: 2, duplicate: false });
      assert.equal(await count(engine), 5);
    } finally {
      await engine.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
