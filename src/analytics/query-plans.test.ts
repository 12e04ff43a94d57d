/**
 * Query plans of every statement analytics runs (style.md habit 11; storage-benchmarks.md §2):
 * a sweep of groupings, events, filters and intervals is captured from the runner (the event
 * store's reads made again on this thread, since they run on the event log's), and each
 * distinct statement is explained on the engine under test.
 * - SQLite (`EXPLAIN QUERY PLAN`): no full scan of events or rollups; workspace scans go through
 *   the clustered primary key, named links through (link_id, timestamp), leads and sales through
 *   the conversions index; `GROUP BY link_id` never walks the link index.
 * - PostgreSQL (`EXPLAIN` with sequential scans disabled): no sequential scan of events or
 *   rollups, i.e. an index serves every predicate (tiny test tables would otherwise always be
 *   scanned sequentially, whatever the indexes).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { CompiledQuery } from 'kysely';
import { createTestApp, TEST_ENGINE, type TestApp } from '../test-support/harness.js';
import { SEED_NOW, seedAnalytics } from './testing.js';
import { createSqlEventStore } from '../events/index.js';

let t: TestApp;
const statements = new Map<string, readonly unknown[]>();

before(async () => {
  t = await createTestApp({ now: () => SEED_NOW });
  const other = await t.addWorkspace();
  await seedAnalytics(t.database.db, t.ctx.events, t.workspaceId, other.workspaceId);
  const runner = t.modules.analytics.runner;
  const run = runner.run.bind(runner);
  runner.run = (queries) => {
    for (const q of queries) statements.set(q.sql, q.parameters);
    return run(queries);
  };
  // The event store's reads run on the event log's thread: each call is made again here, on an
  // SQL store over the capturing runner, so its statements are captured too.
  const local = createSqlEventStore({ database: t.database, runner });
  const events = t.ctx.events;
  const aggregate = events.aggregate.bind(events);
  const page = events.page.bind(events);
  events.aggregate = async (spec, range, boundaries) => {
    await local.aggregate(spec, range, boundaries);
    return aggregate(spec, range, boundaries);
  };
  events.page = async (spec, range, p) => {
    await local.page(spec, range, p);
    return page(spec, range, p);
  };
  const get = (url: string) => t.inject({ method: 'GET', url });
  const groupings = ['count', 'timeseries', 'countries', 'cities', 'devices', 'referers', 'top_links', 'top_link_tags', 'top_folders', 'utm_sources', 'top_urls'];
  const filters = ['', 'device=Mobile', 'country=US&browser=Chrome', 'linkId=link_a', 'linkId=link_a,link_c', 'tagIds=x', 'folderId=-f', 'customerId=cus_1', 'saleType=new', "query=metadata['plan']:'pro'", 'ref=spring', 'domain=go.test&key=a'];
  for (const g of groupings) {
    for (const event of ['clicks', 'leads', 'sales', 'composite']) {
      for (const f of filters) {
        for (const range of ['interval=30d', 'interval=24h', 'interval=mtd&timezone=America/Los_Angeles']) {
          const res = await get(`/analytics?groupBy=${g}&event=${event}&${range}&${encodeURI(f)}`);
          assert.equal(res.statusCode, 200, res.body);
        }
      }
    }
  }
  for (const event of ['clicks', 'leads', 'sales']) {
    for (const f of filters) await get(`/events?event=${event}&interval=all&${encodeURI(f)}`);
  }
});
after(() => t.close());

async function explain(sqlText: string, parameters: readonly unknown[]): Promise<string> {
  if (TEST_ENGINE === 'sqlite') {
    const res = await t.database.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${sqlText}`, [...parameters]));
    return res.rows.map((r) => r.detail).join('\n');
  }
  return t.database.db.transaction().execute(async (trx) => {
    await trx.executeQuery(CompiledQuery.raw('set local enable_seqscan = off'));
    const res = await trx.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain ${sqlText}`, [...parameters]));
    return res.rows.map((r) => r['QUERY PLAN']).join('\n');
  });
}

test('the sweep captured the statement kinds', () => {
  const all = [...statements.keys()].join('\n');
  for (const needle of ['from "events"', 'from analytics_daily', 'from analytics_hourly', 'from "links"', 'select id from links']) {
    assert.ok(all.includes(needle), needle);
  }
  assert.ok(statements.size > 60, String(statements.size));
});

test('no full scan of events or rollups; the intended index for each access path', async () => {
  for (const [text, params] of statements) {
    const plan = await explain(text, params);
    const where = `${text}\n--- plan ---\n${plan}`;
    if (TEST_ENGINE === 'sqlite') {
      assert.doesNotMatch(plan, /\bSCAN (events|analytics_daily|analytics_hourly)\b/, where);
      if (/from "events" where workspace_id = \?/.test(text)) assert.match(plan, /SEARCH events USING PRIMARY KEY \(workspace_id=\? AND timestamp>\? AND timestamp<\?\)/, where);
      if (/indexed by "events_conversions"/.test(text)) assert.match(plan, /SEARCH events USING INDEX events_conversions \(workspace_id=\? AND kind=\? AND timestamp>\? AND timestamp<\?\)/, where);
      if (/from "events" where \+"workspace_id" = \?/.test(text)) assert.match(plan, /SEARCH events USING INDEX events_link_ts \(link_id=\? AND timestamp>\? AND timestamp<\?\)/, where);
      if (/group by \+"link_id"/.test(text) && !/where \+"workspace_id"/.test(text)) assert.doesNotMatch(plan, /events_link_ts/, where);
      if (/from analytics_daily/.test(text)) assert.match(plan, /SEARCH analytics_daily USING PRIMARY KEY \(workspace_id=\? AND dim=\? AND bucket>\? AND bucket<\?\)/, where);
      if (/from analytics_hourly/.test(text)) assert.match(plan, /SEARCH analytics_hourly USING PRIMARY KEY \(workspace_id=\? AND bucket>\? AND bucket<\?\)/, where);
    } else {
      assert.doesNotMatch(plan, /Seq Scan on (events|analytics_daily|analytics_hourly)\b/, where);
    }
  }
});

test('a lead-only scan of a workspace uses the conversions index, not the clicks', async () => {
  const lead = [...statements].find(
    ([sqlText]) => /from "events"( indexed by "events_conversions")? where workspace_id = (\?|\$\d+)/.test(sqlText) && /kind <> 'click' and kind = (\?|\$\d+)/.test(sqlText),
  );
  assert.ok(lead);
  const plan = await explain(lead[0], lead[1]);
  if (TEST_ENGINE === 'sqlite') assert.match(plan, /USING INDEX events_conversions/);
  else assert.match(plan, /events_conversions/);
});
