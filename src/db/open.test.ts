import { test } from 'node:test';
import assert from 'node:assert/strict';
import { splitPgSchema, sqliteFileFromUrl, isPostgresUrl, openDatabase } from './open.js';
import { TEST_ENGINE } from '../test-support/harness.js';

test('DATABASE_URL forms', () => {
  assert.equal(isPostgresUrl('postgres://u@h/db'), true);
  assert.equal(isPostgresUrl('postgresql://u@h/db'), true);
  assert.equal(isPostgresUrl('file:./data/x.db'), false);
  assert.match(sqliteFileFromUrl('file:./data/x.db'), /\/data\/x\.db$/);
  assert.equal(sqliteFileFromUrl(':memory:'), ':memory:');
  assert.equal(sqliteFileFromUrl('file::memory:'), ':memory:');
  assert.deepEqual(splitPgSchema('postgres://u@h:5432/db?schema=tenant_a&sslmode=disable'), {
    url: 'postgres://u@h:5432/db?sslmode=disable',
    schema: 'tenant_a',
  });
  assert.deepEqual(splitPgSchema('postgres://u@h/db'), { url: 'postgres://u@h/db' });
});

test('?schema= puts the tables in that schema', { skip: TEST_ENGINE !== 'postgres' ? 'needs PostgreSQL' : false }, async () => {
  const schema = `s_${Math.random().toString(36).slice(2, 10)}`;
  const base = process.env.DATABASE_URL!;
  const database = await openDatabase(`${base}${base.includes('?') ? '&' : '?'}schema=${schema}`);
  try {
    assert.equal(database.pgSchema, schema);
    const { rows } = await (await import('kysely')).sql<{ n: number }>`select count(*)::int as n from information_schema.tables where table_schema = ${schema} and table_name = 'links'`.execute(database.db);
    assert.equal(rows[0]!.n, 1);
  } finally {
    await (await import('kysely')).sql`drop schema ${(await import('kysely')).sql.id(schema)} cascade`.execute(database.db);
    await database.close();
  }
});
