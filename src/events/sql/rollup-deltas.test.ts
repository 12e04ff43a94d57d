import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Kysely, SqliteDialect, PostgresDialect } from 'kysely';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import type { Database } from '../../db/tables.js';
import { DAILY_COLUMNS, HOURLY_COLUMNS, boundValues, buildUpserts, keyHash, rollupDeltas } from './rollup-deltas.js';
import type { StoredEvent } from './event-writer.js';

const H = 3_600_000;
const event = (over: Partial<StoredEvent>): StoredEvent => ({
  workspace_id: 'ws_1', timestamp: Date.UTC(2024, 4, 14, 10, 30), id: 'e1', kind: 'click', click_id: 'e1', link_id: 'link_1', domain: 'go.test', key: 'a',
  url: 'https://example.com/?utm_source=x', country: 'US', city: 'Austin', region: 'US-TX', continent: 'NA', device: 'Desktop', browser: 'Chrome', os: 'Linux',
  referer: 'google.com', referer_url: 'https://google.com/?q=secret', trigger: 'link', ip: '', ua: '', utm_source: 'x', amount: 0, ...over,
});

test('a batch is summed per hour, day and tuple before it is written', () => {
  const d = rollupDeltas([
    event({}),
    event({ id: 'e2', timestamp: Date.UTC(2024, 4, 14, 10, 59) }),
    event({ id: 'e3', kind: 'lead', timestamp: Date.UTC(2024, 4, 14, 11, 5) }),
    event({ id: 'e4', kind: 'sale', amount: 1234, timestamp: Date.UTC(2024, 4, 14, 11, 6), device: 'Mobile' }),
  ]);
  assert.deepEqual(
    d.hourly.map((h) => [h.bucket - Date.UTC(2024, 4, 14), h.clicks, h.leads, h.sales, h.sale_amount]),
    [[10 * H, 2, 0, 0, 0], [11 * H, 0, 1, 1, 1234]],
  );
  const ua = d.daily.filter((r) => r.dim === 'ua').map((r) => [r.k1, r.k2, r.k3, r.k4, r.clicks, r.leads, r.sales, r.sale_amount]);
  assert.deepEqual(ua, [['Desktop', 'Chrome', 'Linux', 'link', 2, 1, 0, 0], ['Mobile', 'Chrome', 'Linux', 'link', 0, 0, 1, 1234]]);
  // referer URLs lose their query (they are grouped that way); null UTM values become ''
  const ref = d.daily.find((r) => r.dim === 'ref')!;
  assert.equal(ref.k2, 'https://google.com/');
  const link = d.daily.find((r) => r.dim === 'link')!;
  assert.deepEqual([link.k1, link.k4, link.k5], ['link_1', 'x', '']);
  assert.equal(new Set(d.daily.map((r) => r.bucket)).size, 1);
});

test('tuple identifiers: short tuples verbatim, long ones hashed', () => {
  assert.equal(keyHash(['NA', 'US', 'Desktop', 'link']), '=NA\u0001US\u0001Desktop\u0001link');
  const long = keyHash(['link_1', 'go.test', `https://example.com/${'x'.repeat(300)}`]);
  assert.match(long, /^#[A-Za-z0-9_-]{22}$/);
  assert.notEqual(long, keyHash(['link_1', 'go.test', `https://example.com/${'x'.repeat(299)}y`]));
});

test('the cached upsert binds its values in the order Kysely would', async () => {
  const d = rollupDeltas([event({}), event({ id: 'e2', kind: 'sale', amount: 5, country: 'DE' })]);
  const dialects = [
    new Kysely<Database>({ dialect: new SqliteDialect({ database: new SQLite(':memory:') }) }),
    new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool({ max: 1 }) }) }), // compiles only, never connects
  ];
  for (const db of dialects) {
    assert.deepEqual(buildUpserts.daily(db, d.daily).compile().parameters, boundValues(d.daily, DAILY_COLUMNS));
    assert.deepEqual(buildUpserts.hourly(db, d.hourly).compile().parameters, boundValues(d.hourly, HOURLY_COLUMNS));
    await db.destroy();
  }
});
