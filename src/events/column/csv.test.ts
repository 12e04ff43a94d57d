/**
 * The CSV form of events: what eventsCsv writes, parseEventsCsv and DuckDB's read_csv read back
 * the same, including the fields CSV has to quote and nulls next to the text `\N`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contractEvent } from '../contract.js';
import { openDuckDbEngine } from '../duckdb/engine.js';
import { toEventRow } from './engine.js';
import { csvEventIds, eventsCsv, parseEventsCsv } from './csv.js';

const T = Date.parse('2026-01-01T00:00:00Z');
const awkward = [
  contractEvent('ws_c', 'lnk_c', { id: 'evt_1', timestamp: T, ua: 'Mozilla/5.0 (X11; Linux) "quoted", comma', referer: '\\N', city: '', url: 'https://example.com/a,b?c="d"\nnext' }),
  contractEvent('ws_c', 'lnk_c', { id: 'evt_2', timestamp: T + 1, utm_source: null, metadata: '{"k":"v\\\\n"}', amount: 1234, kind: 'sale', original_amount: 99, currency: 'usd' }),
  contractEvent('ws_c', 'lnk_c', { id: 'evt_3', timestamp: T + 2, country: 'DE', city: 'Zürich ✓', amount: undefined as unknown as number }),
];

test('eventsCsv and parseEventsCsv: every field comes back as written, null stays null, the text \\N stays text', () => {
  const back = parseEventsCsv(eventsCsv(awkward));
  assert.equal(back.length, 3);
  for (let i = 0; i < awkward.length; i++) {
    for (const [k, v] of Object.entries(awkward[i]!)) {
      const expected = k === 'amount' ? (v ?? 0) : (v ?? null);
      assert.deepEqual((back[i] as unknown as Record<string, unknown>)[k] ?? null, expected, `row ${i} ${k}`);
    }
  }
  assert.equal(back[0]!.referer, '\\N');
  assert.equal(back[1]!.utm_source, null);
  assert.deepEqual(csvEventIds(eventsCsv(awkward)), ['evt_1', 'evt_2', 'evt_3']);
  assert.throws(() => parseEventsCsv('ws,1\n'), /malformed/);
});

test('DuckDB appendCsvFile reads the same rows, and a second append of the file adds nothing', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-csv-'));
  const engine = await openDuckDbEngine({ path: ':memory:' });
  try {
    const file = join(dir, 'batch.csv');
    writeFileSync(file, eventsCsv(awkward));
    assert.equal(await engine.appendCsvFile(file), 3);
    assert.equal(await engine.appendCsvFile(file), 0);
    for (const row of awkward) {
      const stored = await engine.eventById(row.id);
      assert.ok(stored, row.id);
      const expected = toEventRow({ ...row, amount: row.amount ?? 0, original_amount: row.original_amount ?? null });
      for (const [k, v] of Object.entries(expected)) assert.deepEqual((stored as unknown as Record<string, unknown>)[k] ?? null, v ?? null, `${row.id} ${k}`);
    }
  } finally {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
