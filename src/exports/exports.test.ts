/**
 * The exports parse back to exactly what the lists they mirror answer for the same filters:
 * `/events/export` (CSV and NDJSON) = every page of `/events`, `/links/export` = every page of
 * `/links`, `/analytics/export` = `/analytics`, links without their password (no-passwords.test.ts);
 * another workspace's data never appears.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'csv-parse/sync';
import { createTestApp, type TestApp, type TestWorkspace } from '../test-support/harness.js';
import { SEED_NOW, seedAnalytics } from '../analytics/testing.js';
import { cellOf, EVENT_COLUMNS, exportedEvent, get, LINK_COLUMNS, linkRow } from './cells.js';

let t: TestApp;
let other: TestWorkspace;

before(async () => {
  t = await createTestApp({ now: () => SEED_NOW });
  other = await t.addWorkspace();
  await seedAnalytics(t.database.db, t.ctx.events, t.workspaceId, other.workspaceId);
});
after(() => t.close());

async function getOk(url: string, headers?: Record<string, string>) {
  const res = await t.inject({ method: 'GET', url, headers });
  assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
  return res;
}

/** Every page of `GET /events` for the query. */
async function allEvents(query: string, headers?: Record<string, string>): Promise<unknown[]> {
  const out: unknown[] = [];
  for (let page = 1; ; page++) {
    const rows = (await getOk(`/events?${query}&limit=2&page=${page}`, headers)).json() as unknown[];
    out.push(...rows);
    if (rows.length < 2) return out;
  }
}

const csvRows = (body: string): string[][] => parse(body, { relax_column_count: false }) as string[][];

describe('GET /events/export', () => {
  const queries = ['event=clicks&interval=90d', 'event=clicks&interval=all&country=US&sortOrder=asc', 'event=leads&interval=30d', 'event=sales&interval=30d&domain=go.test', 'event=clicks'];

  for (const q of queries) {
    test(`NDJSON equals every page of /events, links without their password: ${q}`, async () => {
      const res = await getOk(`/events/export?${q}&format=ndjson`);
      assert.match(String(res.headers['content-type']), /application\/x-ndjson/);
      const lines = res.body.split('\n').filter(Boolean).map((l) => JSON.parse(l));
      const want = (await allEvents(q)) as { link: { password?: unknown } }[];
      assert.ok(want.length > 0, 'the fixture has events for this query');
      assert.deepEqual(lines, want.map(exportedEvent));
    });

    test(`CSV has one row per event with the same values: ${q}`, async () => {
      const res = await getOk(`/events/export?${q}`);
      assert.match(String(res.headers['content-type']), /text\/csv/);
      const [header, ...rows] = csvRows(res.body);
      const event = (/event=(\w+)/.exec(q)?.[1] ?? 'clicks') as keyof typeof EVENT_COLUMNS;
      assert.deepEqual(header, EVENT_COLUMNS[event]);
      const want = await allEvents(q);
      assert.deepEqual(rows, want.map((e) => header!.map((c) => cellOf(get(e, c)))));
    });
  }

  test("another workspace's export holds only its own events", async () => {
    const theirs = (await getOk('/events/export?interval=all&format=ndjson', other.headers)).body.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    assert.deepEqual(theirs.map((e) => e.click.id), ['x1']);
    const ours = (await getOk('/events/export?interval=all&format=ndjson')).body;
    assert.ok(!ours.includes('"x1"'));
    const foreign = await t.inject({ method: 'GET', url: '/events/export?interval=all&domain=far.test&key=x' });
    assert.equal(foreign.statusCode, 404, "a link of another workspace answers like a missing one");
  });

  test('checks run before the stream: plan, permission, query', async () => {
    const free = await t.addWorkspace('free');
    assert.equal((await t.inject({ method: 'GET', url: '/events/export', headers: free.headers })).statusCode, 403);
    const linksOnly = await t.addWorkspace('enterprise', ['links.read']);
    assert.equal((await t.inject({ method: 'GET', url: '/events/export', headers: linksOnly.headers })).statusCode, 403);
    const bad = await t.inject({ method: 'GET', url: '/events/export?event=views' });
    assert.equal(bad.statusCode, 422);
    assert.ok(bad.json().error.message);
  });
});

describe('GET /analytics/export', () => {
  for (const q of ['groupBy=countries&interval=90d', 'groupBy=top_links&interval=30d&event=composite', 'groupBy=timeseries&interval=7d', 'interval=all']) {
    test(`rows equal /analytics: ${q}`, async () => {
      const api = (await getOk(`/analytics?${q}`)).json() as Record<string, unknown> | Record<string, unknown>[];
      const want = Array.isArray(api) ? api : [api];
      const [header, ...rows] = csvRows((await getOk(`/analytics/export?${q}`)).body);
      assert.deepEqual(header, [...new Set(want.flatMap((r) => Object.keys(r)))]);
      assert.deepEqual(rows, want.map((r) => header!.map((c) => cellOf(r[c]))));
    });
  }
});

describe('GET /links/export', () => {
  before(async () => {
    // Past one page of the export (100 links), with tags.
    for (let n = 0; n < 2; n++) {
      const body = Array.from({ length: 70 }, (_, i) => ({ url: `https://example.com/p/${n}/${i}`, key: `exp-${n}-${i}`, tagNames: i % 3 ? ['Newsletter'] : ['Newsletter', 'Partners'] }));
      assert.equal((await t.inject({ method: 'POST', url: '/links/bulk', payload: body })).statusCode, 200);
    }
  });

  /** Every page of `GET /links` for the query. */
  async function allLinks(query: string, headers?: Record<string, string>) {
    const out: Record<string, unknown>[] = [];
    for (let page = 1; ; page++) {
      const rows = (await getOk(`/links?${query}&pageSize=100&page=${page}`, headers)).json() as Record<string, unknown>[];
      out.push(...rows);
      if (rows.length < 100) return out;
    }
  }

  for (const q of ['', 'sortOrder=asc', 'search=exp-1', 'tagNames=Partners', 'domain=go.test']) {
    test(`rows equal every page of /links: ${q || '(no filter)'}`, async () => {
      const [header, ...rows] = csvRows((await getOk(`/links/export?${q}`)).body);
      assert.deepEqual(header, [...LINK_COLUMNS]);
      const want = await allLinks(q);
      assert.ok(want.length > 0);
      assert.deepEqual(rows, want.map((l) => linkRow(l).map(cellOf)));
    });
  }

  test("another workspace's export holds only its own links", async () => {
    const [, ...rows] = csvRows((await getOk('/links/export?domain=far.test', other.headers)).body);
    assert.deepEqual(rows.map((r) => r[LINK_COLUMNS.indexOf('id')]), ['link_foreign']);
    const [, ...ours] = csvRows((await getOk('/links/export?domain=far.test')).body);
    assert.equal(ours.length, 0);
  });
});
