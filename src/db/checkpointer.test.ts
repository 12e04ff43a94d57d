import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { startCheckpointer, type CheckpointReport } from './checkpointer.js';
import { HAS_THREAD_PRIORITIES, threadNices } from '../test-support/threads.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A connection in WAL mode that never checkpoints itself, with a table `t`, as the app's writers. */
function openWriter(file: string): SQLite.Database {
  const db = new SQLite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('wal_autocheckpoint = 0');
  db.exec('create table if not exists t (id integer primary key, v text)');
  return db;
}

/**
 * Waits for checkpoints reported by a checkpointer: `next()` resolves with the first report made
 * after it was called. Tests step with the checkpoints instead of sleeping, so a loaded machine
 * (the thread runs late) changes how long they take, not what they see.
 */
function checkpointReports() {
  let waiting: ((r: CheckpointReport) => void)[] = [];
  const all: CheckpointReport[] = [];
  return {
    all,
    onCheckpoint(report: CheckpointReport) {
      all.push(report);
      const ready = waiting;
      waiting = [];
      for (const resolve of ready) resolve(report);
    },
    /** The checkpoint thread does not keep the process alive; the timer here does, and bounds the wait. */
    next: () =>
      new Promise<CheckpointReport>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no checkpoint within 60 s')), 60_000);
        waiting.push((r) => {
          clearTimeout(timer);
          resolve(r);
        });
      }),
  };
}

/** 40 transactions of ~0.5 MB each on a connection that never checkpoints itself; `between` runs after each. */
async function writeLoad(file: string, between: () => Promise<unknown>): Promise<number> {
  const db = openWriter(file);
  const insert = db.prepare('insert into t (v) values (?)');
  const tx = db.transaction(() => {
    for (let i = 0; i < 500; i++) insert.run('x'.repeat(1000));
  });
  let largest = 0;
  for (let i = 0; i < 40; i++) {
    tx();
    largest = Math.max(largest, statSync(`${file}-wal`).size);
    await between();
  }
  db.close();
  return largest;
}

test('with the checkpoint thread, the log of a writer that never checkpoints stays small', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-ckpt-'));
  try {
    const alone = await writeLoad(join(dir, 'alone.db'), () => sleep(0));
    const file = join(dir, 'helped.db');
    new SQLite(file).pragma('journal_mode = WAL');
    const reports = checkpointReports();
    const checkpointer = startCheckpointer(file, { intervalMs: 20, startAboveBytes: 0, onError: (err) => assert.fail(String(err)), onCheckpoint: reports.onCheckpoint });
    // After each commit, wait for a checkpoint that copied the whole log: the next commit then
    // writes the log from its start.
    const helped = await writeLoad(file, async () => {
      const committed = performance.timeOrigin + performance.now();
      for (let r = await reports.next(); r.startedAt < committed || r.copiedFrames < r.logFrames; r = await reports.next());
    });
    await checkpointer.stop();
    await checkpointer.stop(); // stopping twice is harmless
    assert.ok(alone > 20 * 1024 * 1024, `without: ${alone} bytes of log`);
    // One transaction is ~0.5 MB of frames; the log never holds more than two of them.
    assert.ok(helped < 1.5 * 1024 * 1024, `with: ${helped} bytes of log, without: ${alone}`);
    assert.ok(reports.all.length >= 40);
    const check = new SQLite(file);
    assert.equal((check.prepare('select count(*) as n from t').get() as { n: number }).n, 20_000);
    check.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * A log grown past `walLimitBytes` while a reader held an old snapshot (so no checkpoint could
 * copy it all and no commit could start it over: what a steady stream of click batches does to a
 * PASSIVE-only checkpointer, where a commit always lands during the copy). Then the reader ends
 * and the checkpointer runs until it has copied everything. Returns its reports and the log's
 * size after one more commit.
 */
async function grownLog(file: string, walLimitBytes: number): Promise<{ reports: CheckpointReport[]; after: number }> {
  const db = openWriter(file);
  db.pragma(`journal_size_limit = ${walLimitBytes === Infinity ? -1 : walLimitBytes}`);
  const insert = db.prepare('insert into t (v) values (?)');
  const tx = db.transaction(() => {
    for (let i = 0; i < 500; i++) insert.run('x'.repeat(1000));
  });
  tx();
  const reader = new SQLite(file);
  reader.exec('begin');
  reader.prepare('select count(*) from t').get();
  const reports = checkpointReports();
  const checkpointer = startCheckpointer(file, { intervalMs: 10, startAboveBytes: 0, walLimitBytes, restartWaitMs: 10, onError: (err) => assert.fail(String(err)), onCheckpoint: reports.onCheckpoint });
  for (let i = 0; i < 10; i++) tx();
  assert.ok(statSync(`${file}-wal`).size > 4 * 1024 * 1024, 'the log grew while the reader held its snapshot');
  const grown = performance.timeOrigin + performance.now();
  for (let r = await reports.next(); r.startedAt < grown; r = await reports.next());
  reader.exec('commit');
  reader.close();
  // Until a checkpoint that began after the reader left has copied every frame back.
  const released = performance.timeOrigin + performance.now();
  for (let r = await reports.next(); r.startedAt < released || r.copiedFrames < r.logFrames; r = await reports.next());
  await checkpointer.stop();
  tx();
  const after = statSync(`${file}-wal`).size;
  db.close();
  return { reports: reports.all, after };
}

test('once the log passes the limit, the checkpointer restarts it, and the next commit starts it over', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-ckpt-'));
  try {
    const limit = 1024 * 1024;
    const bounded = await grownLog(join(dir, 'bounded.db'), limit);
    // While the reader held its snapshot, RESTART was tried and could not finish (busy); once it
    // was gone, one succeeded.
    assert.ok(bounded.reports.some((r) => r.restartTried && !r.restarted), 'a RESTART waited for the reader');
    assert.ok(bounded.reports.some((r) => r.restarted), 'a RESTART copied everything');
    // journal_size_limit trimmed the file when the commit started the log over: ~0.5 MB of frames
    // of that commit on top of at most the limit.
    assert.ok(bounded.after < limit + 1024 * 1024, `bounded: ${bounded.after} bytes of log after the next commit`);
    const passiveOnly = await grownLog(join(dir, 'passive.db'), Infinity);
    assert.equal(passiveOnly.reports.filter((r) => r.restartTried).length, 0, 'without a limit, only PASSIVE checkpoints');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the checkpoint thread runs at the nice value it is given', { skip: !HAS_THREAD_PRIORITIES && 'needs /proc/thread-self (Linux)' }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-ckpt-nice-'));
  const file = join(dir, 'nice.db');
  openWriter(file).close();
  // 8: no other thread of the test process runs at it.
  assert.equal(threadNices().includes(8), false);
  const checkpointer = startCheckpointer(file, { intervalMs: 50, startAboveBytes: 0, nice: 8 });
  try {
    // The thread lowers its priority first thing; give it a moment to start.
    for (let i = 0; i < 100 && !threadNices().includes(8); i++) await sleep(20);
    assert.equal(threadNices().filter((n) => n === 8).length, 1);
  } finally {
    await checkpointer.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  assert.equal(threadNices().includes(8), false, 'gone with the thread');
});

test('the thread starts only once the log holds more than startAboveBytes, and checkpoints from then on', { skip: !HAS_THREAD_PRIORITIES && 'needs /proc/thread-self (Linux)' }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-ckpt-lazy-'));
  const file = join(dir, 'lazy.db');
  const db = openWriter(file);
  const insert = db.prepare('insert into t (v) values (?)');
  const write = (rows: number) => db.transaction(() => {
    for (let i = 0; i < rows; i++) insert.run('x'.repeat(1000));
  })();
  const reports = checkpointReports();
  // The nice value marks the thread (no other thread of the test process runs at 9).
  assert.equal(threadNices().includes(9), false);
  const checkpointer = startCheckpointer(file, { intervalMs: 10, startAboveBytes: 1024 * 1024, nice: 9, onCheckpoint: reports.onCheckpoint });
  try {
    write(200); // ~250 KB of log
    await sleep(300); // 30 looks at the log
    assert.equal(threadNices().includes(9), false, 'no thread while the log is small');
    assert.equal(reports.all.length, 0);
    write(2000); // ~2.5 MB
    const first = await reports.next();
    assert.ok(first.logFrames * 4096 > 1024 * 1024, `the first checkpoint saw the grown log: ${first.logFrames} frames`);
    assert.equal(threadNices().filter((n) => n === 9).length, 1, 'one thread');
  } finally {
    await checkpointer.stop();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
  assert.equal(threadNices().includes(9), false, 'gone with the thread');
});

test('a checkpointer stopped before its thread started stops at once and never starts one', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-ckpt-never-'));
  const file = join(dir, 'never.db');
  const db = openWriter(file);
  const reports = checkpointReports();
  const checkpointer = startCheckpointer(file, { intervalMs: 5, startAboveBytes: 1024, onCheckpoint: reports.onCheckpoint });
  await checkpointer.stop();
  const insert = db.prepare('insert into t (v) values (?)');
  db.transaction(() => {
    for (let i = 0; i < 100; i++) insert.run('x'.repeat(1000));
  })();
  await sleep(100);
  assert.equal(reports.all.length, 0, 'no checkpoint after stop, though the log is over the threshold');
  db.close();
  rmSync(dir, { recursive: true, force: true });
});
