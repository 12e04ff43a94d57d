/**
 * An erasure's two halves (erasure.ts) on the column store: the metadata half commits with its
 * caller's transaction and a hand-off row, or rolls back with it leaving everything; the column
 * half runs only after the commit (`afterCommit`), once, and running it again changes nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../../test-support/harness.js';
import { insertLink } from '../../redirect/testing.js';
import { contractEvent } from '../contract.js';
import { openDuckDbEngine } from '../duckdb/duckdb-engine.js';
import { openColumnEventStore } from './store.js';
import { createColumnConversions } from './conversions.js';
import { pendingErasures } from './erasure.js';

test("a customer's erasure: rolled back with its transaction, or committed with a hand-off that the column store applies after the commit, once", async () => {
  const t = await createTestApp();
  const engine = await openDuckDbEngine({ path: ':memory:' });
  const store = await openColumnEventStore({ database: t.database, engine });
  try {
    const db = t.database.db;
    await insertLink(db, t.workspaceId, { id: 'lnk_e', domain: 'wm.test', key: 'e', url: 'https://example.com/' });
    const lead = contractEvent(t.workspaceId, 'lnk_e', { kind: 'lead', timestamp: Date.now(), customer_id: 'cus_e', event_name: 'Sign up' });
    const other = contractEvent(t.workspaceId, 'lnk_e', { kind: 'lead', timestamp: Date.now(), customer_id: 'cus_o', event_name: 'Sign up' });
    await store.append([lead, other]);
    let applied = 0;
    const conversions = createColumnConversions({ database: t.database, log: { copyConversions: store.copyConversions, applyErasures: async () => (applied++, store.applyErasures()) } });
    const inColumn = async () => (await engine.existingIds([lead.id, other.id])).sort();

    await assert.rejects(
      db.transaction().execute(async (trx) => {
        assert.equal(await conversions.forgetCustomer(t.workspaceId, 'cus_e', trx), 1);
        throw new Error('rolled back');
      }),
      /rolled back/,
    );
    assert.equal(await pendingErasures(db), 0, 'no hand-off of a rolled-back erasure');
    assert.ok(await conversions.hasAnyLead(t.workspaceId, 'cus_e'), 'the metadata rows stay');

    assert.equal(await db.transaction().execute((trx) => conversions.forgetCustomer(t.workspaceId, 'cus_e', trx)), 1);
    assert.equal(applied, 0, 'nothing asked of the log while the transaction was open');
    assert.equal(await pendingErasures(db), 1);
    assert.deepEqual(await inColumn(), [lead.id, other.id].sort(), 'the column store still holds it until the hand-off is applied');
    await conversions.afterCommit();
    assert.equal(applied, 1);
    assert.equal(await pendingErasures(db), 0);
    assert.deepEqual(await inColumn(), [other.id], "only the customer's events left the column store");
    assert.equal(await store.applyErasures(), 0, 'applied once: nothing left to apply');
    assert.equal(await conversions.hasAnyLead(t.workspaceId, 'cus_e'), false);
    assert.ok(await conversions.hasAnyLead(t.workspaceId, 'cus_o'));
  } finally {
    await store.close();
    await t.close();
  }
});
