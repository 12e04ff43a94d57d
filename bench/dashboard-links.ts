/**
 * Dashboard links page (issue 17): server time of `GET /dashboard/w/<slug>/links` over a
 * workspace of 100,000 links (plus 20,000 of another workspace), through the whole stack
 * (session cookie, membership, the links service's list, TSX rendering), on the engine chosen by
 * DATABASE_URL. The budget: ≤ 50 ms. Links are inserted straight by SQL, 500 a statement;
 * half are on a second domain, one in ten carries a tag.
 *
 * Prints the median, p95 and slowest of RUNS runs per page (after 2 warm-ups), and the page's
 * JavaScript + CSS as sent gzipped (budget ≤ 150 KB); asserts nothing.
 * Then the search with and without its index (migration 0016), same data, same process: on
 * SQLite in alternating runs (the store is told to skip the FTS5 table), on PostgreSQL all runs
 * with the trigram indexes, then all runs after dropping them.
 * Settings: LINKS (default 100000), RUNS (default 30).
 *
 * Run: npm run bench -- dashboard-links
 *      DATABASE_URL=postgres://postgres@127.0.0.1:54329/waymark_test npm run bench -- dashboard-links
 */
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { createTestApp, TEST_ENGINE } from '../src/test-support/harness.js';
import { linkRow } from '../src/test-support/link-row.js';
import { newId } from '../src/ids.js';
import { addUser, logIn, slugOf } from '../src/dashboard/testing.js';
import { pageAssetWeight } from '../src/dashboard/page-weight.js';
import { addDomain, addTag } from '../src/links/test-fixtures.js';

const N = Number(process.env.LINKS ?? 100_000);
const RUNS = Number(process.env.RUNS ?? 30);

async function main() {
  const t = await createTestApp();
  const db = t.ctx.database.db;
  const other = await t.addWorkspace();
  // Logged in before the bulk insert: the checkpointer's RESTART after it would refuse the
  // read-then-write transaction that creates a user (SQLITE_BUSY, no busy wait on an upgrade).
  const browser = await logIn(t, await addUser(t, 'viewer'));
  const owner = await logIn(t, await addUser(t, 'owner'));
  await addDomain(t, 'go.example.com');
  const tag = await addTag(t, 'promo');
  const t0 = Date.now() - N * 1000;
  const total = N + 20_000;
  let middle = '';
  for (let i = 0; i < total; i += 500) {
    const rows = [];
    for (let j = i; j < Math.min(total, i + 500); j++) {
      const key = `k${j.toString(36)}`;
      rows.push(
        linkRow(
          {
            id: j === N / 2 ? (middle = newId('link', t0 + j * 1000)) : newId('link', t0 + j * 1000),
            workspace_id: j < N ? t.workspaceId : other.workspaceId,
            domain: j % 2 ? 'go.example.com' : 'wm.localhost:3999',
            key,
            url: `https://shop${j % 1000}.example.com/p/${j}?utm_source=news`,
            title: j % 3 === 0 ? `Product ${j} <landing>` : null,
            archived: j % 50 === 0 ? 1 : 0,
            clicks: (j * 7919) % 10_000,
          },
          t0 + j * 1000,
        ),
      );
    }
    await db.insertInto('links').values(rows).execute();
    const tagged = rows.filter((_, k) => (i + k) % 10 === 0 && i + k < N).map((r, position) => ({ link_id: r.id as string, tag_id: tag, workspace_id: t.workspaceId, position }));
    if (tagged.length) await db.insertInto('link_tags').values(tagged).execute();
  }
  await sql`analyze`.execute(db);
  const slug = await slugOf(t);
  console.log(`${TEST_ENGINE}: ${N} links in the workspace, ${total - N} in another; ${RUNS} runs per page`);

  const pages: [string, string][] = [
    ['first page', `/dashboard/w/${slug}/links`],
    ['older than the 50,000th link (cursor)', `/dashboard/w/${slug}/links?after=${middle}`],
    ['newer than the 50,000th link (cursor)', `/dashboard/w/${slug}/links?before=${middle}`],
    ['search "shop42" (1/1000 of rows)', `/dashboard/w/${slug}/links?search=shop42.`],
    ['with archived', `/dashboard/w/${slug}/links?showArchived=true`],
    ['domain go.example.com (1/2)', `/dashboard/w/${slug}/links?domain=go.example.com`],
    ['tag "promo" (1/10)', `/dashboard/w/${slug}/links?tagId=${tag}`],
    ['search + domain + archived', `/dashboard/w/${slug}/links?search=shop42.&domain=go.example.com&showArchived=true`],
    ['sorted by clicks, page 1', `/dashboard/w/${slug}/links?sortBy=clicks`],
    ['sorted by clicks, page 20 (offset 950)', `/dashboard/w/${slug}/links?sortBy=clicks&page=20`],
  ];
  for (const [label, url] of pages) {
    const times: number[] = [];
    let bytes = 0;
    for (let i = 0; i < RUNS + 2; i++) {
      const started = performance.now();
      const res = await browser.get(url);
      const ms = performance.now() - started;
      if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode}`);
      bytes = res.body.length;
      if (i >= 2) times.push(ms);
    }
    times.sort((a, b) => a - b);
    const p95 = times[Math.min(times.length - 1, Math.ceil(times.length * 0.95) - 1)]!;
    console.log(
      `  ${label.padEnd(40)} median ${times[Math.floor(times.length / 2)]!.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, slowest ${times.at(-1)!.toFixed(1)} ms, ${Math.round(bytes / 1024)} KB of HTML`,
    );
  }
  await compareSearchIndex(t, (url) => browser.get(url), slug);
  for (const path of ['/links', '/links/new']) {
    const html = (await owner.get(`/dashboard/w/${slug}${path}`)).body;
    const { total, files } = await pageAssetWeight(t.app, html);
    const list = Object.entries(files).map(([url, n]) => `${url.split('?')[0]!.split('/').at(-1)} ${(n / 1024).toFixed(1)}`);
    console.log(`  JS + CSS of ${path}, gzipped: ${(total / 1024).toFixed(1)} KB (${list.join(', ')} KB)`);
  }
  await t.close();
}

type Get = (url: string) => Promise<{ statusCode: number }>;

/** Median and slowest server time of the links page for some searches, with and without the search index. */
async function compareSearchIndex(t: Awaited<ReturnType<typeof createTestApp>>, get: Get, slug: string): Promise<void> {
  const searches: [string, string][] = [
    ['"shop42." (1/1000 of rows)', 'shop42.'],
    ['"k2bi" (a key fragment, 36 rows)', 'k2bi'],
    ['"example" (every row)', 'example'],
    ['"nomatch" (no row)', 'nomatch'],
  ];
  const dialect = t.ctx.database.dialect as { -readonly [K in keyof typeof t.ctx.database.dialect]: (typeof t.ctx.database.dialect)[K] };
  const indexed = dialect.linkSearchIndex;
  const time = async (term: string): Promise<number> => {
    const started = performance.now();
    const res = await get(`/dashboard/w/${slug}/links?search=${encodeURIComponent(term)}`);
    if (res.statusCode !== 200) throw new Error(`search ${term}: ${res.statusCode}`);
    return performance.now() - started;
  };
  const stats = (times: number[]) => {
    times.sort((a, b) => a - b);
    return `${times[Math.floor(times.length / 2)]!.toFixed(1)} / ${times.at(-1)!.toFixed(1)} ms`;
  };
  console.log(`  search with / without its index (median / slowest of ${RUNS})`);
  const results = new Map<string, { on: number[]; off: number[] }>(searches.map(([, term]) => [term, { on: [], off: [] }]));
  if (TEST_ENGINE === 'sqlite') {
    for (let i = 0; i < RUNS + 2; i++) {
      for (const [, term] of searches) {
        dialect.linkSearchIndex = indexed;
        const on = await time(term);
        dialect.linkSearchIndex = () => null;
        const off = await time(term);
        if (i >= 2) results.get(term)!.on.push(on), results.get(term)!.off.push(off);
      }
    }
    dialect.linkSearchIndex = indexed;
  } else {
    for (const phase of ['on', 'off'] as const) {
      if (phase === 'off') {
        await sql`drop index links_short_link_trgm`.execute(t.ctx.database.db);
        await sql`drop index links_url_trgm`.execute(t.ctx.database.db);
      }
      for (let i = 0; i < RUNS + 2; i++) {
        for (const [, term] of searches) {
          const ms = await time(term);
          if (i >= 2) results.get(term)![phase].push(ms);
        }
      }
    }
  }
  for (const [label, term] of searches) {
    const r = results.get(term)!;
    console.log(`    ${label.padEnd(38)} with ${stats(r.on)}, without ${stats(r.off)}`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
