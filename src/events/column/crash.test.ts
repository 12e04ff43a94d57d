/**
 * The click path's guarantees with the DuckDB event store (the default on SQLite), on the real
 * process under a load of new clicks:
 *
 * - kill -9: the next start opens the event file (DuckDB's write-ahead log makes the kill safe),
 *   counts the batches stored after the fold's watermark, and every click answered more than CLICK_MAX_LAG_MS
 *   (plus slack for a loaded machine) before the kill is stored, once; the link counter equals
 *   the clicks stored.
 * - SIGTERM: the process exits 0 and every answered click is stored, once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { TEST_ENGINE } from '../../test-support/harness.js';
import { createLink, freePort, privateDatabase, startClickLoad, startServer } from '../../test-support/server-process.js';
import { storedClicks as stored } from '../../test-support/stored-clicks.js';

const MAX_LAG_MS = 250;
const ARRIVAL_SLACK_MS = 1_000;
const skip = TEST_ENGINE !== 'sqlite' && 'the DuckDB file beside a SQLite database';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('DuckDB: kill -9 under load, then a restart: the event file opens, clicks answered before the lag bound are stored once, counters agree', { skip }, async () => {
  const db = await privateDatabase();
  const port = await freePort();
  const key = `wm_${randomBytes(12).toString('hex')}`;
  const env = { EVENTS_URL: 'duckdb', VISITOR_IP: 'full', CLICK_MAX_LAG_MS: String(MAX_LAG_MS) };
  const server = await startServer(db.url, port, key, env);
  let restarted: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    const link = await createLink(port, key, { url: 'https://example.com/duck-crash', key: 'duck-crash' });
    const load = startClickLoad({ port, host: link.host, path: link.path, ipPrefix: '10.7', connections: 4, max: 20_000 });
    while (load.answered.size < 800) await sleep(10);
    server.child.kill('SIGKILL');
    const killedAt = Date.now();
    await server.exited;
    await load.stop();

    restarted = await startServer(db.url, port, key, env);
    restarted.child.kill('SIGTERM');
    assert.equal(await restarted.exited, 0, restarted.output());

    const s = await stored(db, link.id);
    const twice = [...s.copies].filter(([, n]) => n > 1);
    assert.deepEqual(twice, [], 'no click stored twice');
    const unknown = [...s.copies.keys()].filter((ip) => !load.sent.has(ip));
    assert.deepEqual(unknown, [], 'only clicks that were sent');
    const lostEarly = [...load.answered].filter(([ip, at]) => !s.copies.has(ip) && at < killedAt - MAX_LAG_MS - ARRIVAL_SLACK_MS);
    assert.deepEqual(lostEarly, [], `${load.answered.size} answered, ${s.copies.size} stored`);
    assert.equal(s.counter, s.copies.size, 'the link counter counts what is stored');
  } finally {
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
    if (restarted && restarted.child.exitCode === null) restarted.child.kill('SIGKILL');
    await db.dispose();
  }
});

test('DuckDB: SIGTERM under load exits 0 and every answered click is stored once', { skip }, async () => {
  const db = await privateDatabase();
  const port = await freePort();
  const key = `wm_${randomBytes(12).toString('hex')}`;
  const env = { EVENTS_URL: 'duckdb', VISITOR_IP: 'full' };
  const server = await startServer(db.url, port, key, env);
  try {
    const link = await createLink(port, key, { url: 'https://example.com/duck-term', key: 'duck-term' });
    const load = startClickLoad({ port, host: link.host, path: link.path, ipPrefix: '10.6', connections: 4, max: 20_000 });
    while (load.answered.size < 500) await sleep(10);
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0, server.output());
    await load.stop();
    const s = await stored(db, link.id);
    const missing = [...load.answered.keys()].filter((ip) => !s.copies.has(ip));
    assert.deepEqual(missing, [], `every answered click is stored (${load.answered.size} answered, ${s.copies.size} stored)`);
    assert.deepEqual([...s.copies].filter(([, n]) => n > 1), []);
    assert.equal(s.counter, s.copies.size);
  } finally {
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
    await db.dispose();
  }
});
