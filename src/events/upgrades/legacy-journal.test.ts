/**
 * The previous version's batch files: what eventsCsv writes, parseEventsCsv reads back the same,
 * including the fields CSV has to quote and nulls next to the text `\N`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contractEvent } from '../contract.js';
import { eventsCsv, parseEventsCsv } from './legacy-journal.js';

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
  assert.throws(() => parseEventsCsv('ws,1\n'), /malformed/);
});
