/**
 * The PostgreSQL backup commands of docs/backups.md, run as written: `pg_dump -Fc` of a Waymark
 * database, then `pg_restore --clean --if-exists` into a fresh database (the `--clean` alone that
 * the docs said before fails there: it drops objects that do not exist yet). PostgreSQL leg only,
 * with the server's client tools on PATH.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { isPostgresUrl, openDatabase } from '../src/db/open.js';
import { CLI } from '../src/audit/record.js';
import { createWorkspaceStore } from '../src/workspaces/store.js';
import { createWorkspaceService } from '../src/workspaces/service.js';

const url = process.env.DATABASE_URL ?? '';
const tools = spawnSync('pg_restore', ['--version']).status === 0 && spawnSync('pg_dump', ['--version']).status === 0;
const skip = !isPostgresUrl(url) ? 'PostgreSQL only (DATABASE_URL=postgres://…)' : !tools ? 'pg_dump and pg_restore are not installed' : false;

/** The documented commands (docs/backups.md, the PostgreSQL section's first block). */
function documentedCommands(): { dump: string; restore: string } {
  const doc = readFileSync(resolve('docs/backups.md'), 'utf8');
  const block = /## PostgreSQL[\s\S]*?```sh\n([\s\S]*?)```/.exec(doc)![1]!;
  const lines = block.split('\n').filter((l) => l.trim() && !l.trim().startsWith('#'));
  return { dump: lines.find((l) => l.startsWith('pg_dump '))!, restore: lines.find((l) => l.startsWith('pg_restore '))! };
}

test('the documented pg_dump / pg_restore restore a Waymark database into a fresh one', { skip }, async () => {
  const { dump, restore } = documentedCommands();
  assert.match(restore, /--clean --if-exists/);
  const suffix = Math.random().toString(36).slice(2, 10);
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const source = `wm_dump_src_${suffix}`;
  const target = `wm_dump_dst_${suffix}`;
  const urlOf = (db: string) => {
    const u = new URL(url);
    u.pathname = `/${db}`;
    u.search = '';
    return u.toString();
  };
  const dir = mkdtempSync(join(tmpdir(), 'waymark-pgdump-'));
  try {
    await admin.query(`create database ${source}`);
    await admin.query(`create database ${target}`);
    const database = await openDatabase(urlOf(source));
    const workspace = await createWorkspaceService(createWorkspaceStore(database.db)).createWorkspace({ name: 'Dumped', slug: `dumped-${suffix}`, plan: 'pro' }, CLI);
    await database.close();
    const sh = (command: string, db: string) => spawnSync('bash', ['-c', command], { cwd: dir, env: { ...process.env, DATABASE_URL: urlOf(db) }, encoding: 'utf8' });
    const dumped = sh(dump, source);
    assert.equal(dumped.status, 0, dumped.stderr);
    // What the docs said before: --clean alone on a fresh database fails.
    const cleanOnly = sh(restore.replace(' --if-exists', ''), target);
    assert.notEqual(cleanOnly.status, 0, 'pg_restore --clean alone fails on a fresh database');
    await admin.query(`drop database ${target}`);
    await admin.query(`create database ${target}`);
    const restored = sh(restore, target);
    assert.equal(restored.status, 0, restored.stderr);
    const check = new pg.Client({ connectionString: urlOf(target) });
    await check.connect();
    try {
      const { rows } = await check.query('select slug from workspaces where id = $1', [workspace.id]);
      assert.deepEqual(rows, [{ slug: `dumped-${suffix}` }]);
    } finally {
      await check.end();
    }
    // Restored over itself (the usual case: the same database, objects present), it succeeds too.
    assert.equal(sh(restore, target).status, 0);
  } finally {
    await admin.query(`drop database if exists ${source} with (force)`).catch(() => undefined);
    await admin.query(`drop database if exists ${target} with (force)`).catch(() => undefined);
    await admin.end();
    rmSync(dir, { recursive: true, force: true });
  }
});
