/**
 * The column store's SQL builder: values travel as parameters (never in the text), and the match
 * modes that are easy to get wrong select exactly their events, run on DuckDB in memory.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AggregateSpec, DimFilter, StoredEvent } from '../event-store.js';
import { buildScope } from '../link-scope.js';
import { contractEvent } from '../contract.js';
import { openDuckDbEngine, type DuckDbEngine } from '../duckdb/duckdb-engine.js';
import { duckDbDialect } from '../duckdb/dialect.js';
import { aggregateQuery, pageQuery, RAW_SLOT_MS, slotSize, summariesAnswer, type LinkIds } from './query-sql.js';

const WS = 'ws_sql';
const T = Date.parse('2025-06-01T00:00:00Z');
const range = { from: T - 1, to: T + 86_400_000 };
const everyLink: LinkIds = { exclude: [] };

function spec(over: Partial<AggregateSpec> = {}): AggregateSpec {
  return { workspaceId: WS, kinds: ['click', 'lead', 'sale'], group: [], timeseries: false, dims: [], conversions: {}, scope: buildScope({ workspaceId: WS, links: {}, named: false }), ...over };
}

describe('column store SQL', () => {
  let engine: DuckDbEngine;
  const rows: StoredEvent[] = [
    contractEvent(WS, 'lnk_1', { timestamp: T, country: 'US', region: 'US-CA', device: 'Mobile', referer_url: 'https://news.example/a' }),
    contractEvent(WS, 'lnk_1', { timestamp: T + 1, country: 'CA', region: 'CA-ON', device: 'mobile', referer_url: 'https://news.example/a?utm=x' }),
    contractEvent(WS, 'lnk_2', { timestamp: T + 2, country: 'US', region: 'US-NY', device: 'Desktop', referer_url: 'https://news.example/ab' }),
    contractEvent(WS, 'lnk_2', { kind: 'sale', timestamp: T + 3, customer_id: 'c1', amount: 100, sale_type: 'new', metadata: '{"plan":"50%_off","seats":3}' }),
    contractEvent(WS, 'lnk_2', { kind: 'sale', timestamp: T + 4, customer_id: 'c2', amount: 200, sale_type: 'new', metadata: '{"plan":"50 off","seats":30}' }),
    contractEvent('ws_other', 'lnk_x', { timestamp: T, country: 'US' }),
  ];

  before(async () => {
    engine = await openDuckDbEngine({ path: ':memory:' });
    await engine.append(rows);
  });
  after(() => engine?.close());

  const ids = async (s: AggregateSpec, links: LinkIds = everyLink) =>
    (await engine.query(pageQuery(duckDbDialect, s, range, links, { order: 'asc', limit: 100, offset: 0 }))).map((r) => String(r.id));
  const idsOf = (...i: number[]) => i.map((n) => rows[n]!.id);
  const dim = (f: Omit<DimFilter, 'filter'> & { values: string[]; op?: 'in' | 'notIn' }): DimFilter => ({ column: f.column, mode: f.mode, filter: { op: f.op ?? 'in', values: f.values } });

  test('values are bound, never written into the text', () => {
    const hostile = "x' or 1=1 --";
    const q = aggregateQuery(duckDbDialect, spec({ group: ['country'], dims: [dim({ column: 'country', mode: 'exact', values: [hostile] })], conversions: { ref: hostile, metadata: { text: hostile } } }), range, { include: [hostile] });
    assert.ok(!q.text.includes(hostile) && !q.text.includes('1=1'), q.text);
    assert.ok(q.params.some((p) => p.type === 'text' && p.value === hostile));
    assert.ok(q.params.some((p) => p.type === 'texts' && p.value.includes(hostile)));
  });

  test('region filters accept a region code with or without its country', async () => {
    assert.deepEqual(await ids(spec({ kinds: ['click'], dims: [dim({ column: 'region', mode: 'region', values: ['CA'] })] })), idsOf(0));
    assert.deepEqual(await ids(spec({ kinds: ['click'], dims: [dim({ column: 'region', mode: 'region', values: ['US-NY', 'ON'] })] })), idsOf(1, 2));
  });

  test('case-insensitive names and referers without their query string', async () => {
    assert.deepEqual(await ids(spec({ kinds: ['click'], dims: [dim({ column: 'device', mode: 'ci', values: ['MOBILE'] })] })), idsOf(0, 1));
    assert.deepEqual(await ids(spec({ kinds: ['click'], dims: [dim({ column: 'referer_url', mode: 'withoutQuery', values: ['https://news.example/a'] })] })), idsOf(0, 1), 'ab is another page');
    assert.deepEqual(await ids(spec({ kinds: ['click'], dims: [dim({ column: 'referer_url', mode: 'withoutQuery', values: ['https://news.example/a'], op: 'notIn' })] })), idsOf(2));
  });

  test('metadata matches: % and _ are plain characters, numbers match whole', async () => {
    assert.deepEqual(await ids(spec({ kinds: ['sale'], conversions: { metadata: { text: '50%_' } } })), idsOf(3));
    assert.deepEqual(await ids(spec({ kinds: ['sale'], conversions: { metadata: { key: 'seats', value: '3' } } })), idsOf(3));
    assert.deepEqual(await ids(spec({ kinds: ['sale'], conversions: { metadata: { key: 'PLAN', value: '50 OFF' } } })), idsOf(4), 'keys and values ignore case');
  });

  test('link lists: included, excluded, and an empty inclusion counts nothing', async () => {
    assert.deepEqual(await ids(spec({ kinds: ['click'] }), { include: ['lnk_2'] }), idsOf(2));
    assert.deepEqual(await ids(spec({ kinds: ['click'] }), { exclude: ['lnk_2'] }), idsOf(0, 1));
    assert.deepEqual(await ids(spec(), { include: [] }), []);
  });

  test('absent UTM values group as the empty string; timeseries slots are quarter hours', async () => {
    const grouped = await engine.query(aggregateQuery(duckDbDialect, spec({ kinds: ['click'], group: ['utm_source'], timeseries: true }), range, everyLink));
    assert.deepEqual(grouped.map((r) => [r.g0, Number(r.slot), Number(r.clicks)]), [['', T, 3]]);
  });

  test('timeseries slots are as coarse as the bucket boundaries allow: days, hours, else quarter hours', () => {
    const H = 3_600_000;
    assert.equal(slotSize(undefined), RAW_SLOT_MS);
    assert.equal(slotSize([]), 24 * H, 'one bucket: any slot lies inside it');
    assert.equal(slotSize([T + 24 * H, T + 48 * H]), 24 * H, 'UTC days');
    assert.equal(slotSize([T + 28 * H, T + 53 * H]), H, 'days in a zone of whole hours (a DST change included)');
    assert.equal(slotSize([T + 24 * H + 30 * 60_000]), RAW_SLOT_MS, 'days in a zone of half hours');
  });

  test('day slots of a range that starts mid-day: the first slot starts at the range, every event in the bucket of its own time', async () => {
    const H = 3_600_000;
    const ws = 'ws_slots';
    await engine.append([1, 2, 26, 27, 50].map((h, i) => contractEvent(ws, 'lnk_s', { id: `evt_slot${i}`, timestamp: T + h * H })));
    const s = { ...spec({ kinds: ['click'], timeseries: true }), workspaceId: ws, scope: buildScope({ workspaceId: ws, links: {}, named: false }) };
    const slots = async (from: number, boundaries: number[]) =>
      (await engine.query(aggregateQuery(duckDbDialect, s, { from, to: T + 72 * H }, everyLink, boundaries)))
        .map((r) => [Number(r.slot) - T, Number(r.clicks)])
        .sort((a, b) => a[0]! - b[0]!);
    assert.deepEqual(await slots(T + 1.5 * H, [T + 24 * H, T + 48 * H]), [[1.5 * H, 1], [24 * H, 2], [48 * H, 1]], 'the click at 1h is before the range');
    assert.deepEqual(await slots(T + 1.5 * H, [T + 27 * H]), [[2 * H, 1], [26 * H, 1], [27 * H, 1], [50 * H, 1]], 'hour slots');
  });

  test('clicks alone are counted without reading amounts; with conversions every metric is summed', async () => {
    const clicksOnly = aggregateQuery(duckDbDialect, spec({ kinds: ['click'], group: ['country'] }), range, everyLink);
    assert.ok(!clicksOnly.text.includes('"amount"'), clicksOnly.text);
    const metrics = (rows: Record<string, unknown>[]) =>
      rows.map((r) => [String(r.g0), Number(r.clicks), Number(r.leads), Number(r.sales), Number(r.sale_amount)]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    assert.deepEqual(metrics(await engine.query(clicksOnly)), [['CA', 1, 0, 0, 0], ['US', 2, 0, 0, 0]]);
    const all = aggregateQuery(duckDbDialect, spec({ group: ['link_id'] }), range, everyLink);
    assert.deepEqual(metrics(await engine.query(all)), [['lnk_1', 2, 0, 0, 0], ['lnk_2', 1, 0, 2, 300]]);
  });

  test('the summaries answer counts, timeseries and link groupings only', () => {
    assert.equal(summariesAnswer(spec({ group: ['link_id'], timeseries: true })), true);
    assert.equal(summariesAnswer(spec({ group: ['country'] })), false);
    assert.equal(summariesAnswer(spec({ dims: [dim({ column: 'country', mode: 'exact', values: ['US'] })] })), false);
    assert.equal(summariesAnswer(spec({ conversions: { customerId: 'c1' } })), false);
  });
});
