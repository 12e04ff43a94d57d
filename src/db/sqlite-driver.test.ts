import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, type Generated } from 'kysely';
import { ImmediateSqliteDialect } from './sqlite-driver.js';

interface T { t: { id: Generated<number>; v: string } }

/** Two connections on one WAL file; `mine` reads in a transaction, `other` commits, then `mine` writes. */
async function readCommitWrite(dialect: (sqlite: SQLite.Database) => SqliteDialect): Promise<unknown> {
  const dir = mkdtempSync(join(tmpdir(), 'wm-immediate-'));
  const file = join(dir, 'db.sqlite');
  const open = () => {
    const s = new SQLite(file);
    s.pragma('journal_mode = WAL');
    s.pragma('busy_timeout = 2000');
    return s;
  };
  const first = open();
  first.exec('create table t (id integer primary key, v text)');
  const mine = new Kysely<T>({ dialect: dialect(first) });
  const other = open();
  let otherCommitted = false;
  try {
    await mine.transaction().execute(async (trx) => {
      await trx.selectFrom('t').selectAll().execute();
      // The other connection commits while ours is open: with a deferred BEGIN our snapshot is
      // now stale and the upgrade to a write is refused; with BEGIN IMMEDIATE the other waits.
      try {
        other.pragma('busy_timeout = 0');
        other.prepare("insert into t (v) values ('other')").run();
        otherCommitted = true;
      } catch (err) {
        assert.equal((err as { code?: string }).code, 'SQLITE_BUSY', 'the other writer waits for our lock');
      }
      await trx.insertInto('t').values({ v: 'mine' }).execute();
    });
    return { otherCommitted, rows: first.prepare('select v from t order by id').all() };
  } catch (err) {
    return err;
  } finally {
    await mine.destroy();
    other.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a deferred transaction that reads, then writes after another connection committed, fails (why the dialect exists)', async () => {
  const result = await readCommitWrite((database) => new SqliteDialect({ database }));
  assert.ok(result instanceof Error, 'plain SqliteDialect: the write is refused');
  assert.match(String((result as { code?: string }).code), /^SQLITE_BUSY/);
});

test('with ImmediateSqliteDialect the transaction holds the write lock from its start and commits', async () => {
  const result = await readCommitWrite((database) => new ImmediateSqliteDialect({ database }));
  assert.deepEqual(result, { otherCommitted: false, rows: [{ v: 'mine' }] });
});
