/**
 * `EVENTS_URL=duckdb` through the whole app: a real click through the redirect (stored by the
 * log thread straight into DuckDB, never in the metadata database), a lead and a sale through the SDK (in
 * the metadata database with their customer, copied after the commit), then analytics and the
 * event list read from DuckDB. Runs on SQLite and PostgreSQL metadata.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Dub } from 'dub';
import { createTestApp, type TestApp } from '../../test-support/harness.js';
import { hit } from '../../redirect/testing.js';

let t: TestApp;
let dub: Dub;
let base: string;
before(async () => {
  t = await createTestApp({ config: { eventsUrl: 'duckdb::memory:' } });
  base = await t.listen();
  dub = new Dub({ token: t.key, serverURL: base });
});
after(() => t.close());

test('click → lead → sale → analytics with the event log in DuckDB', async () => {
  const store = t.ctx.events;
  assert.deepEqual(await store.describe(), { kind: 'duckdb' }, 'the log thread holds the column store');
  const link = await dub.links.create({ url: 'https://shop.example.com/pricing', key: 'duck', trackConversion: true });
  const click = await hit(base, '/duck', { host: link.domain });
  const clickId = new URL(click.location!).searchParams.get(t.config.clickIdParam)!;

  // The lead finds its click wherever it is: in the redirect's batch or in DuckDB.
  const lead = await dub.track.lead({ clickId, eventName: 'Sign up', customerExternalId: 'duck-user', mode: 'wait' });
  assert.deepEqual(lead.click, { id: clickId });
  const sale = await dub.track.sale({ customerExternalId: 'duck-user', amount: 1200, invoiceId: 'in_duck', paymentProcessor: 'stripe' });
  assert.equal(sale.sale?.amount, 1200);
  const replay = await dub.track.sale({ customerExternalId: 'duck-user', amount: 1200, invoiceId: 'in_duck', paymentProcessor: 'stripe' });
  assert.deepEqual(replay, sale, 'the invoice id is still unique (metadata database)');

  await t.modules.redirect.flushClicks();
  await t.modules.tracking.queue.drain();
  // The lead and sale reach the column store after their commits (handed over by afterCommit).
  assert.equal((await store.findClick(link.workspaceId ?? t.workspaceId, clickId))?.link_id, link.id);
  const inSql = await t.database.db.selectFrom('events').select('kind').orderBy('kind').execute();
  assert.deepEqual(inSql.map((r) => r.kind), ['lead', 'sale'], 'only leads and sales stay in the metadata database');

  const counts = await t.inject({ method: 'GET', url: `/analytics?event=composite&interval=all&linkId=${link.id}` });
  assert.equal(counts.statusCode, 200, counts.body);
  const c = counts.json();
  assert.deepEqual([c.clicks, c.leads, c.sales, c.saleAmount], [1, 1, 1, 1200]);
  const events = await t.inject({ method: 'GET', url: '/events?event=sales&interval=all' });
  assert.equal(events.statusCode, 200, events.body);
  assert.deepEqual(events.json().map((e: { click: { id: string } }) => e.click.id), [clickId]);
});
