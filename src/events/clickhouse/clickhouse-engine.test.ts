/**
 * What the ClickHouse engine adds to the contract: exact counts when two processes insert the
 * same event, an expiry redone after a crash between its two steps, and the point look-up
 * through the bloom filter on id. Run on chdb.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { contractEvent } from '../contract.js';
import { aggregateQuery } from '../column/query-sql.js';
import { EVENT_COLUMNS } from '../column/column-engine.js';
import type { ColumnEngine } from '../column/column-engine.js';
import type { AggregateSpec } from '../event-store.js';
import { openChdbExecutor } from './chdb-executor.js';
import type { ClickHouseExecutor } from './executor.js';
import { insertRow, openClickHouseEngine } from './clickhouse-engine.js';

const H = 3_600_000;
/** The contract's events are stamped here unless told otherwise. */
const T0 = Date.parse('2025-03-10T00:00:00.000Z');

function countSpec(workspaceId: string): AggregateSpec {
  return {
    workspaceId,
    // aggregateQuery takes the links resolved (its fourth argument): the scope is not read.
    scope: { mode: 'workspace', input: { workspaceId } },
    kinds: ['click', 'lead', 'sale'],
    group: [],
    dims: [],
    conversions: {},
    timeseries: false,
  } as unknown as AggregateSpec;
}

describe('ClickHouse engine', () => {
  let ch: ClickHouseExecutor;
  let engine: ColumnEngine;
  /** When set, the next DELETE of events fails (a crash between an expiry's insert and its delete). */
  let failNextDelete = false;

  before(async () => {
    ch = await openChdbExecutor();
    const flaky: ClickHouseExecutor = {
      ...ch,
      async command(sql, params, settings) {
        if (failNextDelete && /^DELETE FROM events/.test(sql)) {
          failNextDelete = false;
          throw new Error('connection lost');
        }
        return ch.command(sql, params, settings);
      },
    };
    engine = await openClickHouseEngine({ executor: flaky });
  });
  after(() => engine.close());

  const total = async (ws: string, range = { from: T0 - 1000 * H, to: T0 + 1000 * H }) => {
    const [row] = await engine.query(aggregateQuery(engine.dialect, countSpec(ws), range, { exclude: [] }));
    return { clicks: Number(row?.clicks ?? 0), leads: Number(row?.leads ?? 0), sales: Number(row?.sales ?? 0), sale_amount: Number(row?.sale_amount ?? 0) };
  };
  const summaries = async (ws: string, range: { from: number; to: number }) => {
    const [row] = await ch.query('SELECT sum(clicks) AS clicks FROM event_summaries WHERE workspace_id = {ws:String} AND bucket >= {from:Int64} AND bucket < {to:Int64}', { ws, ...range }, { final: 1 });
    return Number(row?.clicks ?? 0);
  };

  test('append adds only ids not stored yet, and says how many', async () => {
    const rows = [contractEvent('ws_append', 'lnk_a'), contractEvent('ws_append', 'lnk_a', { kind: 'sale', amount: 1200 })];
    assert.equal(await engine.append([...rows, rows[0]!]), 2, 'an id twice in one batch is one event');
    assert.equal(await engine.append(rows), 0, 'a retried batch adds nothing');
    assert.deepEqual(await total('ws_append'), { clicks: 1, leads: 0, sales: 1, sale_amount: 1200 });
  });

  test('an event inserted by two processes at once counts once, before and after ClickHouse merges', async () => {
    const click = contractEvent('ws_race', 'lnk_a');
    // Both processes looked up the id before either inserted it: two inserts, two parts.
    await ch.insert('events', EVENT_COLUMNS, [insertRow(click)]);
    await ch.insert('events', EVENT_COLUMNS, [insertRow(click)]);
    assert.deepEqual(await total('ws_race'), { clicks: 1, leads: 0, sales: 0, sale_amount: 0 });
    assert.deepEqual(await engine.existingIds([click.id]), [click.id]);
    await ch.command('OPTIMIZE TABLE events FINAL');
    assert.deepEqual(await total('ws_race'), { clicks: 1, leads: 0, sales: 0, sale_amount: 0 });
  });

  test('an expiry redone after a crash between its summaries and its delete counts each event once', async () => {
    const day = T0 - 100 * 24 * H;
    const old = Array.from({ length: 4 }, (_, i) => contractEvent('ws_expire', 'lnk_a', { timestamp: day + i * H }));
    await engine.append(old);
    const range = { from: day, to: day + 24 * H };
    failNextDelete = true;
    await assert.rejects(engine.expire(day + 24 * H, 10), /connection lost/);
    assert.equal(await summaries('ws_expire', range), 4, 'summaries written, events still there');
    const { count } = await engine.expire(day + 24 * H, 10);
    assert.equal(count, 4);
    assert.equal(await summaries('ws_expire', range), 4, 'the same batch replaced its summaries');
    assert.deepEqual(await total('ws_expire', range), { clicks: 0, leads: 0, sales: 0, sale_amount: 0 }, 'no raw event left');
    assert.deepEqual(await engine.expire(day + 24 * H, 10), { count: 0, conversionIds: [] });
  });

  test('erasure removes the rows before it returns, and reports how many', async () => {
    const rows = [contractEvent('ws_erase', 'lnk_a', { ip: '198.51.100.9' }), contractEvent('ws_erase', 'lnk_a', { ip: '198.51.100.9' }), contractEvent('ws_erase', 'lnk_b')];
    await engine.append(rows);
    assert.equal(await engine.deleteEvents({ column: 'ip', values: ['198.51.100.9'] }), 2);
    assert.deepEqual(await total('ws_erase'), { clicks: 1, leads: 0, sales: 0, sale_amount: 0 });
    assert.equal(await engine.eventById(rows[0]!.id), undefined);
    assert.equal(await engine.deleteEvents({ workspaceId: 'ws_other', column: 'link_id', values: ['lnk_b'] }), 0, 'another workspace erases nothing');
  });

  test('the look-up by id skips granules through the bloom filter on id', async () => {
    const click = contractEvent('ws_lookup', 'lnk_a');
    await engine.append([click]);
    assert.equal((await engine.eventById(click.id))?.workspace_id, 'ws_lookup');
    const plan = (await ch.query('EXPLAIN indexes = 1 SELECT * FROM events WHERE "id" = {id:String} LIMIT 1', { id: click.id })).map((r) => String(r.explain)).join('\n');
    assert.match(plan, /Name: events_id/);
  });
});
