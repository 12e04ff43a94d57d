/**
 * The DuckDB file's copy of the credits (credit-copies.ts) holds exactly the metadata database's
 * rows after every road that writes or rewrites them: a sale's append, a rewrite, a stop before
 * the copy, an erasure and the recomputation it queues, retention, and a file made before the
 * copy existed; and `creditAggregate` reads the file only while it is in step.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import { createTestApp } from '../../test-support/harness.js';
import { contractEvent } from '../contract.js';
import { buildScope } from '../link-scope.js';
import type { AggregateSpec, StoredEvent } from '../event-store.js';
import { insertLink } from '../../redirect/testing.js';
import { openDuckDbEngine } from '../duckdb/duckdb-engine.js';
import { appendWithCredits } from '../../attribution/credit-writer.js';
import { createCreditBackfill } from '../../attribution/backfill.js';
import { createColumnEventStore, openColumnEventStore } from './store.js';
import { createColumnConversions } from './conversions.js';
import type { ColumnEngine } from './column-engine.js';

const H = 3_600_000;
const T = Date.now() - 48 * H;

type Row = [string, string, string, number, number];
const sortRows = (rows: Row[]) => rows.sort((a, b) => a.join('|').localeCompare(b.join('|')));
const shape = (r: Record<string, unknown>): Row => [String(r.sale_id), String(r.model), String(r.click_id), Math.round(Number(r.share) * 1e4) / 1e4, Number(r.cents)];
const metadataRows = async (db: Kysely<Database>) => sortRows((await db.selectFrom('credits').selectAll().execute()).map((r) => shape(r as never)));
const fileRows = async (engine: ColumnEngine) => sortRows((await engine.query({ text: 'select * from credits', params: [] })).map(shape));
const marks = async (db: Kysely<Database>) => (await db.selectFrom('credit_copies').select('sale_id').execute()).map((r) => r.sale_id).sort();

async function setup() {
  const t = await createTestApp();
  const engine = await openDuckDbEngine({ path: ':memory:' });
  const { workspaceId: ws } = await t.addWorkspace();
  for (const id of ['lnk_a', 'lnk_b']) await insertLink(t.database.db, ws, { id, domain: 'wm.test', key: id, url: 'https://example.com/' });
  // Which statements the store sends to the engine: the file answers when one reads `credits`.
  const texts: string[] = [];
  const spied: ColumnEngine = { ...engine, query: (q) => (texts.push(q.text), engine.query(q)) };
  const store = await openColumnEventStore({ database: t.database, engine: spied });
  const conversions = createColumnConversions({ database: t.database, log: store });
  const db = t.database.db;
  const tx = <R>(fn: (trx: Kysely<Database>) => Promise<R>) => db.transaction().execute(fn);
  const leadA = contractEvent(ws, 'lnk_a', { kind: 'lead', timestamp: T, customer_id: 'cus_1', country: 'DE', event_name: 'Sign up' });
  const leadB = contractEvent(ws, 'lnk_b', { kind: 'lead', timestamp: T + H, customer_id: 'cus_1', country: 'FR', event_name: 'Trial' });
  const sale = contractEvent(ws, 'lnk_b', { kind: 'sale', timestamp: T + 2 * H, customer_id: 'cus_1', click_id: leadB.click_id, country: 'FR', amount: 1001, sale_type: 'new', invoice_id: null });
  const spec: AggregateSpec = { workspaceId: ws, kinds: ['sale'], group: ['link_id'], timeseries: false, dims: [], conversions: {}, scope: buildScope({ workspaceId: ws, links: {}, named: false }) };
  const linear = async () => {
    const rows = await store.creditAggregate(spec, { from: T - H, to: T + 24 * H }, 'linear');
    return Object.fromEntries(rows.map((r) => [r.g[0], [Number(r.sales), Number(r.sale_amount)]]).sort());
  };
  const fromFile = async <R>(fn: () => Promise<R>) => {
    texts.length = 0;
    const out = await fn();
    return { out, file: texts.some((q) => /from credits/.test(q)) };
  };
  return { t, engine, store, conversions, db, tx, ws, leadA, leadB, sale, linear, fromFile };
}

test("a sale's credits reach the file with it; a rewrite replaces them there; a stop before the copy loses nothing", async () => {
  const s = await setup();
  try {
    await s.tx((trx) => appendWithCredits(s.conversions, [s.leadA, s.leadB] as StoredEvent[], trx));
    await s.tx((trx) => appendWithCredits(s.conversions, [s.sale], trx));
    await s.conversions.afterCommit();
    const rows = await metadataRows(s.db);
    assert.equal(rows.length, 7, 'first click on one touch, the other three models on both');
    assert.deepEqual(await fileRows(s.engine), rows, "the file holds the sale's rows");
    assert.deepEqual(await marks(s.db), [], 'nothing left to copy');
    const stored = await s.fromFile(s.linear);
    assert.deepEqual(stored, { out: { lnk_a: [0.5, 501], lnk_b: [0.5, 500] }, file: true }, 'answered from the file');

    // A rewrite committed, and the process stops before its copy: the mark stays, and the
    // metadata database answers meanwhile.
    const [one] = await s.db.selectFrom('credits').selectAll().where('model', '=', 'linear').where('click_id', '=', s.leadB.click_id).execute();
    await s.tx((trx) => s.conversions.replaceCredits([s.sale.id], [{ ...one!, share: 1, cents: 1001 }], trx));
    assert.deepEqual(await marks(s.db), [s.sale.id]);
    assert.deepEqual(await s.fromFile(s.linear), { out: { lnk_b: [1, 1001] }, file: false }, 'not in step: the metadata rows answer');
    // The next start's catch-up (or any upkeep round) copies it.
    const reopened = createColumnEventStore({ database: s.t.database, engine: s.engine });
    await reopened.catchUp();
    assert.deepEqual(await fileRows(s.engine), await metadataRows(s.db), 'the rewrite copied');
    assert.deepEqual(await marks(s.db), []);
    assert.deepEqual(await s.fromFile(s.linear), { out: { lnk_b: [1, 1001] }, file: true });
    // Copying again changes nothing.
    await reopened.applyErasures();
    assert.deepEqual(await fileRows(s.engine), await metadataRows(s.db));
  } finally {
    await s.store.close();
    await s.t.close();
  }
});

test('a sale changed again while its copy runs keeps its newer mark, and the next copy brings the newer rows', async () => {
  const s = await setup();
  try {
    await s.tx((trx) => appendWithCredits(s.conversions, [s.leadA, s.leadB, s.sale] as StoredEvent[], trx));
    const credits = s.engine.credits!;
    const [one] = await s.db.selectFrom('credits').selectAll().where('model', '=', 'first_click').execute();
    let changed = false;
    const racing: ColumnEngine = {
      ...s.engine,
      credits: {
        ...credits,
        async replace(target, rows) {
          // The rewrite commits between the copy's read of the metadata database and its end.
          if (!changed) {
            changed = true;
            await s.tx((trx) => s.conversions.replaceCredits([s.sale.id], [{ ...one!, cents: 7 }], trx));
          }
          return credits.replace(target, rows);
        },
      },
    };
    const store = createColumnEventStore({ database: s.t.database, engine: racing });
    await store.applyErasures();
    assert.equal(changed, true);
    assert.equal((await fileRows(s.engine)).length, 7, 'the copy landed the rows it read');
    assert.deepEqual(await marks(s.db), [s.sale.id], 'the newer mark stays');
    await store.applyErasures();
    assert.deepEqual(await fileRows(s.engine), sortRows([[s.sale.id, 'first_click', one!.click_id, 1, 7]]), 'the next copy brought the newer rows');
    assert.deepEqual(await marks(s.db), []);
  } finally {
    await s.store.close();
    await s.t.close();
  }
});

test('erasures, the recomputation they queue, retention and a file made before the copy keep the file equal to the metadata database', async () => {
  const s = await setup();
  try {
    const other = contractEvent(s.ws, 'lnk_a', { kind: 'lead', timestamp: T, customer_id: 'cus_2', event_name: 'Sign up' });
    const otherSale = contractEvent(s.ws, 'lnk_a', { kind: 'sale', timestamp: T + H, customer_id: 'cus_2', click_id: other.click_id, amount: 400, sale_type: 'new', invoice_id: null });
    await s.tx((trx) => appendWithCredits(s.conversions, [s.leadA, s.leadB, s.sale, other, otherSale] as StoredEvent[], trx));
    await s.conversions.afterCommit();
    assert.deepEqual(await fileRows(s.engine), await metadataRows(s.db));

    // Erasing a touch (lead A's click) queues the sale; its recomputation credits lead B alone.
    await s.store.forgetClick(s.leadA.click_id);
    const backfill = createCreditBackfill({ conversions: s.conversions, transaction: s.tx, now: Date.now });
    assert.equal(await backfill.recompute(), 1);
    await s.store.applyErasures();
    const after = await metadataRows(s.db);
    assert.ok(after.filter((r) => r[0] === s.sale.id).every((r) => r[2] === s.leadB.click_id && r[4] === 1001), 'recomputed on lead B');
    assert.deepEqual(await fileRows(s.engine), after, 'the file follows the erasure and the recomputation');
    assert.deepEqual(await s.fromFile(s.linear), { out: { lnk_a: [1, 400], lnk_b: [1, 1001] }, file: true });

    // An erased customer's sale takes its rows from the file too.
    await s.tx((trx) => s.conversions.forgetCustomer(s.ws, 'cus_2', trx));
    await s.conversions.afterCommit();
    assert.deepEqual((await fileRows(s.engine)).filter((r) => r[0] === otherSale.id), []);
    assert.deepEqual(await fileRows(s.engine), await metadataRows(s.db));

    // Retention: the sale's time passed the horizon, its rows go from both.
    await s.store.expire(T + 3 * H, 1000);
    assert.deepEqual(await metadataRows(s.db), []);
    assert.deepEqual(await fileRows(s.engine), []);
  } finally {
    await s.store.close();
    await s.t.close();
  }
});

test('a file without the credits (made before they were copied) is filled at open; a stray row of the file goes', async () => {
  const s = await setup();
  try {
    await s.tx((trx) => appendWithCredits(s.conversions, [s.leadA, s.leadB, s.sale] as StoredEvent[], trx));
    await s.conversions.afterCommit();
    const rows = await metadataRows(s.db);
    await s.engine.credits!.replace({ workspaceId: s.ws }, []);
    const [one] = await s.db.selectFrom('credits').selectAll().limit(1).execute();
    await s.engine.credits!.replace({ saleIds: ['evt_stray'] }, [{ ...one!, workspace_id: 'ws_gone', sale_id: 'evt_stray' }]);
    const opened = await openColumnEventStore({ database: s.t.database, engine: s.engine });
    assert.deepEqual(await fileRows(s.engine), rows, 'refilled, the stray row gone');
    assert.equal(await opened.reconcileCredits(), 0, 'in step: nothing to refill');
  } finally {
    await s.store.close();
    await s.t.close();
  }
});
