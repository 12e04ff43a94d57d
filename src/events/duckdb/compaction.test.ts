/**
 * Compaction of closed days (duckdb-engine.ts `compact`): every aggregate answers the same after it, the
 * rows of a day end up in (workspace_key, timestamp) order, a second call has nothing to do, a day
 * that gains a late event is rewritten again, and appends that run while days are rewritten are
 * all kept.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AggregateSpec, DimColumn, StoredEvent } from '../event-store.js';
import { contractEvent } from '../contract.js';
import { buildScope } from '../link-scope.js';
import { aggregateQuery } from '../column/query-sql.js';
import { duckDbDialect } from './dialect.js';
import { openDuckDbEngine, type DuckDbEngine } from './duckdb-engine.js';

const DAY = 86_400_000;
const T = Date.parse('2026-03-01T00:00:00Z');
const COUNTRIES = ['US', 'DE', 'JP'];

/** `n` events of three workspaces interleaved in time order over `days` days from `from`, clicks mostly. */
function events(n: number, from: number, days: number, tag: string): StoredEvent[] {
  return Array.from({ length: n }, (_, i) => {
    const ws = `ws_${'abc'[i % 3]}`;
    const kind = i % 10 === 0 ? 'sale' : i % 5 === 0 ? 'lead' : 'click';
    const ts = from + Math.floor((i / n) * days * DAY);
    return contractEvent(ws, `lnk_${ws}_${i % 4}`, {
      id: `${kind === 'click' ? 'clk' : 'evt'}_${tag}_${String(i).padStart(5, '0')}`, timestamp: ts, country: COUNTRIES[i % 3]!,
      ...(kind === 'click' ? {} : { kind, customer_id: `cus_${i % 7}`, amount: kind === 'sale' ? 100 + i : 0 }),
    });
  });
}

async function answers(engine: DuckDbEngine): Promise<string> {
  const out: unknown[] = [];
  for (const ws of ['ws_a', 'ws_b', 'ws_c']) {
    for (const group of [[], ['country'], ['link_id']] as DimColumn[][]) {
      for (const timeseries of [false, true]) {
        const spec: AggregateSpec = { workspaceId: ws, kinds: ['click', 'lead', 'sale'], group, timeseries, dims: [], conversions: {}, scope: buildScope({ workspaceId: ws, links: {}, named: false }) };
        const rows = await engine.query(aggregateQuery(duckDbDialect, spec, { from: T - DAY, to: T + 30 * DAY }, { exclude: [] }));
        out.push(rows.map((r) => JSON.stringify(r, (_, v) => (typeof v === 'bigint' ? Number(v) : v))).sort());
      }
    }
  }
  return JSON.stringify(out);
}

const count = async (engine: DuckDbEngine) => Number((await engine.query({ text: 'select count(*) as n from events', params: [] }))[0]!.n);

test('compaction: same answers, each closed day in workspace order, idempotent, late events rewrite their day', async () => {
  const engine = await openDuckDbEngine({ path: ':memory:' });
  try {
    await engine.append(events(3000, T, 5, 'a'));
    const before = await answers(engine);
    // Days 0–3 are closed; day 4 is not (before = T + 4 days).
    const done = await engine.compact(T + 4 * DAY + 1000);
    assert.deepEqual([done.days, done.left], [4, 0]);
    assert.equal(await answers(engine), before);
    assert.equal(await count(engine), 3000);

    const rows = await engine.query({ text: `select workspace_key, "timestamp" from events where "timestamp" < ${T + 4 * DAY} order by rowid`, params: [] });
    const keys = rows.map((r) => [Number(r.timestamp) - (Number(r.timestamp) % DAY), BigInt(r.workspace_key as bigint), Number(r.timestamp)] as const);
    const sorted = [...keys].sort((x, y) => x[0] - y[0] || (x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : x[2] - y[2]));
    assert.deepEqual(keys, sorted, 'each closed day in (workspace_key, timestamp) order');
    const keyed = await engine.query({ text: `select count(distinct workspace_key) as keys, count(distinct workspace_id) as ids from events`, params: [] });
    assert.deepEqual([Number(keyed[0]!.keys), Number(keyed[0]!.ids)], [3, 3], 'one key per workspace');

    assert.equal((await engine.compact(T + 4 * DAY + 1000)).days, 0, 'nothing left to do');
    await engine.append([contractEvent('ws_b', 'lnk_ws_b_0', { id: 'clk_late', timestamp: T + DAY + 5 })]);
    const again = await engine.compact(T + 4 * DAY + 1000);
    assert.deepEqual([again.days, again.rows], [1, 601], 'only the day with the late click');
    assert.equal((await engine.eventById('clk_late'))?.workspace_id, 'ws_b', 'still found by id');
    assert.equal((await engine.compact(T + 4 * DAY + 1000, 0)).left, 0);
    // Deletions (retention, erasure) leave a day's order as it is: nothing to rewrite.
    assert.ok((await engine.deleteEvents({ workspaceId: 'ws_a', column: 'link_id', values: ['lnk_ws_a_0'] })) > 0);
    assert.equal((await engine.compact(T + 4 * DAY + 1000)).days, 0, 'a deletion does not make a day due');
  } finally {
    await engine.close();
  }
});

test('markCompacted: the history rewritten once in workspace-key order, same answers; periods recorded are not rewritten, until one gains a row', async () => {
  const engine = await openDuckDbEngine({ path: ':memory:' });
  try {
    await engine.append(events(700, T, 14, 'm'));
    const before = await answers(engine);
    const end = T + 14 * DAY;
    assert.ok((await engine.markCompacted(end, 7)) >= 2);
    assert.equal(await answers(engine), before);
    assert.equal(await count(engine), 700);
    const rows = await engine.query({ text: 'select workspace_key, "timestamp", id from events order by rowid', params: [] });
    const keys = rows.map((r) => [BigInt(r.workspace_key as bigint), Number(r.timestamp), String(r.id)] as const);
    const sorted = [...keys].sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : x[1] - y[1] || (x[2] < y[2] ? -1 : x[2] > y[2] ? 1 : 0)));
    assert.deepEqual(keys, sorted, 'the whole table in (workspace_key, timestamp, id) order');
    assert.ok(new Set(keys.map((k) => k[0])).size >= 2, 'more than one workspace, so the order means something');
    assert.equal((await engine.compact(end, Number.MAX_SAFE_INTEGER, 7)).days, 0, 'nothing due');
    await engine.append([contractEvent('ws_c', 'lnk_ws_c_0', { id: 'clk_m_late', timestamp: T + 3 * DAY })]);
    assert.equal((await engine.compact(end, Number.MAX_SAFE_INTEGER, 7)).days, 1, 'the week with the late click');
  } finally {
    await engine.close();
  }
});

test('compaction: appends while closed days are rewritten are all kept, and stored ids still skipped', async () => {
  const engine = await openDuckDbEngine({ path: ':memory:' });
  try {
    const first = events(3000, T, 6, 'a');
    await engine.append(first);
    // Late events for the days being rewritten, events of today, and a retry of stored ones.
    const late = events(300, T, 6, 'late');
    const today = events(300, T + 6 * DAY, 1, 'now');
    const results = await Promise.all([
      engine.compact(T + 6 * DAY),
      ...Array.from({ length: 10 }, (_, i) => engine.append([...late.slice(i * 30, i * 30 + 30), ...today.slice(i * 30, i * 30 + 30), first[i * 7]!])),
    ]);
    const added = results.slice(1).reduce((s: number, n) => s + (n as number), 0);
    assert.equal(added, 600, 'the retried stored event was skipped');
    assert.equal(await count(engine), 3600);
    const ids = [...first, ...late, ...today].map((e) => e.id);
    assert.equal((await engine.existingIds(ids)).length, 3600);
    // The days that got late events after their rewrite are rewritten in a later round.
    await engine.compact(T + 6 * DAY);
    assert.equal((await engine.compact(T + 6 * DAY)).days, 0);
    assert.equal(await count(engine), 3600);
  } finally {
    await engine.close();
  }
});
