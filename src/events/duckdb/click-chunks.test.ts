/**
 * Click batches as data chunks (click-chunks.ts): what DuckDB stores is exactly the batch's wide
 * rows (`rowsOf`), column by column, whatever the batch holds: ids of the time-and-random form or
 * text ids, values null in some rows and not others, columns null everywhere, more rows than one
 * chunk, and dictionaries too big for one-byte ENUM codes (two and four bytes).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contractEvent } from '../contract.js';
import { columnsOf, rowsOf } from '../batch/wide-rows.js';
import type { ClickColumns } from '../batch/click-columns.js';
import { toEventRow } from '../column/column-engine.js';
import { clickIdOf } from '../../visitors/click-id.js';
import { codeArrayFor, enumColumn } from './click-chunks.js';
import { openDuckDbEngine } from './duckdb-engine.js';

const T = Date.parse('2026-03-01T00:00:00Z');

/** Stores the batch, reads every stored row back, and compares it with the batch's wide rows. */
async function storedEqualsRows(columns: ClickColumns): Promise<void> {
  const engine = await openDuckDbEngine({ path: ':memory:' });
  try {
    assert.deepEqual(await engine.appendClicks('b1', columns), { seq: 1, duplicate: false });
    const stored = await engine.query({ text: 'select * exclude (workspace_key, batch) from events order by id', params: [] });
    const expected = rowsOf(columns).map((r) => toEventRow(r as unknown as Record<string, unknown>)).sort((a, b) => (a.id < b.id ? -1 : 1));
    assert.equal(stored.length, columns.length);
    assert.deepEqual(stored.map((r) => toEventRow(r)), expected);
    const [batch] = await engine.query({ text: 'select count(*) as n, min(batch) as lo, max(batch) as hi, count(distinct workspace_key) as keys from events', params: [] });
    assert.deepEqual([Number(batch!.n), Number(batch!.lo), Number(batch!.hi)], [columns.length, 1, 1]);
    const workspaces = new Set(columns.dictionaries.links.map((l) => l.workspace_id)).size;
    assert.equal(Number(batch!.keys), workspaces, 'one workspace key per workspace');
  } finally {
    await engine.close();
  }
}

test('the ENUM members of a column: distinct non-null values in first-seen order, -1 for null', () => {
  assert.deepEqual(enumColumn(['b', null, 'a', 'b', 'c', null]), { members: ['b', 'a', 'c'], codeOf: Int32Array.from([0, -1, 1, 0, 2, -1]) });
  assert.deepEqual(enumColumn([]), { members: [], codeOf: new Int32Array(0) });
  assert.ok(codeArrayFor(255, 1) instanceof Uint8Array);
  assert.ok(codeArrayFor(256, 1) instanceof Uint16Array);
  assert.ok(codeArrayFor(65_535, 1) instanceof Uint16Array);
  assert.ok(codeArrayFor(65_536, 1) instanceof Uint32Array);
});

test('a batch in time-and-random ids, over several chunks, with UTM values null in some rows: stored as its wide rows', async () => {
  const n = 5000;
  const rows = Array.from({ length: n }, (_, i) =>
    contractEvent(`ws_${i % 3}`, `lnk_${i % 40}`, {
      timestamp: T + i,
      url: `https://example.com/p/${i % 7}`,
      utm_source: i % 7 < 3 ? null : `src-${i % 7}`,
      utm_campaign: i % 7 === 5 ? 'spring' : null,
      ua: `agent-${i % 11}`,
      browser: i % 11 < 5 ? 'Chrome' : 'Firefox',
      ip: `203.0.113.${i % 250}`,
      country: i % 2 ? 'DE' : 'FR',
      trigger: i % 5 ? 'link' : 'qr',
    }),
  );
  const fromRows = columnsOf(rows);
  // The redirect's form: ids spelled from the time and two random parts, no text ids.
  const random = new Uint32Array(2 * n);
  for (let i = 0; i < n; i++) [random[2 * i], random[2 * i + 1]] = [i * 7 + 1, i * 13 + 2];
  const { ids: _ids, ...rest } = fromRows;
  const columns: ClickColumns = { ...rest, random };
  assert.equal(rowsOf(columns)[4]!.id, clickIdOf(T + 4, 29, 54));
  await storedEqualsRows(columns);
});

test('text ids (imported clicks), a column null everywhere, and dictionaries past one- and two-byte codes', async () => {
  // 300 addresses need two-byte codes; 70,000 distinct agents four-byte ones.
  const n = 70_000;
  const rows = Array.from({ length: n }, (_, i) =>
    contractEvent('ws_big', `lnk_${i % 3}`, { id: `imported-${i}`, click_id: `imported-${i}`, timestamp: T + i, ip: `198.51.100.${i % 300}`, ua: `ua-${i}`, utm_source: null }),
  );
  await storedEqualsRows(columnsOf(rows));
});

test('a batch whose link has no workspace is refused and leaves nothing', async () => {
  const engine = await openDuckDbEngine({ path: ':memory:' });
  try {
    const broken = columnsOf([contractEvent('ws_1', 'lnk_1', { id: 'c1', click_id: 'c1', timestamp: T })]);
    (broken.dictionaries.links[0] as { workspace_id: string | null }).workspace_id = null;
    await assert.rejects(engine.appendClicks('b1', broken));
    const [row] = await engine.query({ text: 'select count(*) as n from events', params: [] });
    assert.equal(Number(row!.n), 0);
    assert.deepEqual(await engine.appendClicks('b1', columnsOf([contractEvent('ws_1', 'lnk_1', { id: 'c1', click_id: 'c1', timestamp: T })])), { seq: 1, duplicate: false });
  } finally {
    await engine.close();
  }
});
