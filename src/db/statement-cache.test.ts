import { test } from 'node:test';
import assert from 'node:assert/strict';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { withStatementCache } from './statement-cache.js';

function memory() {
  const sqlite = new SQLite(':memory:');
  sqlite.exec(`create table t (a integer primary key, b text); insert into t values (1, 'x'), (2, 'y'), (3, 'z')`);
  return sqlite;
}

test('the same SQL text gets the same prepared statement; other texts their own', () => {
  const cached = withStatementCache(memory());
  const first = cached.prepare('select b from t where a = ?');
  assert.equal(cached.prepare('select b from t where a = ?'), first);
  assert.notEqual(cached.prepare('select a from t where b = ?'), first);
  assert.deepEqual(first.all([2]), [{ b: 'y' }]);
  assert.deepEqual(cached.prepare('select b from t where a = ?').all([3]), [{ b: 'z' }]);
});

test('a statement being iterated is not handed out again', () => {
  const cached = withStatementCache(memory());
  const text = 'select a from t order by a';
  const streaming = cached.prepare(text);
  const rows = streaming.iterate([]) as IterableIterator<{ a: number }>;
  assert.deepEqual(rows.next().value, { a: 1 });
  // The same text while the first is mid-read: a statement of its own, which runs to the end.
  const other = cached.prepare(text);
  assert.notEqual(other, streaming);
  assert.deepEqual(other.all([]), [{ a: 1 }, { a: 2 }, { a: 3 }]);
  assert.deepEqual(rows.next().value, { a: 2 });
  rows.return?.();
  assert.equal(cached.prepare(text), streaming);
});

test('keeps at most `max` statements, dropping the least recently used', () => {
  const cached = withStatementCache(memory(), 2);
  const one = cached.prepare('select 1');
  const two = cached.prepare('select 2');
  assert.equal(cached.prepare('select 1'), one); // now the most recent
  cached.prepare('select 3'); // evicts `select 2`
  assert.equal(cached.prepare('select 1'), one);
  assert.notEqual(cached.prepare('select 2'), two);
});

test('a kept statement sees a column added after it was prepared', () => {
  const cached = withStatementCache(memory());
  const text = 'select * from t where a = ?';
  assert.deepEqual(cached.prepare(text).all([1]), [{ a: 1, b: 'x' }]);
  cached.prepare(`alter table t add column c text not null default 'new'`).run([]);
  assert.deepEqual(cached.prepare(text).all([1]), [{ a: 1, b: 'x', c: 'new' }]);
});

test('Kysely queries, writes and streams run through it', async () => {
  const db = new Kysely<{ t: { a: number; b: string } }>({ dialect: new SqliteDialect({ database: withStatementCache(memory()) }) });
  try {
    for (let i = 0; i < 3; i++) assert.deepEqual(await db.selectFrom('t').select('b').where('a', '=', 1).execute(), [{ b: 'x' }]);
    await db.insertInto('t').values({ a: 4, b: 'w' }).execute();
    await db.insertInto('t').values({ a: 5, b: 'v' }).execute();
    const seen: number[] = [];
    for await (const row of db.selectFrom('t').select('a').orderBy('a').stream()) seen.push(row.a);
    assert.deepEqual(seen, [1, 2, 3, 4, 5]);
    const { rows } = await sql<{ n: number }>`select count(*) as n from t`.execute(db);
    assert.equal(rows[0]!.n, 5);
  } finally {
    await db.destroy();
  }
});
