/**
 * Migration 0002 backfills the rollups from the events stored before it with a frozen copy of
 * the rollup code; these tests hold it to what the live code (rollupDeltas + applyRollupDeltas,
 * imported here only) makes of the same events, on the engine under test.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Kysely } from 'kysely';
import { openDatabase, type OpenDatabase } from '../open.js';
import { TEST_ENGINE } from '../../test-support/harness.js';
import { applyRollupDeltas, rollupDeltas, type StoredEvent } from '../../events/index.js';
import * as m0001 from './0001-initial.js';
import * as m0002 from './0002-analytics-rollups.js';

/** A database with only migration 0001 run (a fresh PostgreSQL schema, or in-memory SQLite). */
async function openAt0001(): Promise<{ database: OpenDatabase; dispose(): Promise<void> }> {
  const url = process.env.DATABASE_URL ?? '';
  if (TEST_ENGINE === 'postgres') {
    const schema = `m2_${randomBytes(6).toString('hex')}`;
    const database = await openDatabase(url, { migrate: false, pgSchema: schema, poolSize: 2 });
    await m0001.up(database.db, database.dialect);
    return {
      database,
      dispose: async () => {
        await database.close();
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        await client.query(`drop schema if exists ${schema} cascade`);
        await client.end();
      },
    };
  }
  const database = await openDatabase(':memory:', { migrate: false });
  await m0001.up(database.db, database.dialect);
  return { database, dispose: () => database.close() };
}

/** Deterministic events: short and hashed (long) tuples, null UTM values, referer queries, pre-1970 times. */
function makeEvents(count: number): Record<string, unknown>[] {
  let seed = 42;
  const next = (n: number) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed % n;
  };
  const pick = <T>(values: readonly T[]): T => values[next(values.length)]!;
  const base = Date.UTC(2026, 2, 1);
  const events: Record<string, unknown>[] = [];
  for (let i = 0; i < count; i++) {
    const kind = pick(['click', 'click', 'click', 'click', 'lead', 'sale']);
    const link = next(12);
    const long = link % 3 === 0;
    const country = pick(['US', 'DE', 'FR', 'JP']);
    events.push({
      workspace_id: pick(['ws_a', 'ws_b']),
      // Mostly four days of March 2026; one event in 30 before 1970 (negative buckets).
      timestamp: next(30) === 0 ? -next(5 * 86_400_000) : base + next(4 * 86_400_000),
      id: `evt_${String(i).padStart(6, '0')}`,
      kind,
      click_id: `clk_${i}`,
      link_id: `link_${link}`,
      domain: link % 2 ? 'dub.sh' : 'go.example.com',
      key: `k${link}`,
      url: long ? `https://example.com/${'very-long-path/'.repeat(8)}${link}` : `https://example.com/${link}`,
      country,
      city: pick(['Springfield', 'Berlin', '']),
      region: `${country}-${next(3)}`,
      continent: country === 'US' ? 'NA' : country === 'JP' ? 'AS' : 'EU',
      device: pick(['Desktop', 'Mobile', 'Tablet']),
      browser: pick(['Chrome', 'Safari', 'Firefox']),
      os: pick(['Mac OS', 'Windows', 'iOS']),
      referer: pick(['(direct)', 'google.com', 't.co']),
      referer_url: pick(['(direct)', 'https://google.com/search?q=waymark', 'https://t.co/abc?x=1&y=2', 'https://t.co/abc']),
      trigger: pick(['link', 'qr']),
      ip: '203.0.113.1',
      ua: 'test',
      utm_source: pick([null, 'newsletter', 'twitter']),
      utm_medium: pick([null, 'email']),
      utm_campaign: pick([null, 'spring']),
      utm_term: null,
      utm_content: pick([null, 'hero']),
      customer_id: kind === 'click' ? null : `cus_${next(50)}`,
      event_name: kind === 'click' ? null : kind === 'lead' ? 'Sign up' : 'Purchase',
      amount: kind === 'sale' ? 100 + next(10_000) : 0,
      currency: kind === 'sale' ? 'usd' : null,
    });
  }
  // The link tuple at the edge of hashing: 96 characters joined stay readable, 97 are hashed.
  const edge = { ...events[0]!, link_id: 'link_edge', domain: 'dub.sh', utm_source: null, utm_medium: null, utm_campaign: null, utm_term: null, utm_content: null };
  events.push({ ...edge, id: 'evt_edge_96', url: `https://example.com/${'a'.repeat(54)}` });
  events.push({ ...edge, id: 'evt_edge_97', url: `https://example.com/${'a'.repeat(55)}` });
  return events;
}

async function insertEvents(db: Kysely<any>, events: readonly Record<string, unknown>[]): Promise<void> {
  for (let i = 0; i < events.length; i += 400) await db.insertInto('events').values(events.slice(i, i + 400)).execute();
}

/** Both rollup tables, every value a number or a string, in primary key order. */
async function rollups(db: Kysely<any>) {
  const normal = (rows: Record<string, unknown>[]) =>
    rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' || /^(bucket|clicks|leads|sales|sale_amount)$/.test(k) ? Number(v) : v])));
  const hourly = await db.selectFrom('analytics_hourly').selectAll().orderBy('workspace_id').orderBy('bucket').execute();
  const daily = await db.selectFrom('analytics_daily').selectAll().orderBy('workspace_id').orderBy('dim').orderBy('bucket').orderBy('key_hash').execute();
  return { hourly: normal(hourly), daily: normal(daily) };
}

test('0002 backfills the rollups exactly as rollupDeltas + applyRollupDeltas do for the same events', async () => {
  const { database, dispose } = await openAt0001();
  try {
    const db = database.db as Kysely<any>;
    // More than two backfill pages (5,000 events), so tuples recur across pages.
    await insertEvents(db, makeEvents(11_000));
    await m0002.up(db, database.dialect);
    const backfilled = await rollups(db);

    await db.deleteFrom('analytics_hourly').execute();
    await db.deleteFrom('analytics_daily').execute();
    const stored = (await db.selectFrom('events').selectAll().execute()) as StoredEvent[];
    await applyRollupDeltas(database.db, rollupDeltas(stored));
    const live = await rollups(db);

    assert.ok(backfilled.daily.some((r) => String(r.key_hash).startsWith('#')), 'some tuples are long enough to be hashed');
    assert.ok(backfilled.hourly.some((r) => Number(r.bucket) < 0), 'some buckets are before 1970');
    assert.ok(backfilled.daily.some((r) => r.k1 === 'link_edge' && String(r.key_hash).length === 97 && String(r.key_hash).startsWith('=')), 'a 96-character tuple is its own key');
    assert.ok(backfilled.daily.some((r) => r.k1 === 'link_edge' && String(r.key_hash).startsWith('#')), 'a 97-character tuple is hashed');
    assert.equal(backfilled.hourly.reduce((n, r) => n + Number(r.clicks) + Number(r.leads) + Number(r.sales), 0), 11_002);
    assert.deepEqual(backfilled.hourly, live.hourly);
    assert.deepEqual(backfilled.daily, live.daily);
  } finally {
    await dispose();
  }
});

test('0002 on a database without events leaves the rollups empty', async () => {
  const { database, dispose } = await openAt0001();
  try {
    await m0002.up(database.db, database.dialect);
    assert.deepEqual(await rollups(database.db), { hourly: [], daily: [] });
  } finally {
    await dispose();
  }
});
