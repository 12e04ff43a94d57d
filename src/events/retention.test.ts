/**
 * Retention: the pure pass and batch loop, then on the engine under test a pass through the app
 * (a worker thread on a SQLite file, in process under the advisory lock on PostgreSQL): exactly
 * the raw events past the horizon go, analytics of old periods keep answering from the rollups
 * where docs/analytics.md says they do, and only one process runs a pass at a time.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, TEST_ENGINE, type TestApp } from '../test-support/harness.js';
import { insertLink } from '../redirect/testing.js';
import { contractEvent } from './contract.js';
import { pauseAfter, purge, retentionPass } from './retention.js';
import { RETENTION_LOCK_KEY } from './retention-module.js';
import type { StoredEvent } from './event-store.js';

const DAY = 86_400_000;
const H = 3_600_000;

test('a pass: the horizons of the configured settings, none when everything is kept', () => {
  const now = Date.parse('2026-06-15T12:00:00Z');
  assert.equal(retentionPass(now, {}), undefined);
  assert.deepEqual(retentionPass(now, { eventsDays: 30 }), { eventsBefore: now - 30 * DAY });
  assert.deepEqual(retentionPass(now, { eventsDays: 30, summariesDays: 400 }), { eventsBefore: now - 30 * DAY, summariesBefore: now - 400 * DAY });
});

test('the pause after a batch keeps deleting to a tenth of the time, never below the minimum', () => {
  assert.equal(pauseAfter(200, 5), 200);
  assert.equal(pauseAfter(200, 100), 900);
  assert.equal(pauseAfter(200, 100, 0.5), 200);
  assert.equal(pauseAfter(0, 50, 0.2), 200);
});

test('purge: batches until one comes back short, pausing between, and stops when told', async () => {
  const calls: string[] = [];
  let events = 12;
  let summaries = 3;
  const store = {
    expire: async (before: number, limit: number) => {
      calls.push(`expire ${before} ${limit}`);
      const n = Math.min(limit, events);
      events -= n;
      return n;
    },
    expireSummaries: async (_before: number, limit: number) => {
      calls.push('summaries');
      const n = Math.min(limit, summaries);
      summaries -= n;
      return n;
    },
  };
  const pauses: number[] = [];
  const sleep = async (ms: number) => void pauses.push(ms);
  assert.deepEqual(await purge(store, { eventsBefore: 100, summariesBefore: 50 }, { batch: 5, pauseMs: 7, sleep, clock: () => 0 }), { events: 12, summaries: 3 });
  assert.deepEqual(calls, ['expire 100 5', 'expire 100 5', 'expire 100 5', 'summaries']);
  assert.deepEqual(pauses, [7, 7], 'fast batches: the minimum pause');
  events = 100;
  let batches = 0;
  const stopped = () => ++batches > 2;
  assert.deepEqual(await purge(store, { eventsBefore: 100 }, { batch: 5, pauseMs: 0, sleep, stopped }), { events: 10, summaries: 0 });
});

describe(`retention through the app (${TEST_ENGINE})`, () => {
  const NOW = Date.parse('2026-06-15T12:00:00Z');
  const OLD_DAY = Date.parse('2026-05-01T00:00:00Z'); // 45 days before NOW
  const RECENT_DAY = Date.parse('2026-06-10T00:00:00Z');
  let t: TestApp;
  let old: StoredEvent[];
  let recent: StoredEvent[];

  before(async () => {
    t = await createTestApp({ now: () => NOW, env: { EVENTS_RETENTION_DAYS: '30' } });
    await insertLink(t.database.db, t.workspaceId, { id: 'lnk_ret', domain: 'go.test', key: 'ret', url: 'https://example.com/' });
    const at = (day: number, i: number, over: Partial<StoredEvent> = {}) =>
      contractEvent(t.workspaceId, 'lnk_ret', { timestamp: day + 9 * H + i * 60_000, country: i % 2 ? 'DE' : 'US', browser: i % 3 ? 'Chrome' : 'Firefox', ...over });
    old = [...Array.from({ length: 7 }, (_, i) => at(OLD_DAY, i)), at(OLD_DAY, 8, { kind: 'lead', customer_id: 'cus_old', event_name: 'Sign up' })];
    recent = [...Array.from({ length: 3 }, (_, i) => at(RECENT_DAY, i)), at(RECENT_DAY, 4, { kind: 'lead', customer_id: 'cus_new', event_name: 'Sign up' })];
    await t.ctx.events.append([...old, ...recent]);
  });
  after(() => t.close());

  const analytics = async (query: string) => {
    const res = await t.inject({ method: 'GET', url: `/analytics?${query}` });
    assert.equal(res.statusCode, 200, `${query}: ${res.body}`);
    return res.json();
  };
  const oldPeriod = `start=2026-04-30T00:00:00Z&end=2026-05-03T00:00:00Z`;
  const answers = () =>
    Promise.all([
      analytics(`event=composite&${oldPeriod}`),
      analytics(`groupBy=countries&${oldPeriod}`),
      analytics(`groupBy=browsers&${oldPeriod}`),
      analytics(`groupBy=top_links&${oldPeriod}`),
      analytics(`groupBy=timeseries&${oldPeriod}`),
    ]);

  test('a pass deletes exactly the raw events past the horizon; what the rollups hold still answers; raw-only questions see what remains', async () => {
    const kept = await answers();
    assert.deepEqual([kept[0].clicks, kept[0].leads], [7, 1]);
    const rawOnly = await analytics(`groupBy=countries&browser=Chrome&${oldPeriod}`);
    assert.ok(rawOnly.length > 0);

    const result = await t.modules.retention.runNow();
    assert.deepEqual(result, { events: old.length, summaries: 0 });
    const left = await t.database.db.selectFrom('events').select('id').where('workspace_id', '=', t.workspaceId).execute();
    assert.deepEqual(left.map((r) => r.id).sort(), recent.map((r) => r.id).sort());

    assert.deepEqual(await answers(), kept, 'counts, countries, browsers, top links and the daily timeseries of the old period');
    assert.deepEqual(await analytics(`groupBy=countries&browser=Chrome&${oldPeriod}`), [], 'a grouping and filter no rollup holds together: only what remains');
    const listed = await t.inject({ method: 'GET', url: `/events?${oldPeriod}` });
    assert.deepEqual(listed.json(), [], 'the event list reads raw events only');
    const links = await t.database.db.selectFrom('links').select(['clicks', 'leads']).where('id', '=', 'lnk_ret').executeTakeFirstOrThrow();
    assert.deepEqual([Number(links.clicks), Number(links.leads)], [0, 0], 'link counters are not touched (these events were appended without them)');
    assert.deepEqual(await t.modules.retention.runNow(), { events: 0, summaries: 0 }, 'a second pass finds nothing');
  });

  test('one process at a time: while another holds the retention lock, a pass is skipped (PostgreSQL)', { skip: TEST_ENGINE !== 'postgres' && 'a SQLite file has one serving process' }, async () => {
    await t.ctx.events.append([contractEvent(t.workspaceId, 'lnk_ret', { timestamp: OLD_DAY + 20 * H })]);
    const other = await t.database.db.connection().execute(async (conn) => {
      await t.database.dialect.exclusively(conn, RETENTION_LOCK_KEY, async () => {
        assert.equal(await t.modules.retention.runNow(), undefined, 'skipped');
      });
      return t.modules.retention.runNow();
    });
    assert.deepEqual(other, { events: 1, summaries: 0 }, 'runs once the lock is free');
  });
});
