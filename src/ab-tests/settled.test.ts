/**
 * What a completed A/B test does with traffic, end to end: the stored settings (API), the
 * decider settling the test once, and the redirect (over real HTTP) sending every visit where
 * the rule says: the significant winner; else keep splitting or stop, as configured.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { conversionEvent, type StoredEvent } from '../events/index.js';
import { newClickIdAt } from '../visitors/click-id.js';
import { newId } from '../ids.js';
import { hit, insertLink, linkChanged } from '../redirect/testing.js';

const HOUR = 3_600_000;
const A = 'https://shop.example.com/a';
const B = 'https://shop.example.com/b';
const OWN = 'https://shop.example.com/own';

let t: TestApp;
let base: string;
let visitor = 0;

before(async () => {
  t = await createTestApp({ env: { TRUST_PROXY: 'true' } });
  base = await t.listen();
});
after(() => t.close());

const visit = (key: string, cookie?: string) =>
  hit(base, `/${key}`, { host: 'go.test', headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/126.0', 'x-forwarded-for': `198.51.100.${++visitor % 250}`, ...(cookie ? { cookie } : {}) } });

/** Where 30 fresh visitors (and one with a cookie for A) are sent. */
async function destinations(key: string): Promise<Set<string>> {
  const seen = new Set<string>();
  for (let i = 0; i < 30; i++) seen.add((await visit(key)).location!.split('?')[0]!);
  seen.add((await visit(key, `waymark_test_url=${encodeURIComponent(A)}`)).location!.split('?')[0]!);
  return seen;
}

/**
 * A link testing A against B that ran for two days with `a`/`b` leads of 200 clicks each, then
 * completed an hour ago. The completion is written after the traffic, so no pass of the decider
 * can settle the test on part of it.
 */
async function completedTest(key: string, a: number, b: number): Promise<string> {
  const link = await insertLink(t.database.db, t.workspaceId, {
    domain: 'go.test', key, url: OWN,
    test_variants: JSON.stringify([{ url: A, percentage: 50 }, { url: B, percentage: 50 }]),
    test_started_at: Date.now() - 48 * HOUR, test_completed_at: Date.now() + 48 * HOUR,
  });
  const rows: StoredEvent[] = [];
  for (const [url, leads] of [[A, a], [B, b]] as const) {
    const start = Date.now() - 40 * HOUR;
    for (let i = 0; i < 200; i++) {
      const at = start + i * 60_000;
      const clickId = newClickIdAt(at);
      const click = {
        workspace_id: t.workspaceId, timestamp: at, id: clickId, kind: 'click', click_id: clickId, link_id: link.id!, domain: 'go.test', key,
        url: `${url}?dub_id=${clickId}`, country: 'DE', city: 'Berlin', region: 'DE-BE', continent: 'EU', device: 'Desktop', browser: 'Firefox', os: 'Linux',
        referer: '(direct)', referer_url: '(direct)', trigger: 'link', ip: '203.0.113.9', ua: 'test',
      } as StoredEvent;
      rows.push(click);
      if (i < leads) rows.push(conversionEvent(click as never, { workspace_id: t.workspaceId, timestamp: at + 1000, id: newId('evt', at + 1000), kind: 'lead', customer_id: `cus_${clickId}`, event_name: 'Sign up' }));
    }
  }
  await t.ctx.events.append(rows);
  await t.database.db.updateTable('links').set({ test_completed_at: Date.now() - HOUR }).where('id', '=', link.id!).execute();
  linkChanged(t.ctx.bus, 'go.test', key);
  return link.id!;
}

const report = async (id: string) => (await t.inject({ method: 'GET', url: `/links/${id}/ab-test` })).json();

test('settings: defaults, a partial update, refusals, and a link object without them', async () => {
  const link = await insertLink(t.database.db, t.workspaceId, { domain: 'go.test', key: 'settings', url: OWN, test_variants: JSON.stringify([{ url: A, percentage: 50 }, { url: B, percentage: 50 }]) });
  const before = (await t.inject({ method: 'GET', url: `/links/${link.id}` })).json();
  const read = await t.inject({ method: 'GET', url: `/links/${link.id}/ab-test/settings` });
  assert.equal(read.statusCode, 200, read.body);
  assert.deepEqual(read.json(), { linkId: link.id, metric: 'leads', onInconclusive: 'keep_splitting' });
  const set = await t.inject({ method: 'PATCH', url: `/links/${link.id}/ab-test/settings`, payload: { metric: 'revenue' } });
  assert.equal(set.statusCode, 200, set.body);
  assert.deepEqual(set.json(), { linkId: link.id, metric: 'revenue', onInconclusive: 'keep_splitting' });
  const stop = await t.inject({ method: 'PATCH', url: `/links/${link.id}/ab-test/settings`, payload: { onInconclusive: 'stop' } });
  assert.deepEqual(stop.json(), { linkId: link.id, metric: 'revenue', onInconclusive: 'stop' }, 'a field left out keeps its value');
  assert.equal((await report(link.id!)).metric, 'revenue', 'the result is decided on the stored metric');

  const bad = await t.inject({ method: 'PATCH', url: `/links/${link.id}/ab-test/settings`, payload: { metric: 'bounces' } });
  assert.equal(bad.statusCode, 422);
  assert.equal(bad.json().error.code, 'unprocessable_entity');
  const unknown = await t.inject({ method: 'PATCH', url: `/links/${link.id}/ab-test/settings`, payload: { winner: A } });
  assert.equal(unknown.statusCode, 422, 'unknown fields are refused');
  const other = await t.addWorkspace();
  const theirs = await t.inject({ method: 'PATCH', url: `/links/${link.id}/ab-test/settings`, headers: other.headers, payload: { metric: 'clicks' } });
  assert.equal(theirs.statusCode, 404);
  assert.equal((await t.inject({ method: 'GET', url: `/links/${link.id}/ab-test/settings` })).json().metric, 'revenue', "another workspace changed nothing");

  const afterwards = (await t.inject({ method: 'GET', url: `/links/${link.id}` })).json();
  assert.deepEqual(Object.keys(afterwards).sort(), Object.keys(before).sort(), 'the published link object has no new field');
  assert.deepEqual({ ...afterwards, updatedAt: null }, { ...before, updatedAt: null });
});

test('significant at testCompletedAt: once settled, every visit goes to the winner', async () => {
  const id = await completedTest('ab-win', 10, 40);
  // Completed but not settled yet: still splitting, never a guess.
  assert.equal((await report(id)).settled, null);
  assert.deepEqual(await destinations('ab-win'), new Set([A, B]));

  await t.modules.abTests.decider.decideDue();
  const settled = (await report(id)).settled;
  assert.equal(settled.route, 'winner');
  assert.equal(settled.url, B);
  assert.deepEqual(await destinations('ab-win'), new Set([B]), 'every visit, a cookie for A too');
  const again = await visit('ab-win');
  assert.equal(again.cookies.some((c) => c.startsWith('waymark_test_url=')), false, 'no variant to remember');
  assert.equal(await t.modules.abTests.decider.decideDue(), 0, 'settled once per completion');
});

test('not significant: keep splitting by default; stop sends every visit to the link; a settings change decides again', async () => {
  const id = await completedTest('ab-close', 30, 34);
  await t.modules.abTests.decider.decideDue();
  assert.equal((await report(id)).verdict.status, 'not_significant');
  assert.equal((await report(id)).settled.route, 'split');
  assert.deepEqual(await destinations('ab-close'), new Set([A, B]));

  await t.inject({ method: 'PATCH', url: `/links/${id}/ab-test/settings`, payload: { onInconclusive: 'stop' } });
  assert.equal((await report(id)).settled, null, 'the route is forgotten with the settings it was decided under');
  await t.modules.abTests.decider.decideDue();
  assert.equal((await report(id)).settled.route, 'stop');
  assert.deepEqual(await destinations('ab-close'), new Set([OWN]));
});

test('tied: no winner and no random pick; stopped, the link URL for everyone', async () => {
  const id = await completedTest('ab-tie', 25, 25);
  await t.inject({ method: 'PATCH', url: `/links/${id}/ab-test/settings`, payload: { onInconclusive: 'stop' } });
  await t.modules.abTests.decider.decideDue();
  const r = await report(id);
  assert.equal(r.verdict.leader, null, 'a tie has no leader');
  assert.equal(r.settled.route, 'stop');
  assert.deepEqual(await destinations('ab-tie'), new Set([OWN]));
});

test('moving testCompletedAt into the future runs the test again, whatever was settled', async () => {
  const id = await completedTest('ab-again', 10, 40);
  await t.modules.abTests.decider.decideDue();
  assert.deepEqual(await destinations('ab-again'), new Set([B]));
  const moved = await t.inject({ method: 'PATCH', url: `/links/${id}`, payload: { trackConversion: true, testCompletedAt: new Date(Date.now() + 24 * HOUR).toISOString() } });
  assert.equal(moved.statusCode, 200, moved.body);
  assert.deepEqual(await destinations('ab-again'), new Set([A, B]));
});
