/**
 * The DuckDB engine's own promises, beyond the contract: stored-id checks of many ids (the
 * range-bounded path) are exact, appends skip stored ids, and a refused batch leaves nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StoredEvent } from '../event-store.js';
import { contractEvent } from '../contract.js';
import { clickIdOf } from '../../redirect/click-id.js';
import { openDuckDbEngine } from './engine.js';

const T = Date.parse('2026-01-01T00:00:00Z');
const clicks = (n: number, from: number) =>
  Array.from({ length: n }, (_, i) => contractEvent('ws_e', 'lnk_e', { id: clickIdOf(T + from + i, i, 7), click_id: clickIdOf(T + from + i, i, 7), timestamp: T + from + i }));

test('stored ids: many at once are found exactly, unknown and non-ASCII ids are not', async () => {
  const engine = await openDuckDbEngine({ path: ':memory:' });
  try {
    const stored = clicks(40, 0);
    assert.equal(await engine.append(stored), 40);
    const unknown = [clickIdOf(T + 5, 99, 99), 'évt_ünknown', '\u{1F600}x', clickIdOf(T - 1000, 1, 1)];
    const found = await engine.existingIds([...unknown, ...stored.map((r) => r.id)]);
    assert.deepEqual([...found].sort(), stored.map((r) => r.id).sort());
    assert.deepEqual(await engine.existingIds([stored[3]!.id, 'nope']), [stored[3]!.id], 'the point look-up path');
  } finally {
    await engine.close();
  }
});

test('appends skip stored ids and duplicates within a batch; a refused batch leaves nothing', async () => {
  const engine = await openDuckDbEngine({ path: ':memory:' });
  try {
    const first = clicks(30, 0);
    await engine.append(first);
    const next = clicks(10, 100);
    assert.equal(await engine.append([...first.slice(0, 20), ...next, next[0]!]), 10);
    const [row] = await engine.query({ text: 'select count(*) as n from events', params: [] });
    assert.equal(Number(row!.n), 40);

    const broken = { ...clicks(1, 500)[0]!, workspace_id: null } as unknown as StoredEvent;
    await assert.rejects(engine.append([...clicks(5, 400), broken]));
    const [after] = await engine.query({ text: 'select count(*) as n from events', params: [] });
    assert.equal(Number(after!.n), 40, 'nothing of the refused batch');
  } finally {
    await engine.close();
  }
});
