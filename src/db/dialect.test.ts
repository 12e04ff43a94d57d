import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import SQLite from 'better-sqlite3';
import type pg from 'pg';
import { postgresDialect, sqliteDialect } from './dialect.js';

interface T {
  t: { a: string };
}

test('orFail: `or fail` on SQLite (no statement journal), nothing on PostgreSQL', () => {
  const lite = new Kysely<T>({ dialect: new SqliteDialect({ database: new SQLite(':memory:') }) });
  // Never connects: compiling needs no server.
  const pgDb = new Kysely<T>({ dialect: new PostgresDialect({ pool: {} as pg.Pool }) });
  assert.match(sqliteDialect.insertOrFail(lite.insertInto('t')).values({ a: 'x' }).compile().sql, /^insert or fail into "t"/);
  assert.match(postgresDialect.insertOrFail(pgDb.insertInto('t')).values({ a: 'x' }).compile().sql, /^insert into "t"/);
  assert.equal(sql`update ${sqliteDialect.orFail} t set a = 1`.compile(lite).sql, 'update or fail t set a = 1');
  assert.equal(sql`update ${postgresDialect.orFail} t set a = 1`.compile(pgDb).sql, 'update  t set a = 1');
});
