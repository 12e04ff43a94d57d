/**
 * The column store's timer (lifecycle.ts) while the app runs: leads and sales that another
 * process wrote to the metadata database (`waymark import api` into a running server) reach
 * DuckDB within its catch-up round, about ten seconds; compaction runs on its own timer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../../test-support/harness.js';
import { contractEvent } from '../contract.js';
import { columnLifecycle } from './lifecycle.js';
import { createSqlEventStore } from '../sql/store.js';
import type { ColumnEventStore } from './store.js';

test("a lead written to the metadata database by another process shows in DuckDB's analytics within the catch-up round", async () => {
  const t = await createTestApp({ config: { eventsUrl: 'duckdb::memory:' } });
  try {
    const link = (await t.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/elsewhere', key: 'elsewhere' } })).json();
    const leads = async () => (await t.inject({ method: 'GET', url: `/analytics?event=leads&interval=all&linkId=${link.id}` })).json().leads;
    assert.equal(await leads(), 0);
    // What another process's SQL store writes: the row in the metadata database's events table only.
    await createSqlEventStore({ database: t.ctx.database }).append([contractEvent(t.workspaceId, link.id, { kind: 'lead', event_name: 'Sign up', timestamp: Date.now() - 1000 })]);
    const deadline = Date.now() + 20_000;
    while ((await leads()) === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    assert.equal(await leads(), 1);
  } finally {
    await t.close();
  }
});

test('compaction runs on its own timer: again after a failure, never after close, and close waits for the one under way', async () => {
  const calls: number[] = [];
  const errors: unknown[] = [];
  let release: () => void = () => undefined;
  let finished = 0;
  const store = { catchUp: async () => 0, applyErasures: async () => 0, close: async () => undefined } as unknown as ColumnEventStore;
  const life = columnLifecycle(store, (err) => errors.push(err), {
    compactFirstMs: 5,
    compactEveryMs: 5,
    compact: async () => {
      calls.push(Date.now());
      if (calls.length === 1) throw new Error('first compaction fails');
      if (calls.length === 3) {
        await new Promise<void>((resolve) => (release = resolve));
        finished++;
      }
    },
  });
  life.start!();
  const deadline = Date.now() + 10_000;
  while (calls.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  assert.equal(calls.length, 3, 'a failed run does not stop the timer');
  assert.equal((errors[0] as Error).message, 'first compaction fails');
  const closed = life.close!();
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(finished, 0, 'close is waiting for the run under way');
  release();
  await closed;
  assert.equal(finished, 1);
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(calls.length, 3, 'no run after close');
});
