/**
 * GET /links?search= on the search indexes of migration 0016 (SQLite FTS5 trigram table kept by
 * triggers, PostgreSQL pg_trgm): the results must be exactly those of the substring scan, which
 * a JavaScript filter over the links restates, after inserts, updates and deletes.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { createTestApp, TEST_ENGINE, type TestApp, type TestWorkspace } from '../test-support/harness.js';

interface Listed {
  id: string;
  key: string;
  url: string;
  shortLink: string;
}

let t: TestApp;
let other: TestWorkspace;

/** Keys and destinations chosen to hit the edge cases: case, `%`, `_`, quotes, shared fragments. */
const SPECS: { key: string; url: string }[] = [
  { key: 'Spring-Sale', url: 'https://Shop.Example.com/Spring?utm_source=News' },
  { key: 'pct', url: 'https://shop.example.com/100%25-off' },
  { key: 'under_score', url: 'https://docs.example.org/a_b_c' },
  { key: 'quote', url: "https://blog.example.net/it's-here" },
  { key: 'dq', url: 'https://blog.example.net/say-%22hi%22' },
  { key: 'plain', url: 'https://example.com/' },
  { key: 'abc', url: 'https://abc.example.com/xyz' },
  { key: 'xab', url: 'https://other.test/ab' },
];

const TERMS = [
  'a', 'ab', 'AB', 'abc', 'ABC', 'xyz', 'shop', 'SHOP.EXAMPLE', 'example.com/', 'spring-sale', 'Spring?utm',
  '100%', '%', '%25', '%2', '_', 'a_b', 'a_', '_c', "it's", "'", '"', '%22hi', 'utm_source=news',
  'https://', '://', 'blog.example.net/say', 'nomatch-at-all', 'pct', 'under_score', 'UNDER', 'e.c', '..',
];

before(async () => {
  t = await createTestApp();
  other = await t.addWorkspace();
  for (const spec of SPECS) {
    await create(t.headers, spec);
    // The same links in another workspace (other keys: keys are unique per domain).
    await create(other.headers, { key: `other-${spec.key}`, url: spec.url });
  }
});
after(() => t.close());

async function create(headers: Record<string, string>, body: { key: string; url: string }): Promise<void> {
  const res = await t.inject({ method: 'POST', url: '/links', headers, payload: body });
  assert.equal(res.statusCode, 200, res.body);
}

async function list(query: string, headers = t.headers): Promise<Listed[]> {
  const res = await t.inject({ method: 'GET', url: `/links?showArchived=true&pageSize=100${query}`, headers });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

/** The search's definition: the short link or the destination contains the term, ignoring (ASCII) case. */
function expected(links: Listed[], term: string): string[] {
  const needle = term.toLowerCase();
  return links.filter((l) => l.shortLink.toLowerCase().includes(needle) || l.url.toLowerCase().includes(needle)).map((l) => l.id).sort();
}

async function assertSearchesMatchFilter(stage: string): Promise<void> {
  const all = await list('');
  const others = new Set((await list('', other.headers)).map((l) => l.id));
  for (const term of TERMS) {
    const found = (await list(`&search=${encodeURIComponent(term)}`)).map((l) => l.id).sort();
    assert.deepEqual(found, expected(all, term), `${stage}: search ${JSON.stringify(term)}`);
    assert.ok(!found.some((id) => others.has(id)), `${stage}: search ${JSON.stringify(term)} found another workspace's link`);
  }
}

test('search results equal a substring filter after inserts, updates and deletes; other workspaces never show', async () => {
  await assertSearchesMatchFilter('after inserts');
  assert.ok((await list('&search=shop')).length >= 2, 'the terms do find links');

  const byKey = new Map((await list('')).map((l) => [l.key, l]));
  const patch = async (key: string, body: object) => {
    const res = await t.inject({ method: 'PATCH', url: `/links/${byKey.get(key)!.id}`, payload: body });
    assert.equal(res.statusCode, 200, res.body);
  };
  await patch('abc', { key: 'renamed-key' });
  await patch('plain', { url: 'https://Changed.Example.io/New_Path%25' });
  await patch('quote', { key: 'moved', url: 'https://moved.example.com/' });
  await patch('pct', { title: 'title only: the index is untouched' });
  const del = await t.inject({ method: 'DELETE', url: `/links/${byKey.get('under_score')!.id}` });
  assert.equal(del.statusCode, 200, del.body);
  await assertSearchesMatchFilter('after updates and a delete');

  const renamed = (await list('&search=renamed-KEY')).map((l) => l.key);
  assert.deepEqual(renamed, ['renamed-key']);
  assert.deepEqual(await list('&search=blog.example.net/it'), [], 'the old URL of an updated link is not found');
  assert.deepEqual(await list('&search=a_b_c'), [], 'a deleted link is not found');
  assert.equal((await list('&search=a_b_c', other.headers)).length, 1, "the other workspace's copy still is");
});

test('the search uses the index', async () => {
  const db = t.ctx.database.db;
  if (TEST_ENGINE === 'sqlite') {
    const index = t.ctx.database.dialect.linkSearchIndex('shop.example')!;
    const query = db.selectFrom('links').select('id').where('workspace_id', '=', t.workspaceId).where(index.where as never).compile();
    const rows = await db.executeQuery<{ detail: string }>({ ...query, sql: `explain query plan ${query.sql}` });
    const details = rows.rows.map((r) => r.detail).join('\n');
    assert.match(details, /VIRTUAL TABLE INDEX/i, details);
    assert.equal(t.ctx.database.dialect.linkSearchIndex('ab'), null, 'two characters have no trigram');
    return;
  }
  const plan = await db.connection().execute(async (conn) => {
    await sql`set enable_seqscan = off`.execute(conn);
    try {
      // Without the workspace condition: on a table this small its b-tree wins; the question here is
      // only whether the trigram indexes serve the search's two `ilike`s.
      const res = await sql<{ 'QUERY PLAN': string }>`explain select id from links where short_link ilike ${'%shop.example%'} or url ilike ${'%shop.example%'}`.execute(conn);
      return res.rows.map((r) => r['QUERY PLAN']).join('\n');
    } finally {
      await sql`reset enable_seqscan`.execute(conn);
    }
  });
  assert.match(plan, /links_url_trgm/, plan);
  assert.match(plan, /links_short_link_trgm/, plan);
});
