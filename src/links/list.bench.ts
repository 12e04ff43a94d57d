/**
 * Times GET /links and GET /links/count over a workspace of 100k links (plus 20k links of other
 * workspaces), for every filter and sort, on the engine chosen by DATABASE_URL.
 *
 *   npx tsx src/links/list.bench.ts                      # SQLite
 *   DATABASE_URL=postgres://… npx tsx src/links/list.bench.ts
 *
 * Prints the median of 7 runs per query (after one warm-up); assert nothing.
 */
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { createTestApp, TEST_ENGINE } from '../test-support/harness.js';
import { newId } from '../ids.js';
import type { LinkRow } from './store.js';

const N = Number(process.env.LINKS ?? 100_000);

async function main() {
  const t = await createTestApp();
  const db = t.ctx.database.db;
  const other = await t.addWorkspace();
  const t0 = Date.now() - N * 1000;
  const folders = ['fold_a', 'fold_b'];
  for (const [i, id] of folders.entries()) {
    await db.insertInto('folders').values({ id, workspace_id: t.workspaceId, name: `F${i}`, name_key: `f${i}`, type: 'default', access_level: 'write', description: null, created_at: t0, updated_at: t0 }).execute();
  }
  const tags = ['tag_a', 'tag_b', 'tag_rare'];
  for (const id of tags) {
    await db.insertInto('tags').values({ id, workspace_id: t.workspaceId, name: id, name_key: id, color: 'blue', created_at: t0, updated_at: t0 }).execute();
  }
  await db.insertInto('domains').values({ id: 'dom_x', workspace_id: t.workspaceId, slug: 'go.example.com', verified: 1, primary: 0, archived: 0, placeholder: null, expired_url: null, not_found_url: null, logo: null, asset_links: null, apple_app_site_association: null, created_at: t0, updated_at: t0 }).execute();

  const started = performance.now();
  const total = N + 20_000;
  for (let i = 0; i < total; i += 500) {
    const rows: LinkRow[] = [];
    const linkTags: { link_id: string; tag_id: string; workspace_id: string; position: number }[] = [];
    for (let j = i; j < Math.min(total, i + 500); j++) {
      const mine = j < N;
      const id = newId('link', t0 + j * 1000);
      const domain = j % 10 === 0 ? 'go.example.com' : 'wm.localhost:3999';
      const key = `k${j.toString(36)}`;
      rows.push({
        id, workspace_id: mine ? t.workspaceId : other.workspaceId, domain, key, key_lower: key, url: `https://shop${j % 1000}.example.com/p/${j}`,
        short_link: `http://${domain}/${key}`, archived: j % 50 === 0 ? 1 : 0, expires_at: null, expired_url: null, disabled_at: null, password: null,
        track_conversion: 0, proxy: 0, title: null, description: null, image: null, video: null, utm_source: null, utm_medium: null, utm_campaign: null,
        utm_term: null, utm_content: null, rewrite: 0, do_index: 0, ios: null, android: null, geo: null, test_variants: null, test_started_at: null,
        test_completed_at: null, user_id: `key_${j % 5}`, folder_id: j % 7 === 0 ? folders[j % 2]! : null, external_id: `ext${j}`, tenant_id: `tenant_${j % 100}`,
        program_id: null, partner_id: null, public_stats: 0, public_stats_conversions: 0, comments: null, clicks: (j * 7919) % 10_000, leads: 0, conversions: 0, sales: 0,
        sale_amount: (j * 104_729) % 100_000, last_clicked: j % 3 === 0 ? null : t0 + ((j * 31) % N) * 1000, created_at: t0 + j * 1000, updated_at: t0 + j * 1000,
      });
      if (mine && j % 4 === 0) linkTags.push({ link_id: id, tag_id: 'tag_a', workspace_id: t.workspaceId, position: 0 });
      if (mine && j % 9 === 0) linkTags.push({ link_id: id, tag_id: 'tag_b', workspace_id: t.workspaceId, position: 1 });
      if (mine && j % 5001 === 0) linkTags.push({ link_id: id, tag_id: 'tag_rare', workspace_id: t.workspaceId, position: 2 });
    }
    await db.insertInto('links').values(rows).execute();
    if (linkTags.length) await db.insertInto('link_tags').values(linkTags).execute();
  }
  await sql`analyze`.execute(db);
  console.log(`${TEST_ENGINE}: inserted ${total} links (${N} in the measured workspace) in ${Math.round(performance.now() - started)} ms`);

  const cases: [string, string][] = [
    ['default list (unsorted links, createdAt desc)', '/links'],
    ['page 100', '/links?page=100&pageSize=50'],
    ['sortBy=clicks', '/links?sortBy=clicks'],
    ['sortBy=saleAmount asc', '/links?sortBy=saleAmount&sortOrder=asc'],
    ['sortBy=lastClicked', '/links?sortBy=lastClicked'],
    ['sortBy=lastClicked asc', '/links?sortBy=lastClicked&sortOrder=asc'],
    ['domain=go.example.com', '/links?domain=go.example.com'],
    ['domain + sortBy=clicks', '/links?domain=go.example.com&sortBy=clicks'],
    ['folderId=fold_a', '/links?folderId=fold_a'],
    ['folderId + sortBy=clicks', '/links?folderId=fold_a&sortBy=clicks'],
    ['tagIds=tag_a', '/links?tagIds=tag_a'],
    ['tagIds=tag_rare', '/links?tagIds=tag_rare'],
    ['tagNames=TAG_B', '/links?tagNames=TAG_B'],
    ['tenantId=tenant_7', '/links?tenantId=tenant_7'],
    ['userId=key_3', '/links?userId=key_3'],
    ['userId + sortBy=clicks', '/links?userId=key_3&sortBy=clicks'],
    ['search=shop42.example (common)', '/links?search=shop42.example'],
    ['search=nomatch (full scan)', '/links?search=nomatch'],
    ['showArchived=true', '/links?showArchived=true'],
    ['withTags=true', '/links?withTags=true'],
    ['cursor startingAfter', ''],
    ['count', '/links/count'],
    ['count tenantId', '/links/count?tenantId=tenant_7'],
    ['count groupBy=domain', '/links/count?groupBy=domain&search=example'],
    ['count groupBy=tagId', '/links/count?groupBy=tagId&search=example'],
  ];
  const mid = (await t.inject({ method: 'GET', url: '/links?page=50' })).json()[0].id as string;
  cases.find((c) => c[0] === 'cursor startingAfter')![1] = `/links?startingAfter=${mid}`;
  for (const [name, url] of cases) {
    const first = await t.inject({ method: 'GET', url });
    if (first.statusCode !== 200) throw new Error(`${url}: ${first.statusCode} ${first.body}`);
    const times: number[] = [];
    for (let i = 0; i < 7; i++) {
      const s = performance.now();
      await t.inject({ method: 'GET', url });
      times.push(performance.now() - s);
    }
    times.sort((a, b) => a - b);
    const body = first.json();
    const size = Array.isArray(body) ? `${body.length} rows` : `= ${JSON.stringify(body)}`;
    console.log(`${name.padEnd(46)} ${times[3]!.toFixed(1).padStart(8)} ms   (${size.slice(0, 40)})`);
  }
  if (process.env.KEEP) {
    // Leaves the database for EXPLAIN experiments.
    console.log(`kept: ${t.ctx.database.sqlitePath ?? t.ctx.database.pgSchema}`);
    process.exit(0);
  }
  await t.close();
}

await main();
