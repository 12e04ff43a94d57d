import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { splitPgSchema, sqliteFileFromUrl, isPostgresUrl, localFilesFor, openDatabase } from './open.js';
import { TEST_ENGINE, openTestDatabase } from '../test-support/harness.js';

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
  assert.deepEqual(localFilesFor('file:/srv/data/waymark.db'), { dir: '/srv/data', prefix: 'waymark.' });
  assert.deepEqual(localFilesFor('postgres://u:p@h/db'), { dir: join(process.cwd(), 'data'), prefix: '' });
  assert.equal(localFilesFor(':memory:'), undefined);
});

test('capabilities follow from the engine under test', async () => {
  const { database, dispose } = await openTestDatabase();
  try {
    if (TEST_ENGINE === 'postgres') {
      // Several processes share the server: each folds its own batches and hears the others' changes.
      assert.deepEqual(database.capabilities, { singleWriter: false, readerWorker: false, checkpointer: false, changeRelay: true, writerThread: true, singleProcess: false });
      assert.equal(database.engine, 'PostgreSQL');
      const u = new URL(database.url);
      assert.equal(database.identity, `postgres://${u.hostname}:${u.port || '5432'}${u.pathname}?schema=${database.pgSchema}`, 'no credentials');
      assert.deepEqual(database.localFiles, { dir: join(process.cwd(), 'data'), prefix: '' });
    } else {
      // One process owns the file: it folds coalesced, reads and checkpoints on threads of their own.
      assert.deepEqual(database.capabilities, { singleWriter: true, readerWorker: true, checkpointer: true, changeRelay: false, writerThread: true, singleProcess: true });
      assert.equal(database.engine, `SQLite (${database.sqlitePath})`);
      assert.equal(database.identity, `sqlite:${database.sqlitePath}`);
      assert.deepEqual(database.localFiles, { dir: join(database.sqlitePath!, '..'), prefix: 'test.' }, 'files of its own beside the file, named after it');
    }
    await database.ping();
  } finally {
    await database.close();
    await dispose();
  }
});

test('capabilities of an in-memory SQLite database: no second connection, so no worker thread', async () => {
  const database = await openDatabase(':memory:');
  try {
    assert.deepEqual(database.capabilities, { singleWriter: true, readerWorker: false, checkpointer: false, changeRelay: false, writerThread: false, singleProcess: true });
    assert.equal(database.engine, 'SQLite (:memory:)');
    assert.equal(database.sqlitePath, undefined);
    assert.equal(database.localFiles, undefined, 'nothing outlives it, so no files of its own');
    await database.ping();
  } finally {
    await database.close();
  }
});

test('ping fails on a database without the tables', async () => {
  const database = await openDatabase(':memory:', { migrate: false });
  try {
    await assert.rejects(database.ping());
  } finally {
    await database.close();
  }
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

test('migrations succeed while other schemas come and go on the server', { skip: TEST_ENGINE !== 'postgres' ? 'needs PostgreSQL' : false }, async () => {
  const pg = (await import('pg')).default;
  const base = process.env.DATABASE_URL!;
  const churn = new pg.Client({ connectionString: base });
  await churn.connect();
  let stop = false;
  // Another tenant creating and dropping schemas with tables, as concurrent test files do.
  const churning = (async () => {
    for (let i = 0; !stop; i++) {
      const other = `churn_${process.pid}_${i}`;
      // Separate statements: each commits, so other sessions see the schema come and go.
      await churn.query(`create schema ${other}`);
      await churn.query(`create table ${other}.t (id int, v text)`);
      await churn.query(`drop schema ${other} cascade`);
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  const mine: string[] = [];
  try {
    for (let i = 0; i < 15; i++) {
      const schema = `m_${Math.random().toString(36).slice(2, 10)}`;
      mine.push(schema);
      const database = await openDatabase(base, { pgSchema: schema, poolSize: 1 });
      const { rows } = await (await import('kysely')).sql<{ n: number }>`select count(*)::int as n from information_schema.tables where table_schema = ${schema} and table_name = 'events'`.execute(database.db);
      assert.equal(rows[0]!.n, 1);
      await database.close();
    }
  } finally {
    stop = true;
    await churning;
    for (const schema of mine) await churn.query(`drop schema if exists ${schema} cascade`);
    await churn.end();
  }
});
