/**
 * Click batches and their fold (click-fold.ts) on the engine under test: what a batch commits in
 * each mode, the watermark and the millisecond held back, exact analytics while clicks wait to be
 * folded, a restart that finds unfolded clicks, and clicks stamped before the watermark.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../test-support/harness.js';
import type { StoredEvent } from './event-writer.js';
import { createAnalyticsService, type AnalyticsService } from '../../analytics/service.js';
import { createSqlRunner } from './sql-runner.js';
import { AnalyticsQuery } from '../../analytics/schema.js';
import type { AuthContext } from '../../workspaces/service.js';
import { createClickFold, FOLD_STRETCH_MAX, FOLD_TIME_SHARE, nextFoldDelay, type ClickFold } from './click-fold.js';
import { createLinkCounters, linkBumps, workspaceBumps } from '../counters.js';
import { createSqlEventStore } from './store.js';
import { insertLink } from '../../redirect/testing.js';

const NOW = Date.parse('2026-11-20T12:30:00.000Z');
const H = 3_600_000;

let t: TestApp;
let auth: AuthContext;
let linkA: string;
let linkB: string;
let n = 0;

function click(linkId: string, timestamp: number, over: Partial<StoredEvent> = {}): StoredEvent {
  const id = `fold${String(++n).padStart(12, '0')}`;
  return {
    workspace_id: t.workspaceId, timestamp, id, kind: 'click', click_id: id, link_id: linkId, domain: 'fold.test', key: linkId === linkA ? 'a' : 'b',
    url: 'https://example.com/?utm_source=news', country: n % 2 ? 'US' : 'DE', city: 'X', region: 'Unknown', continent: n % 2 ? 'NA' : 'EU',
    device: 'Desktop', browser: 'Chrome', os: 'Linux', referer: '(direct)', referer_url: '(direct)', trigger: 'link', ip: '192.0.2.1', ua: 'ua',
    utm_source: 'news', utm_medium: null, utm_campaign: null, utm_term: null, utm_content: null, customer_id: null, event_name: null, amount: 0,
    currency: null, original_amount: null, payment_processor: null, invoice_id: null, sale_type: null, metadata: null, ...over,
  };
}

/** The fold's clock: how long ago the newest millisecond was decides whether it waits. */
let clock = NOW;
const newFold = (mode: 'each' | 'coalesced') =>
  createClickFold({ db: t.database.db, writer: t.ctx.sqlEvents.writer, counters: createLinkCounters(t.database.dialect), mode, holdMs: 500, now: () => clock });

async function counters(id: string) {
  const row = await t.database.db.selectFrom('links').select(['clicks', 'last_clicked']).where('id', '=', id).executeTakeFirstOrThrow();
  return { clicks: Number(row.clicks), lastClicked: row.last_clicked === null ? null : Number(row.last_clicked) };
}

async function usage() {
  return Number((await t.database.db.selectFrom('workspaces').select('usage').where('id', '=', t.workspaceId).executeTakeFirstOrThrow()).usage);
}

async function rollupClicks(): Promise<number> {
  const row = await t.database.db
    .withTables<{ analytics_hourly: { workspace_id: string; clicks: number } }>()
    .selectFrom('analytics_hourly')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('clicks'), eb.lit(0)).as('n'))
    .where('workspace_id', '=', t.workspaceId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The rollup path with the fold's watermark, and the raw path: both must give the same answers. */
function services(fold: ClickFold): { rollups: AnalyticsService; raw: AnalyticsService } {
  const base = { db: t.database.db, now: () => NOW, linkSettings: t.config };
  const reader = createSqlRunner(t.database, { inProcess: true });
  return {
    rollups: createAnalyticsService({ ...base, reader, events: createSqlEventStore({ database: t.database, runner: reader, horizon: fold }) }),
    raw: createAnalyticsService({ ...base, reader, events: createSqlEventStore({ database: t.database, runner: reader, useRollups: false }) }),
  };
}

async function assertExact(fold: ClickFold, expectedClicks: number) {
  const { rollups, raw } = services(fold);
  for (const groupBy of ['count', 'timeseries', 'countries', 'top_links', 'utm_sources']) {
    for (const interval of ['24h', '7d', 'all']) {
      const q = AnalyticsQuery.parse({ groupBy, interval, event: 'clicks' });
      assert.deepEqual(await rollups.retrieve(auth, q), await raw.retrieve(auth, q), `${groupBy} ${interval}`);
    }
  }
  const total = (await rollups.retrieve(auth, AnalyticsQuery.parse({ interval: 'all', event: 'clicks' }))) as { clicks: number };
  assert.equal(total.clicks, expectedClicks);
}

before(async () => {
  t = await createTestApp({ now: () => NOW });
  auth = await t.ctx.workspaces.authenticate(t.key);
  linkA = (await insertLink(t.database.db, t.workspaceId, { domain: 'fold.test', key: 'a', url: 'https://example.com/?utm_source=news' })).id as string;
  linkB = (await insertLink(t.database.db, t.workspaceId, { domain: 'fold.test', key: 'b', url: 'https://example.com/?utm_source=news' })).id as string;
});
after(() => t.close());

test('linkBumps and workspaceBumps count clicks and keep the newest time', () => {
  const rows = [click('l1', 5), click('l2', 7), click('l1', 9), click('l1', 3, { workspace_id: 'ws_2' })];
  assert.deepEqual(linkBumps(rows), [
    { id: 'l1', clicks: 3, lastClicked: 9 },
    { id: 'l2', clicks: 1, lastClicked: 7 },
  ]);
  assert.deepEqual(
    workspaceBumps(rows).map((w) => [w.id === 'ws_2' ? 'ws_2' : 'main', w.clicks]),
    [
      ['main', 3],
      ['ws_2', 1],
    ],
  );
});

test('nextFoldDelay: the base interval while folds are cheap, stretched while they are slow, capped', () => {
  assert.equal(nextFoldDelay(1000, 0), 1000);
  assert.equal(nextFoldDelay(1000, 20), 1000);
  assert.equal(nextFoldDelay(1000, 100), 1000, 'a fold of a tenth of the interval keeps it');
  assert.equal(nextFoldDelay(1000, 300), 3000, 'folding stays at a tenth of the time');
  assert.equal(nextFoldDelay(1000, 250.2), 2502);
  assert.equal(nextFoldDelay(1000, 900), 5000, 'never past the ceiling');
  assert.equal(nextFoldDelay(1000, 60_000), 1000 * FOLD_STRETCH_MAX);
  assert.equal(nextFoldDelay(100, 30), 300, 'scales with a configured base');
  // The share and the ceiling the README and docs/redirects.md state.
  assert.equal(FOLD_TIME_SHARE, 0.1);
  assert.equal(FOLD_STRETCH_MAX, 5);
});

test('coalesced: a batch commits its events and usage; rollups, counters and the watermark follow at the fold', async () => {
  const fold = newFold('coalesced');
  assert.equal(await fold.recover(), null, 'a database never written in this mode has everything folded');
  const usage0 = await usage();
  // Clicks in three past hours, so the rollups' hourly buckets before now are involved.
  const first = [click(linkA, NOW - 5 * H), click(linkB, NOW - 5 * H + 10), click(linkA, NOW - 2 * H)];
  await fold.write(first);
  assert.equal(fold.foldedBefore(), NOW - 5 * H, 'the first batch starts the watermark');
  assert.equal(await usage(), usage0 + 3, 'usage is bumped with the batch');
  assert.equal(await rollupClicks(), 0, 'not in the rollups yet');
  assert.deepEqual(await counters(linkA), { clicks: 0, lastClicked: null });
  await assertExact(fold, 3);

  const second = [click(linkA, NOW - H), click(linkB, NOW - H), click(linkA, NOW - 60_000), click(linkB, NOW - 60_000)];
  await fold.write(second);
  await assertExact(fold, 7);

  // A fold holds back the newest millisecond while more clicks may still come with that stamp.
  clock = NOW - 60_000 + 100;
  assert.equal(await fold.fold(), NOW - 60_000);
  assert.equal(fold.pending(), 2);
  assert.equal(await rollupClicks(), 5);
  assert.deepEqual(await counters(linkA), { clicks: 3, lastClicked: NOW - H });
  assert.deepEqual(await counters(linkB), { clicks: 2, lastClicked: NOW - H });
  const state = await t.database.db.selectFrom('click_rollup_state').select('folded_before').executeTakeFirstOrThrow();
  assert.equal(Number(state.folded_before), NOW - 60_000);
  await assertExact(fold, 7);

  // A click of the held-back millisecond arrives; once that millisecond is old enough, it goes too.
  await fold.write([click(linkA, NOW - 60_000)]);
  assert.equal(await fold.fold(), NOW - 60_000, 'still within the hold');
  clock = NOW - 60_000 + 501;
  assert.equal(await fold.fold(), NOW - 60_000 + 1);
  assert.equal(fold.pending(), 0);
  assert.equal(await rollupClicks(), 8);
  assert.deepEqual(await counters(linkA), { clicks: 5, lastClicked: NOW - 60_000 });
  assert.deepEqual(await counters(linkB), { clicks: 3, lastClicked: NOW - 60_000 });
  await assertExact(fold, 8);
  assert.equal(await fold.fold({ all: true }), NOW - 60_000 + 1, 'nothing pending: the watermark stays');
  clock = NOW;

  // The clock went back: the click is stamped at the watermark, so folded buckets stay final.
  await fold.write([click(linkB, NOW - 3 * H)]);
  const [stored] = await t.database.db.selectFrom('events').select('timestamp').where('id', '=', `fold${String(n).padStart(12, '0')}`).execute();
  assert.equal(Number(stored!.timestamp), NOW - 60_000 + 1);
  await assertExact(fold, 9);

  // A restart: a new writer finds the unfolded click and folds it.
  const restarted = newFold('coalesced');
  assert.equal(await restarted.recover(), NOW - 60_000 + 1);
  assert.equal(restarted.pending(), 1);
  await assertExact(restarted, 9);
  await restarted.fold({ all: true });
  assert.equal(await rollupClicks(), 9);
  assert.deepEqual(await counters(linkB), { clicks: 4, lastClicked: NOW - 60_000 + 1 });
  await assertExact(restarted, 9);
});

test('writes and folds run in call order, even when not awaited one by one', async () => {
  const fold = newFold('coalesced');
  await fold.recover();
  const before = await rollupClicks();
  const batches = Array.from({ length: 5 }, (_, i) => [click(linkA, NOW + i * 10), click(linkB, NOW + i * 10 + 1)]);
  await Promise.all(batches.flatMap((b, i) => [fold.write(b), ...(i % 2 ? [fold.fold()] : [])]));
  await fold.fold({ all: true });
  assert.equal(await rollupClicks(), before + 10);
  assert.equal(fold.pending(), 0);
});

test('each: a batch commits its events, rollups and counters together; no watermark', async () => {
  const other = await t.addWorkspace();
  const link = await insertLink(t.database.db, other.workspaceId, { domain: 'fold.test', key: 'each', url: 'https://example.com/' });
  const fold = newFold('each');
  assert.equal(await fold.recover(), null);
  await fold.write([click(link.id as string, NOW - 10, { workspace_id: other.workspaceId }), click(link.id as string, NOW - 5, { workspace_id: other.workspaceId })]);
  assert.equal(fold.pending(), 0);
  assert.equal(fold.foldedBefore(), null);
  assert.deepEqual(await counters(link.id as string), { clicks: 2, lastClicked: NOW - 5 });
  const hourly = await t.database.db
    .withTables<{ analytics_hourly: { workspace_id: string; clicks: number } }>()
    .selectFrom('analytics_hourly')
    .select('clicks')
    .where('workspace_id', '=', other.workspaceId)
    .execute();
  assert.deepEqual(hourly.map((r) => Number(r.clicks)), [2]);
});

test('a batch that fails on a click already stored leaves none of its rows or counts behind', async () => {
  // SQLite writes these batches `or fail` (no statement journal: Dialect.orFail), which keeps the
  // rows before the failing one in the statement; the transaction's rollback must remove them.
  for (const mode of ['each', 'coalesced'] as const) {
    const fold = newFold(mode);
    await fold.recover();
    const stored = click(linkA, NOW - 4 * H);
    await fold.write([stored]);
    const usageBefore = await usage();
    const fresh = [click(linkA, NOW - 4 * H + 1), click(linkB, NOW - 4 * H + 2)];
    await assert.rejects(fold.write([...fresh, { ...stored }]), (err: unknown) => t.database.dialect.isUniqueViolation(err), mode);
    const left = await t.database.db.selectFrom('events').select('id').where('id', 'in', fresh.map((e) => e.id)).execute();
    assert.deepEqual(left, [], `${mode}: no row of the failed batch is stored`);
    assert.equal(await usage(), usageBefore, `${mode}: usage not bumped`);
    await fold.fold({ all: true });
  }
});
