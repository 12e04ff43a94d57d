/**
 * The interrupted import: the real process is killed with SIGKILL in the middle of a large import.
 * Restarted on the same database, the user is told what was imported (the job is interrupted, its
 * counts and last line written) and can complete it: the resume reads the kept file after that
 * line, counts the rows of the batch that was being written as its own, and ends with every row
 * in, none twice.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { freePort, privateDatabase, startServer, type ServerProcess } from '../test-support/server-process.js';

interface Job {
  id: string;
  state: string;
  counts: { rows: number; created: number; skipped: number; rejected: number };
  lastLine: number;
  resumable: boolean;
}

const ROWS = 30_000;

test('kill -9 mid-import: after the restart the job is interrupted with its counts, and the resume brings every row in once', async () => {
  const db = await privateDatabase();
  const port = await freePort();
  const key = `wm_${randomBytes(12).toString('hex')}`;
  const env = { IMPORT_STALE_SECONDS: '1', IMPORT_SPOOL_DIR: join(db.dir, 'imports') };
  const api = (path: string, init: RequestInit = {}) => fetch(`http://127.0.0.1:${port}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, ...(init.headers ?? {}) } });
  const servers: ServerProcess[] = [];
  const database = await db.open();
  try {
    const first = await startServer(db.url, port, key, env);
    servers.push(first);
    const csv = ['url,key', ...Array.from({ length: ROWS }, (_, i) => `https://example.com/crash/${i},crash-${i}`)].join('\n') + '\n';
    const posting = api('/links/import', { method: 'POST', body: csv, headers: { 'content-type': 'text/csv' } }).catch(() => undefined);
    // Killed once some batches are written, long before the end.
    let running: Job | undefined;
    const deadline = Date.now() + 60_000;
    while (!running) {
      if (Date.now() > deadline) throw new Error(`no progress:\n${first.output()}`);
      const list = (await (await api('/imports')).json()) as Job[];
      if (list[0] && list[0].counts.created >= 500) running = list[0];
      else await new Promise((r) => setTimeout(r, 20));
    }
    first.child.kill('SIGKILL');
    await first.exited;
    await posting;

    const second = await startServer(db.url, port, key, env);
    servers.push(second);
    await new Promise((r) => setTimeout(r, 1_100)); // the dead job's heartbeat goes stale
    const job = (await (await api(`/imports/${running.id}`)).json()) as Job;
    assert.equal(job.state, 'interrupted');
    assert.equal(job.resumable, true);
    assert.ok(job.counts.created >= running.counts.created && job.counts.created < ROWS, `told what was imported: ${JSON.stringify(job.counts)}`);
    assert.equal(job.lastLine, job.counts.rows + 1, 'the last line written follows the rows counted');
    const before = await database.db.selectFrom('links').select('id').where('key', 'like', 'crash-%').execute();
    assert.ok(before.length >= job.counts.created, 'every row counted is in');

    const res = await api(`/imports/${job.id}/resume`, { method: 'POST' });
    assert.equal(res.status, 200, await res.clone().text());
    const report = (await res.json()) as { importId: string; counts: Job['counts'] };
    assert.equal(report.importId, job.id);
    assert.deepEqual(report.counts, { rows: ROWS, created: ROWS, skipped: 0, rejected: 0 }, 'rows of the batch cut short count as created, not skipped');
    const keys = await database.db.selectFrom('links').select('key').where('key', 'like', 'crash-%').execute();
    assert.equal(keys.length, ROWS, 'all rows in');
    assert.equal(new Set(keys.map((k) => k.key)).size, ROWS, 'none twice');
    const done = (await (await api(`/imports/${job.id}`)).json()) as Job;
    assert.equal(done.state, 'completed');
    assert.equal((await api(`/imports/${job.id}/resume`, { method: 'POST' })).status, 409, 'a completed import is not resumed');
  } finally {
    for (const s of servers) if (s.child.exitCode === null) s.child.kill('SIGKILL');
    await Promise.all(servers.map((s) => s.exited));
    await database.close();
    await db.dispose();
  }
});
