/**
 * The click journal through the app, with DuckDB in a file beside the SQLite file (the default
 * on SQLite): redirects' clicks reach DuckDB through the flush worker's journal and nowhere else,
 * the link counters and analytics agree, and a batch committed before a crash (journal row, no
 * append, no count) is appended and counted once by the next start.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp } from '../../app.js';
import { loadConfig } from '../../config.js';
import { createTestApp, openTestDatabase } from '../../test-support/harness.js';
import { hit } from '../../redirect/testing.js';
import { contractEvent } from '../contract.js';
import { eventsCsv } from './csv.js';
import { readdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { ColumnEventStore } from './store.js';

const isPostgres = /^postgres/.test(process.env.DATABASE_URL ?? '');

test('redirect clicks go through the journal into DuckDB only; counters and analytics agree', { skip: isPostgres && 'DuckDB beside a SQLite file' }, async () => {
  const t = await createTestApp({ env: { TRUST_PROXY: 'true' }, config: { eventsUrl: 'duckdb' } });
  try {
    const store = t.ctx.events as ColumnEventStore;
    assert.ok(t.ctx.clickColumn, 'the click writer hands batches to DuckDB');
    const base = await t.listen();
    const created = await t.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/j', key: 'journal' } });
    const link = created.json();
    for (let i = 0; i < 25; i++) await hit(base, '/journal', { host: link.domain, headers: { 'x-forwarded-for': `203.0.113.${i + 1}` } });
    await t.modules.redirect.flushClicks();

    const [inDuck] = await store.engine.query({ text: "SELECT count(*) AS n FROM events WHERE kind = 'click' AND link_id = $1", params: [{ type: 'text', value: link.id }] });
    assert.equal(Number(inDuck!.n), 25);
    const inSql = await t.database.db.selectFrom('events').select('id').where('kind', '=', 'click').execute();
    assert.equal(inSql.length, 0, 'no click row in the metadata database');
    assert.deepEqual(await t.database.db.selectFrom('click_journal').select('seq').execute(), [], 'every batch counted, stored, and its row gone');
    const read = await t.inject({ method: 'GET', url: `/links/${link.id}` });
    assert.equal(read.json().clicks, 25);
    const analytics = await t.inject({ method: 'GET', url: `/analytics?event=clicks&interval=all&linkId=${link.id}` });
    assert.equal(analytics.json().clicks, 25);
  } finally {
    await t.close();
  }
});

test('a batch committed before a crash is appended and counted once by the next start', { skip: isPostgres && 'DuckDB beside a SQLite file' }, async () => {
  const { database, dispose } = await openTestDatabase();
  const config = loadConfig({ PORT: '3999', BASE_URL: 'http://localhost:3999', LOG_LEVEL: 'silent', EVENTS_URL: 'duckdb' });
  try {
    const first = await buildApp({ config, database, logger: false });
    const ws = await first.ctx.workspaces.createWorkspace({ name: 'Crash', plan: 'enterprise' });
    const { key } = await first.ctx.workspaces.createKey(ws.id, { name: 'k' });
    const created = await first.app.inject({ method: 'POST', url: '/links', headers: { authorization: `Bearer ${key}` }, payload: { url: 'https://example.com/c', key: 'crash' } });
    const linkId: string = created.json().id;
    await first.app.close();

    // What the flush worker leaves when the process dies right after a batch's commit.
    const T = Date.now() - 5_000;
    const clicks = [0, 1, 2].map((i) => contractEvent(ws.id, linkId, { timestamp: T + i }));
    const batchDir = `${join(dirname(database.sqlitePath!), basename(database.sqlitePath!, '.db'))}.events.duckdb.batches`;
    writeFileSync(join(batchDir, 'clicks-1.csv'), eventsCsv(clicks));
    await database.db.insertInto('click_journal').values({ seq: 1, created_at: T, clicks: 3, file: 'clicks-1.csv', bumps: JSON.stringify([{ id: linkId, clicks: 3, lastClicked: T + 2 }]), counted: 0, stored: 0 }).execute();

    const second = await buildApp({ config, database, logger: false });
    try {
      await second.modules.redirect.startWriter();
      await second.modules.redirect.flushClicks();
      const store = second.ctx.events as ColumnEventStore;
      for (const c of clicks) assert.equal((await store.engine.eventById(c.id))?.link_id, linkId);
      const read = await second.app.inject({ method: 'GET', url: `/links/${linkId}`, headers: { authorization: `Bearer ${key}` } });
      assert.equal(read.json().clicks, 3);
      assert.equal(read.json().lastClicked, new Date(T + 2).toISOString());
      assert.deepEqual(await database.db.selectFrom('click_journal').select('seq').execute(), []);
      assert.deepEqual(readdirSync(batchDir), [], 'its file went with its row');
    } finally {
      await second.app.close();
    }
  } finally {
    await database.close();
    await dispose();
  }
});
