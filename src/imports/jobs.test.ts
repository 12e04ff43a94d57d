/**
 * Imports as jobs: a client that goes away after sending the whole file leaves an import that
 * completes, and `GET /imports` tells what it imported; one that goes away during the upload
 * leaves an interrupted job whose counts match the links written, and its undo removes exactly
 * those; a failed import (too many rows) says so; another workspace sees none of it.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { createImportJobs, type ImportJob as Job } from './jobs.js';
import { tmpdir } from 'node:os';

const csvOf = (n: number, prefix: string) => ['url,key', ...Array.from({ length: n }, (_, i) => `https://example.com/${prefix}/${i},${prefix}-${i}`)].join('\n') + '\n';

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what} (last: ${JSON.stringify(v)})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function jobs(t: TestApp, headers?: Record<string, string>): Promise<Job[]> {
  const res = await t.inject({ method: 'GET', url: '/imports', headers });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as Job[];
}

async function linkCount(t: TestApp, prefix: string): Promise<number> {
  const rows = await t.database.db.selectFrom('links').select('key').where('workspace_id', '=', t.workspaceId).where('key', 'like', `${prefix}-%`).execute();
  assert.equal(new Set(rows.map((r) => r.key)).size, rows.length, 'no link twice');
  return rows.length;
}

/** Sends the body over real HTTP and closes the connection once `cut` bytes are written (all of it by default), without waiting for the answer. */
function sendAndLeave(base: string, key: string, body: Buffer, cut = body.length): Promise<void> {
  return new Promise((resolve) => {
    const req = request(`${base}/links/import`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'text/csv', 'content-length': String(body.length) } });
    req.on('error', () => undefined);
    req.write(body.subarray(0, cut), () => {
      // Long enough for the server to have read what was sent.
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 300);
    });
  });
}

describe('import jobs', () => {
  let t: TestApp;
  let base: string;
  before(async () => {
    t = await createTestApp();
    base = await t.listen();
  });
  after(() => t.close());

  test('the heartbeat writes only when the job was not marked within its period (the batches mark it)', async () => {
    let clock = 1_000_000;
    const store = createImportJobs(t.database.db, { spoolDir: tmpdir(), staleMs: 60_000, now: () => clock });
    const job = await store.begin(t.workspaceId, { source: 'api', contentType: 'text/csv', mapping: {}, createdBy: null });
    clock += 1_000;
    assert.equal(await store.heartbeat(job.id, 5_000), false, 'marked 1 s ago: no write');
    clock += 5_000;
    assert.equal(await store.heartbeat(job.id, 5_000), true, 'marked 6 s ago: written');
    assert.equal((await store.get(t.workspaceId, job.id))!.updatedAt, new Date(clock).toISOString());
    assert.equal(await store.heartbeat(job.id), true, 'without a period it always writes');
    await store.discard(job.id);
  });

  test('the answer names the job, and GET /imports/{id} tells its state and counts', async () => {
    const res = await t.inject({ method: 'POST', url: '/links/import', payload: csvOf(3, 'named'), headers: { 'content-type': 'text/csv' } });
    assert.equal(res.statusCode, 200, res.body);
    const report = res.json() as { importId: string; counts: Job['counts'] };
    assert.match(report.importId, /^imp_[0-9a-f]{24}$/);
    assert.equal(res.headers['waymark-import-id'], report.importId);
    const job = (await t.inject({ method: 'GET', url: `/imports/${report.importId}` })).json() as Job;
    assert.equal(job.state, 'completed');
    assert.deepEqual(job.counts, { rows: 3, created: 3, skipped: 0, rejected: 0 });
    assert.equal(job.resumable, false);
    assert.equal(job.undoable, true);
    const dry = await t.inject({ method: 'POST', url: '/links/import?dryRun=true', payload: csvOf(2, 'dry'), headers: { 'content-type': 'text/csv' } });
    assert.equal((dry.json() as { importId?: string }).importId, undefined, 'a dry run is no job');
  });

  test('the client goes away after sending the file: the import completes, and the user is told what was imported', async () => {
    const n = 3000;
    await sendAndLeave(base, t.key, Buffer.from(csvOf(n, 'left')));
    const job = await until(async () => (await jobs(t))[0]!, (j) => j.state === 'completed' && j.counts.rows === n, 'the import to complete');
    assert.deepEqual(job.counts, { rows: n, created: n, skipped: 0, rejected: 0 });
    assert.equal(job.uploadComplete, true);
    assert.equal(await linkCount(t, 'left'), n);
  });

  test('the client goes away during the upload: the job is interrupted with what it wrote, cannot resume without the file, and its undo removes exactly its links', async () => {
    const n = 4000;
    const body = Buffer.from(csvOf(n, 'cut'));
    // Links of an earlier import stay through the undo of this one.
    const earlier = await t.inject({ method: 'POST', url: '/links/import', payload: csvOf(5, 'cut'), headers: { 'content-type': 'text/csv' } });
    assert.equal(earlier.statusCode, 200, earlier.body);
    await sendAndLeave(base, t.key, body, Math.floor(body.length / 2));
    const job = await until(async () => (await jobs(t))[0]!, (j) => j.state !== 'running', 'the import to stop');
    assert.equal(job.state, 'interrupted');
    assert.equal(job.uploadComplete, false);
    assert.equal(job.resumable, false);
    assert.ok(job.counts.rows < n, 'stopped before the end');
    const written = (await linkCount(t, 'cut')) - 5;
    assert.equal(job.counts.created, written, 'the counts are the links written');
    const resume = await t.inject({ method: 'POST', url: `/imports/${job.id}/resume` });
    assert.equal(resume.statusCode, 409, resume.body);
    assert.match((resume.json() as { error: { message: string } }).error.message, /did not arrive whole/);

    const undo = await t.inject({ method: 'POST', url: `/imports/${job.id}/undo` });
    assert.equal(undo.statusCode, 200, undo.body);
    const undone = undo.json() as Job;
    assert.equal(undone.state, 'undone');
    assert.equal(undone.undone, written);
    assert.equal(await linkCount(t, 'cut'), 5, "only the earlier import's links are left");
    assert.equal((await t.inject({ method: 'POST', url: `/imports/${job.id}/undo` })).statusCode, 409, 'undone once');
  });

  test('a file over the row cap fails: the job says so and keeps its counts', async () => {
    const small = await createTestApp({ config: { importMaxRows: 10 } });
    try {
      const res = await small.inject({ method: 'POST', url: '/links/import', payload: csvOf(12, 'cap'), headers: { 'content-type': 'text/csv' } });
      assert.equal(res.statusCode, 422, res.body);
      const id = res.headers['waymark-import-id'] as string;
      const job = (await small.inject({ method: 'GET', url: `/imports/${id}` })).json() as Job;
      assert.equal(job.state, 'failed');
      assert.equal(job.counts.created, 10);
      assert.match(job.error ?? '', /more than 10 rows/);
    } finally {
      await small.close();
    }
  });

  test("another workspace sees none of the jobs; reading needs links.read, undoing links.write", async () => {
    const mine = (await jobs(t))[0]!;
    const other = await t.addWorkspace();
    assert.deepEqual(await jobs(t, other.headers), []);
    const get = await t.inject({ method: 'GET', url: `/imports/${mine.id}`, headers: other.headers });
    assert.equal(get.statusCode, 404);
    assert.equal((await t.inject({ method: 'POST', url: `/imports/${mine.id}/undo`, headers: other.headers })).statusCode, 404);
    const reader = await t.addWorkspace('enterprise', ['links.read']);
    assert.equal((await t.inject({ method: 'GET', url: '/imports', headers: reader.headers })).statusCode, 200);
    const refused = await t.inject({ method: 'POST', url: `/imports/${mine.id}/undo`, headers: reader.headers });
    assert.equal(refused.statusCode, 403);
    assert.deepEqual(Object.keys((refused.json() as { error: object }).error).sort(), ['code', 'doc_url', 'message']);
  });
});
