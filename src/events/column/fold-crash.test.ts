/**
 * kill -9 around the fold, with the DuckDB event store (the default on SQLite), on the real process
 * under a load of new clicks. A batch is stored in DuckDB with its id (`appendClicks`), then counted
 * by the fold in the metadata database (link counters, usage) with the watermark:
 *
 * - between append and fold: the metadata database is locked by another connection for a while,
 *   so the batches stored meanwhile cannot be counted (a fold waits on the lock), then the kill;
 * - during folds: the fold runs every 10 ms, so the kill lands in a fold or between two.
 *
 * After a restart and a SIGTERM, in both cases: nothing stored twice, only clicks that were sent,
 * the link counter equal to the clicks stored, and no answered click lost that was answered more
 * than the lag bound (plus slack for a loaded machine) before the kill.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import SQLite from 'better-sqlite3';
import { TEST_ENGINE } from '../../test-support/harness.js';
import { createLink, freePort, privateDatabase, startClickLoad, startServer, type PrivateDatabase } from '../../test-support/server-process.js';
import { storedClicks as stored } from '../../test-support/stored-clicks.js';

const MAX_LAG_MS = 250;
const ARRIVAL_SLACK_MS = 1_000;
const skip = TEST_ENGINE !== 'sqlite' && 'the DuckDB file beside a SQLite database';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Starts the server under load, runs `beforeKill`, kills it, restarts, stops it, and checks what is stored. */
async function killUnderLoad(t: TestContext, name: string, env: Record<string, string>, beforeKill: (db: PrivateDatabase) => Promise<void>) {
  const db = await privateDatabase();
  const port = await freePort();
  const key = `wm_${randomBytes(12).toString('hex')}`;
  const server = await startServer(db.url, port, key, { EVENTS_URL: 'duckdb', VISITOR_IP: 'full', CLICK_MAX_LAG_MS: String(MAX_LAG_MS), ...env });
  let restarted: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    const link = await createLink(port, key, { url: `https://example.com/${name}`, key: name });
    const load = startClickLoad({ port, host: link.host, path: link.path, ipPrefix: '10.8', connections: 4, max: 20_000 });
    while (load.answered.size < 500) await sleep(10);
    await beforeKill(db);
    server.child.kill('SIGKILL');
    const killedAt = Date.now();
    await server.exited;
    await load.stop();

    // The restart with the default settings; its SIGTERM counts what is stored and closes.
    restarted = await startServer(db.url, port, key, { EVENTS_URL: 'duckdb', VISITOR_IP: 'full' });
    restarted.child.kill('SIGTERM');
    assert.equal(await restarted.exited, 0, restarted.output());

    const s = await stored(db, link.id);
    assert.deepEqual([...s.copies].filter(([, n]) => n > 1), [], 'no click stored twice');
    assert.deepEqual([...s.copies.keys()].filter((ip) => !load.sent.has(ip)), [], 'only clicks that were sent');
    const lost = [...load.answered].filter(([ip]) => !s.copies.has(ip));
    const oldestLost = lost.length ? killedAt - Math.min(...lost.map(([, at]) => at)) : 0;
    t.diagnostic(`${load.answered.size} answered, ${s.copies.size} stored, ${lost.length} answered and lost, the oldest answered ${oldestLost} ms before the kill`);
    assert.ok(oldestLost <= MAX_LAG_MS + ARRIVAL_SLACK_MS, `a click answered ${oldestLost} ms before the kill was lost`);
    assert.equal(s.counter, s.copies.size, 'the link counter counts what is stored, once');
  } finally {
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
    if (restarted && restarted.child.exitCode === null) restarted.child.kill('SIGKILL');
    await db.dispose();
  }
}

test('kill -9 between append and fold (the fold held off by a lock on the metadata database): after a restart, stored once and counted once', { skip, timeout: 240_000 }, async (t) => {
  await killUnderLoad(t, 'fold-held', {}, async (db) => {
    // Batches keep reaching DuckDB (its own file); the fold cannot commit its counts meanwhile.
    const lock = new SQLite(db.url.slice('file:'.length), { timeout: 10_000 });
    try {
      lock.exec('BEGIN IMMEDIATE');
      await sleep(1_500);
    } finally {
      // The kill comes right after: the batches of the last 1.5 s are stored and not counted.
      setImmediate(() => {
        lock.exec('ROLLBACK');
        lock.close();
      });
    }
  });
});

test('kill -9 while folds run back to back (every 10 ms): after a restart, stored once and counted once', { skip, timeout: 240_000 }, async (t) => {
  await killUnderLoad(t, 'fold-busy', { CLICK_FOLD_INTERVAL_MS: '10' }, async () => {
    await sleep(700);
  });
});
