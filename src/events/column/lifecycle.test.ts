/**
 * The column store's timer (lifecycle.ts) while the app runs: leads and sales that another
 * process wrote to the metadata database (`waymark import api` into a running server) reach
 * DuckDB within its catch-up round, about ten seconds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../../test-support/harness.js';
import { contractEvent } from '../contract.js';

test("a lead written to the metadata database by another process shows in DuckDB's analytics within the catch-up round", async () => {
  const t = await createTestApp({ config: { eventsUrl: 'duckdb::memory:' } });
  try {
    const link = (await t.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/elsewhere', key: 'elsewhere' } })).json();
    const leads = async () => (await t.inject({ method: 'GET', url: `/analytics?event=leads&interval=all&linkId=${link.id}` })).json().leads;
    assert.equal(await leads(), 0);
    // What another process's SQL store writes: the row in the metadata database's events table only.
    await t.ctx.sqlEvents.append([contractEvent(t.workspaceId, link.id, { kind: 'lead', event_name: 'Sign up', timestamp: Date.now() - 1000 })]);
    const deadline = Date.now() + 20_000;
    while ((await leads()) === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    assert.equal(await leads(), 1);
  } finally {
    await t.close();
  }
});
