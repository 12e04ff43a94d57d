/**
 * Backups of a running installation: a real server process records clicks from real redirects
 * while `waymark backup` copies its SQLite database; the copy passes SQLite's integrity check
 * and holds every click acknowledged (committed by the server's click writer: the redirect
 * answers before its batch commits, docs/backups.md) before the backup began. `restore` refuses
 * while the server has the database open, and restores once it stopped. On PostgreSQL both
 * commands refuse and point to pg_dump / pg_restore.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { openDuckDbFile } from '../events/index.js';
import SQLite from 'better-sqlite3';
import { runCli } from '../cli/index.js';
import { TEST_ENGINE } from '../test-support/harness.js';
import { createLink, freePort, privateDatabase, startClickLoad, startServer } from '../test-support/server-process.js';

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The stored addresses of the clicks committed in the database file, read by a connection of the test. */
function committedClickIps(file: string): Set<string> {
  const db = new SQLite(file, { readonly: true, fileMustExist: true });
  try {
    return new Set((db.prepare("select ip from events where kind = 'click'").all() as { ip: string }[]).map((r) => r.ip));
  } finally {
    db.close();
  }
}

test('backup and restore refuse on PostgreSQL and point to pg_dump', async () => {
  const lines: string[] = [];
  const errors: string[] = [];
  const original = console.error;
  console.error = (line: string) => errors.push(line);
  try {
    const env = { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere' };
    assert.equal(await runCli(['backup', '/tmp/x.db'], (l) => lines.push(l), env), 1);
    assert.equal(await runCli(['restore', '/tmp/x.db'], (l) => lines.push(l), env), 1);
  } finally {
    console.error = original;
  }
  assert.match(errors[0]!, /pg_dump/);
  assert.match(errors[1]!, /pg_restore/);
});

test('a backup taken while a server records clicks is consistent and holds every acknowledged click; restore waits for the server to stop', { skip: TEST_ENGINE !== 'sqlite' && 'SQLite backups' }, async () => {
  const db = await privateDatabase();
  const file = db.url.slice('file:'.length);
  const port = await freePort();
  const key = `wm_${randomBytes(12).toString('hex')}`;
  const env = { DATABASE_URL: db.url };
  const backup = join(db.dir, 'backup.db');
  const server = await startServer(db.url, port, key, { VISITOR_IP: 'full' });
  const out: string[] = [];
  const errors: string[] = [];
  const original = console.error;
  try {
    const link = await createLink(port, key, { url: 'https://example.com/backed-up', key: 'backed-up' });
    const load = startClickLoad({ port, host: link.host, path: link.path, ipPrefix: '10.9', connections: 4, max: 20_000 });
    await until(() => committedClickIps(file).size >= 200, '200 committed clicks');

    // Acknowledged before the backup began: committed, as a reader of the database sees it now.
    const acknowledged = committedClickIps(file);
    assert.equal(await runCli(['backup', backup], (l) => out.push(l), env), 0, out.join('\n'));
    // Clicks stored after the backup began, so the restore below has something to take back (a
    // backup can end before the next batch commits).
    await until(() => committedClickIps(file).size > acknowledged.size, 'a click committed after the backup began');
    await load.stop();

    const copy = new SQLite(backup, { readonly: true, fileMustExist: true });
    try {
      assert.equal(copy.pragma('integrity_check', { simple: true }), 'ok');
      const inBackup = new Set((copy.prepare("select ip from events where kind = 'click'").all() as { ip: string }[]).map((r) => r.ip));
      const missing = [...acknowledged].filter((ip) => !inBackup.has(ip));
      assert.deepEqual(missing, [], 'every click committed before the backup began is in it');
      // Nothing in it that the server did not answer: the copy holds only real, finished writes.
      const unknown = [...inBackup].filter((ip) => !load.answered.has(ip));
      assert.deepEqual(unknown, []);
      assert.ok(copy.prepare("select id from links where key = 'backed-up'").get(), 'the link is in it');
    } finally {
      copy.close();
    }

    // A second backup to the same file is refused without --force.
    console.error = (line: string) => errors.push(line);
    assert.equal(await runCli(['backup', backup], (l) => out.push(l), env), 1);
    assert.match(errors.at(-1)!, /exists/);

    // Restore: refused while the server has the database open.
    assert.equal(await runCli(['restore', backup], (l) => out.push(l), env), 1);
    assert.match(errors.at(-1)!, /in use/);
    console.error = original;

    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0, server.output());
    const afterStop = committedClickIps(file);
    assert.ok(afterStop.size > acknowledged.size);
    assert.equal(await runCli(['restore', backup], (l) => out.push(l), env), 0, out.join('\n'));
    const restored = committedClickIps(file);
    const backedUp = new SQLite(backup, { readonly: true });
    const backedUpCount = (backedUp.prepare("select count(*) as n from events where kind = 'click'").get() as { n: number }).n;
    backedUp.close();
    assert.equal(restored.size, backedUpCount, 'the database is the backup again');

    // A file that is not a Waymark backup is refused and the database left as it is.
    const bogus = join(db.dir, 'bogus.db');
    writeFileSync(bogus, 'not a database');
    console.error = (line: string) => errors.push(line);
    assert.equal(await runCli(['restore', bogus], (l) => out.push(l), env), 1);
    console.error = original;
    assert.equal(committedClickIps(file).size, backedUpCount);
  } finally {
    console.error = original;
    if (server.child.exitCode === null) {
      server.child.kill('SIGKILL');
      await server.exited;
    }
    await db.dispose();
  }
});

test('with the DuckDB event store the running server copies its event file for the backup; restore puts both back', { skip: TEST_ENGINE !== 'sqlite' && 'SQLite backups' }, async () => {
  const db = await privateDatabase();
  const port = await freePort();
  const key = `wm_${randomBytes(12).toString('hex')}`;
  const env = { DATABASE_URL: db.url, EVENTS_URL: 'duckdb' };
  // A folder of its own: the backup leaves nothing in it but its two files (no -wal, -shm, .partial).
  const backupDir = mkdtempSync(join(tmpdir(), 'waymark-backups-'));
  const backup = join(backupDir, 'backup.db');
  const file = db.url.slice('file:'.length);
  const eventFile = join(dirname(file), `${basename(file, '.db')}.events.duckdb`);
  const server = await startServer(db.url, port, key, { EVENTS_URL: 'duckdb', VISITOR_IP: 'full' });
  const out: string[] = [];
  const clickIps = async (path: string) => {
    const engine = await openDuckDbFile({ path });
    try {
      return (await engine.query({ text: "SELECT ip FROM events WHERE kind = 'click'", params: [] })).map((r) => String(r.ip)).sort();
    } finally {
      await engine.close();
    }
  };
  try {
    const link = await createLink(port, key, { url: 'https://example.com/duck-backup', key: 'duck-backup' });
    const load = startClickLoad({ port, host: link.host, path: link.path, ipPrefix: '10.8', connections: 4, max: 300 });
    await load.done;
    // Every answered click committed and counted (the link counter follows the journal's fold).
    const counted = async () => (await (await fetch(`http://127.0.0.1:${port}/links/${link.id}`, { headers: { authorization: `Bearer ${key}` } })).json()).clicks;
    const deadline = Date.now() + 30_000;
    while ((await counted()) < load.answered.size && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.equal(await counted(), 300);

    assert.equal(await runCli(['backup', backup], (l) => out.push(l), env), 0, out.join('\n'));
    assert.match(out.join('\n'), /Backed up the event file .*backup\.events\.duckdb: 300 events/);
    assert.deepEqual(readdirSync(backupDir).sort(), ['backup.db', 'backup.events.duckdb'], 'no partial or log files beside the backup');
    assert.deepEqual(await clickIps(join(backupDir, 'backup.events.duckdb')), [...load.answered.keys()].sort(), 'the server wrote the copy: every click, once');

    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0, server.output());
    rmSync(eventFile);
    assert.equal(await runCli(['restore', backup], (l) => out.push(l), env), 0, out.join('\n'));
    assert.match(out.at(-1)!, /Restored the event file/);
    assert.equal((await clickIps(eventFile)).length, 300);
  } finally {
    if (server.child.exitCode === null) {
      server.child.kill('SIGKILL');
      await server.exited;
    }
    await db.dispose();
    rmSync(backupDir, { recursive: true, force: true });
  }
});
