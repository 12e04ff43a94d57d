/**
 * What the DuckDB engine reports of its memory (memory.ts): the limit it was opened with, and the
 * rows it holds in memory, by tag, summing to the total.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contractEvent } from '../contract.js';
import { clickIdOf } from '../../visitors/click-id.js';
import { openDuckDbEngine } from './duckdb-engine.js';

const T = Date.parse('2026-01-01T00:00:00Z');

test('memory: the limit set at open, and appended rows held in memory, the tags summing to the total', async () => {
  const engine = await openDuckDbEngine({ path: ':memory:', memoryLimit: '64MB' });
  try {
    const before = await engine.memory();
    // 64 MB as DuckDB prints it: 64,000,000 bytes = 61.0 MiB.
    assert.equal(before.limit, '61.0 MiB');
    const rows = Array.from({ length: 20_000 }, (_, i) =>
      contractEvent('ws_m', 'lnk_m', { id: clickIdOf(T + i, i, 3), click_id: clickIdOf(T + i, i, 3), timestamp: T + i, ua: `agent ${i} ${'x'.repeat(80)}` }));
    assert.equal(await engine.append(rows), rows.length);
    const after = await engine.memory();
    assert.ok(after.usedBytes > before.usedBytes, `${after.usedBytes} > ${before.usedBytes}`);
    // 20,000 agents of ~90 characters are at least 1.8 MB however DuckDB keeps them.
    assert.ok(after.usedBytes >= 1_800_000, `${after.usedBytes} bytes for 20,000 rows`);
    assert.equal(Object.values(after.byTag).reduce((a, b) => a + b, 0), after.usedBytes);
    assert.equal(after.temporaryBytes, 0);
  } finally {
    await engine.close();
  }
});
