/**
 * What a crash and a shutdown lose, on the real process under a load of new clicks, while the
 * database holds the click writer back (its write lock taken from another connection):
 *
 * - kill -9: the clicks answered and not committed lie within CLICK_MAX_LAG_MS of clicks. That is
 *   what the bound promises: not that the last 250 ms are all that is at risk (a database that
 *   stalls leaves the last committed click far behind), but that no more than 250 ms of answered
 *   clicks are ever uncommitted: past it, answers wait for the writer.
 * - SIGTERM: the process exits within CLICK_SHUTDOWN_GRACE_MS, having spilled what it could not
 *   commit, and the next start stores every answered click exactly once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { readdirSync } from 'node:fs';
import {
  createLink,
  freePort,
  holdWriteLock,
  privateDatabase,
  startClickLoad,
  startServer,
  storedClickIps,
  type PrivateDatabase,
  type ServerProcess,
} from '../test-support/server-process.js';

const MAX_LAG_MS = 250;
/**
 * Slack on top of the bound when comparing arrival times of 302s: the writer notices the bound on
 * a timer of the redirect thread, and each 302 is timed when it reaches this test process; both run
 * late on a loaded machine. Without the bound the lost clicks span the whole time the lock was held
 * before the kill (about 2 s here), so the check still tells the two apart.
 */
const ARRIVAL_SLACK_MS = 400;
/** Answers stopped: no 302 for this long while requests keep coming (a redirect takes < 10 ms). */
const QUIET_MS = 300;
const GRACE_MS = 3_000;
/** From the end of the grace to the process's exit: threads and handles closing, on a loaded machine. */
const EXIT_SLACK_MS = 2_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until the link's `clicks` counter reaches `n` (the restart folds what the crash left). */
async function waitForCounter(db: PrivateDatabase, linkId: string, n: number): Promise<number> {
  const database = await db.open();
  try {
    const read = async () => Number((await database.db.selectFrom('links').select('clicks').where('id', '=', linkId).executeTakeFirstOrThrow()).clicks);
    const deadline = Date.now() + 20_000;
    while ((await read()) < n && Date.now() < deadline) await sleep(50);
    return await read();
  } finally {
    await database.close();
  }
}

async function storedIps(db: PrivateDatabase, linkId: string): Promise<string[]> {
  const database = await db.open();
  try {
    return await storedClickIps(database, linkId);
  } finally {
    await database.close();
  }
}

test('kill -9 while the database holds the writer back: the answered clicks lost lie within CLICK_MAX_LAG_MS, none is stored twice', async (t) => {
  const db = await privateDatabase();
  const port = await freePort();
  const key = `wm_${randomBytes(12).toString('hex')}`;
  // A hold limit longer than the test: no answer goes out because it waited too long.
  const server = await startServer(db.url, port, key, { VISITOR_IP: 'full', CLICK_MAX_LAG_MS: String(MAX_LAG_MS), CLICK_MAX_HOLD_MS: '60000' });
  let restarted: ServerProcess | undefined;
  try {
    const link = await createLink(port, key, { url: 'https://example.com/crash', key: 'crash' });
    const load = startClickLoad({ port, host: link.host, path: link.path, ipPrefix: '10.10' });
    // The writer is committing (not just starting) when the database stops it.
    while ((await storedIps(db, link.id)).length < 200) await sleep(20);
    const lock = await holdWriteLock(db.url);
    const lockedAt = Date.now();
    // The writer cannot commit now. Once its oldest click is MAX_LAG_MS old, new answers wait.
    while (Date.now() - load.lastAnswerAt() < QUIET_MS && Date.now() - lockedAt < 2_000) await sleep(10);
    const quietFor = Date.now() - load.lastAnswerAt();
    server.child.kill('SIGKILL');
    await server.exited;
    await load.stop();
    await lock.release();

    restarted = await startServer(db.url, port, key, { VISITOR_IP: 'full' });
    const ips = await storedIps(db, link.id);
    assert.equal(new Set(ips).size, ips.length, 'no click is stored twice');
    assert.ok(
      ips.every((ip) => load.sent.has(ip)),
      'only clicks that were sent',
    );
    const stored = new Set(ips);
    const lostAt = [...load.answered].filter(([ip]) => !stored.has(ip)).map(([, at]) => at);
    const span = lostAt.length ? Math.max(...lostAt) - Math.min(...lostAt) : 0;
    const report = `${load.answered.size} answered, ${ips.length} stored, ${lostAt.length} answered and lost over ${span} ms; answers stopped ${quietFor} ms before the kill`;
    t.diagnostic(report);
    assert.ok(quietFor >= QUIET_MS, `answers of new clicks wait while the writer is behind: ${report}`);
    assert.ok(span <= MAX_LAG_MS + ARRIVAL_SLACK_MS, `the lost clicks lie within the bound: ${report}`);
    // The restart folded what the crash left: every stored click counted once.
    assert.equal(await waitForCounter(db, link.id, ips.length), ips.length);
    restarted.child.kill('SIGTERM');
    assert.equal(await restarted.exited, 0, restarted.output());
  } finally {
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
    if (restarted && restarted.child.exitCode === null) restarted.child.kill('SIGKILL');
    await db.dispose();
  }
});

test('SIGTERM while the database holds the writer back: exit within CLICK_SHUTDOWN_GRACE_MS, a spill file, and the next start stores every answered click once', async (t) => {
  const db = await privateDatabase();
  const port = await freePort();
  const key = `wm_${randomBytes(12).toString('hex')}`;
  const spillDir = join(db.dir, 'spill');
  const env = { VISITOR_IP: 'full', CLICK_SHUTDOWN_GRACE_MS: String(GRACE_MS), CLICK_SPILL_DIR: spillDir };
  const server = await startServer(db.url, port, key, env);
  let restarted: ServerProcess | undefined;
  let lock: Awaited<ReturnType<typeof holdWriteLock>> | undefined;
  try {
    const link = await createLink(port, key, { url: 'https://example.com/term', key: 'term' });
    const load = startClickLoad({ port, host: link.host, path: link.path, ipPrefix: '10.11' });
    while (load.answered.size < 300) await sleep(5);
    lock = await holdWriteLock(db.url);
    await sleep(500); // clicks pile up uncommitted; answers wait past the bound
    const signalledAt = Date.now();
    server.child.kill('SIGTERM');
    const code = await server.exited;
    const took = Date.now() - signalledAt;
    await load.stop();
    t.diagnostic(`exited ${took} ms after SIGTERM; ${load.answered.size} answered`);
    assert.equal(code, 0, server.output());
    assert.ok(took <= GRACE_MS + EXIT_SLACK_MS, `exited ${took} ms after SIGTERM\n${server.output()}`);
    const spilled = readdirSync(spillDir).filter((n) => n.endsWith('.jsonl'));
    assert.equal(spilled.length, 1, `one spill file: ${readdirSync(spillDir).join(', ')}`);
    await lock.release();
    lock = undefined;

    restarted = await startServer(db.url, port, key, env);
    const ips = await storedIps(db, link.id);
    assert.equal(new Set(ips).size, ips.length, 'no click is stored twice');
    const stored = new Set(ips);
    const missing = [...load.answered.keys()].filter((ip) => !stored.has(ip));
    assert.deepEqual(missing, [], `every answered click is stored (${load.answered.size} answered, ${ips.length} stored)`);
    assert.ok(ips.every((ip) => load.sent.has(ip)));
    assert.deepEqual(
      readdirSync(spillDir).filter((n) => n.endsWith('.jsonl')),
      [],
      'the replayed file is deleted',
    );
    assert.equal(await waitForCounter(db, link.id, ips.length), ips.length);
    restarted.child.kill('SIGTERM');
    assert.equal(await restarted.exited, 0, restarted.output());
  } finally {
    await lock?.release();
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
    if (restarted && restarted.child.exitCode === null) restarted.child.kill('SIGKILL');
    await db.dispose();
  }
});
