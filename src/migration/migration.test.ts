/**
 * `import api` between two running Waymark instances: the source listens on a loopback port and
 * answers the published API; the migration copies its workspace into the target's database. Then
 * both sides must answer the same links, tags, folders, customers and analytics. Runs on the
 * engine under test (SQLite, or PostgreSQL with DATABASE_URL).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, databaseUrlOf, TEST_ENGINE, type TestApp } from '../test-support/harness.js';
import { buildScope, columnsOf, foldClicksLeftUnfolded, type StoredEvent } from '../events/index.js';
import { hit } from '../redirect/testing.js';
import { runApiImport, type ImportSummary } from './run.js';
import { importedBatchId } from './events.js';
import { SourceError } from './source.js';
import { runCli } from '../cli/index.js';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

let source: TestApp;
let sourceBase: string;
const targets: TestApp[] = [];

async function ok(t: TestApp, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) {
  const res = await t.inject({ method, url, payload: payload as object });
  assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json();
}

/** A click through the real redirect; returns its click id (the link tracks conversions). */
async function click(key: string, host: string, ua: string, ip: string, referer?: string): Promise<string> {
  const res = await hit(sourceBase, `/${key}`, { host, headers: { 'user-agent': ua, 'x-forwarded-for': ip, ...(referer ? { referer } : {}) } });
  assert.equal(res.status, 302, res.body);
  return new URL(res.location!).searchParams.get('waymark_id')!;
}

before(async () => {
  source = await createTestApp({ env: { TRUST_PROXY: 'true' } });
  sourceBase = await source.listen();
  await ok(source, 'POST', '/domains', { slug: 'go.src.test', placeholder: 'https://shop.example/x' });
  await ok(source, 'POST', '/domains', { slug: 'promo.src.test' });
  const spring = await ok(source, 'POST', '/tags', { name: 'Spring', color: 'green' });
  const autumn = await ok(source, 'POST', '/tags', { name: 'Autumn', color: 'red' });
  const folder = await ok(source, 'POST', '/folders', { name: 'Campaigns', description: 'Paid' });
  await ok(source, 'POST', '/links', {
    domain: 'go.src.test', key: 'spring', url: 'https://shop.example/spring?utm_source=news&utm_medium=email', trackConversion: true,
    tagIds: [spring.id, autumn.id], title: 'Spring sale', externalId: 'ext-spring', comments: 'first', geo: { DE: 'https://shop.example/de' },
  });
  await ok(source, 'POST', '/links', { domain: 'go.src.test', key: 'Folded', url: 'https://shop.example/folded', trackConversion: true, folderId: folder.id });
  await ok(source, 'POST', '/links', { domain: 'promo.src.test', key: 'quiet', url: 'https://shop.example/quiet', archived: true, tagIds: [autumn.id] });
  await ok(source, 'POST', '/links', { domain: 'promo.src.test', key: 'deal', url: 'https://shop.example/deal', trackConversion: true, expiresAt: '2099-01-01T00:00:00.000Z' });

  const clicks: string[] = [];
  for (let i = 0; i < 6; i++) clicks.push(await click('spring', 'go.src.test', i % 2 ? CHROME : IPHONE, `198.51.100.${i + 1}`, i % 3 ? 'https://news.example/a' : undefined));
  for (let i = 0; i < 3; i++) clicks.push(await click('Folded', 'go.src.test', CHROME, `203.0.113.${i + 1}`));
  for (let i = 0; i < 2; i++) clicks.push(await click('deal', 'promo.src.test', IPHONE, `192.0.2.${i + 1}`));
  await source.modules.redirect.flushClicks();
  const buyers = [
    { click: clicks[0]!, customer: 'u1', amounts: [5000, 1200] },
    { click: clicks[1]!, customer: 'u2', amounts: [] },
    { click: clicks[6]!, customer: 'u3', amounts: [9900] },
    { click: clicks[9]!, customer: 'u4', amounts: [300] },
  ];
  for (const b of buyers) {
    await ok(source, 'POST', '/track/lead', { clickId: b.click, eventName: 'Sign up', customerExternalId: b.customer, customerEmail: `${b.customer}@example.com`, mode: 'wait', metadata: { plan: 'pro' } });
    for (const [n, amount] of b.amounts.entries()) {
      await ok(source, 'POST', '/track/sale', { customerExternalId: b.customer, amount, invoiceId: `inv_${b.customer}_${n}`, paymentProcessor: 'stripe' });
    }
  }
  await source.modules.redirect.flushClicks();
  // A disabled link (no API sets it): left out of workspace analytics, its events read by its id.
  await source.database.db.updateTable('links').set({ disabled_at: Date.now() - 1000 }).where('key', '=', 'deal').where('workspace_id', '=', source.workspaceId).execute();
});

after(async () => {
  for (const t of targets) await t.close();
  await source?.close();
});

async function newTarget(config: { eventsUrl?: string } = {}): Promise<TestApp> {
  const t = await createTestApp({ config });
  targets.push(t);
  return t;
}

async function migrate(target: TestApp, fetchImpl?: typeof fetch, waits: number[] = [], progress?: (line: string) => void): Promise<ImportSummary> {
  const workspace = (await target.ctx.workspaces.findWorkspace(target.workspaceId))!;
  return runApiImport({
    database: target.database,
    config: target.config,
    workspace,
    source: { baseUrl: sourceBase, token: source.key, fetch: fetchImpl, sleep: async (ms) => void waits.push(ms) },
    events: true,
    // The target app's own event log, as a running server's: clicks go to its log thread's appendClicks.
    eventLog: { log: target.ctx.events, conversions: target.ctx.conversions },
    progress,
  });
}

/** Everything both sides must answer alike, with ids replaced by what they name. */
async function snapshot(t: TestApp) {
  const tags = (await ok(t, 'GET', '/tags')) as { id: string; name: string; color: string }[];
  const folders = (await ok(t, 'GET', '/folders')) as { id: string; name: string }[];
  const folderName = new Map(folders.map((f) => [f.id, f.name]));
  const links: Record<string, unknown>[] = [];
  for (const folderId of [undefined, ...folders.map((f) => f.id)]) {
    links.push(...((await ok(t, 'GET', `/links?showArchived=true&sortBy=createdAt&sortOrder=asc${folderId ? `&folderId=${folderId}` : ''}`)) as Record<string, unknown>[]));
  }
  const linkName = new Map(links.map((l) => [l.id as string, `${l.domain}/${l.key}`]));
  const strip = (l: Record<string, unknown>): Record<string, unknown> => {
    const { id: _id, workspaceId: _w, projectId: _p, tagId: _t, ...rest } = l;
    return { ...rest, tags: (l.tags as { name: string; color: string }[]).map((x) => ({ name: x.name, color: x.color })), folderId: folderName.get(l.folderId as string) ?? null };
  };
  const customers = ((await ok(t, 'GET', '/customers?sortBy=createdAt&sortOrder=asc')) as Record<string, unknown>[]).map(({ id: _id, ...c }) => c);
  const analytics: Record<string, unknown> = {};
  const from = encodeURIComponent(new Date(Date.now() - 86_400_000).toISOString());
  const to = encodeURIComponent(new Date(Date.now() + 60_000).toISOString());
  for (const event of ['clicks', 'leads', 'sales', 'composite']) {
    for (const type of ['count', 'countries', 'devices', 'browsers', 'referers', 'utm_sources', 'top_urls', 'top_domains', 'timeseries', 'top_links']) {
      const rows = await ok(t, 'GET', `/analytics?event=${event}&groupBy=${type}&start=${from}&end=${to}&timezone=UTC`);
      analytics[`${event}/${type}`] = type === 'top_links' ? (rows as Record<string, unknown>[]).map((r) => ({ ...pick(r, ['clicks', 'leads', 'sales', 'saleAmount']), link: linkName.get((r.id ?? r.link) as string) })) : rows;
    }
    analytics[`${event}/link:deal`] = await ok(t, 'GET', `/analytics?event=${event}&interval=all&domain=promo.src.test&key=deal`);
    for (const folder of folders) analytics[`${event}/folder:${folder.name}`] = await ok(t, 'GET', `/analytics?event=${event}&interval=all&folderId=${folder.id}`);
  }
  // Under each model (the credits written with the source's sales and with the imported ones).
  for (const model of ['first_click', 'linear', 'time_decay', 'position_based']) {
    const rows = (await ok(t, 'GET', `/analytics?event=sales&groupBy=top_links&interval=all&attribution=${model}`)) as Record<string, unknown>[];
    analytics[`sales/top_links/${model}`] = rows.map((r) => ({ ...pick(r, ['sales', 'saleAmount']), link: linkName.get((r.id ?? r.link) as string) }));
  }
  return {
    tags: tags.map(({ name, color }) => ({ name, color })).sort((a, b) => a.name.localeCompare(b.name)),
    folders: folders.map(({ id: _id, ...f }) => f),
    links: links.map(strip).sort((a, b) => `${a.domain}/${a.key}`.localeCompare(`${b.domain}/${b.key}`)),
    customers,
    analytics,
  };
}

function pick(o: Record<string, unknown>, keys: string[]) {
  return Object.fromEntries(keys.map((k) => [k, o[k]]));
}

describe('import api between two Waymark instances', () => {
  test('copies the workspace: links, tags, folders, customers and analytics answer alike', async () => {
    const target = await newTarget();
    const lines: string[] = [];
    const summary = await migrate(target, undefined, [], (l) => lines.push(l));
    assert.ok(lines.some((l) => /^links: 4 copied, 0 already there, 0 rejected \(\d+\/s\)$/.test(l)), lines.join('\n'));
    assert.ok(lines.some((l) => /^clicks: \d+ copied, 0 already there, 0 rejected \(\d+\/s\)$/.test(l)), lines.join('\n'));
    assert.deepEqual(summary.links, { created: 4, existing: 0, rejected: 0 }, JSON.stringify(summary.reasons));
    assert.equal(summary.events!.clicks.written, 11);
    assert.equal(summary.events!.leads.written, 4);
    assert.equal(summary.events!.sales.written, 4);
    const [want, got] = [await snapshot(source), await snapshot(target)];
    // Without a folder, analytics leave out the links in folders and disabled links (as published): 6 + 3 + 2 clicks.
    assert.equal((want.analytics['composite/count'] as { clicks: number }).clicks, 6);
    assert.deepEqual(want.analytics['composite/link:deal'], { clicks: 2, leads: 1, sales: 1, saleAmount: 300 });
    assert.equal((want.analytics['clicks/folder:Campaigns'] as { clicks: number }).clicks, 3);
    assert.deepEqual(got, want);
    // The imported sales were credited in the import's writes, as the source's were on /track/sale.
    const creditCount = async (t: TestApp) => Number((await t.ctx.database.db.selectFrom('credits').select((e) => e.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    assert.ok((await creditCount(source)) > 0);
    assert.equal(await creditCount(target), await creditCount(source));

    // Domains arrive unverified, with their settings.
    const domains = (await ok(target, 'GET', '/domains')) as { slug: string; verified: boolean; placeholder: string | null }[];
    assert.deepEqual(domains.map((d) => [d.slug, d.verified]).sort(), [['go.src.test', false], ['promo.src.test', false]]);
    assert.equal(domains.find((d) => d.slug === 'go.src.test')!.placeholder, 'https://shop.example/x');

    // A second run duplicates nothing.
    const again = await migrate(target);
    assert.deepEqual(again.links, { created: 0, existing: 4, rejected: 0 });
    assert.deepEqual(again.customers, { created: 0, existing: 4, rejected: 0 });
    assert.deepEqual(again.events, {
      clicks: { written: 0, skipped: 11, rejected: 0 },
      leads: { written: 0, skipped: 4, rejected: 0 },
      sales: { written: 0, skipped: 4, rejected: 0 },
    });
    assert.deepEqual(await snapshot(target), want);
  });

  test('an interrupted run (500 half-way, 429 with Retry-After before) completes when run again', async () => {
    const target = await newTarget();
    let limited = false;
    let broken = true;
    const faulty: typeof fetch = async (input, init) => {
      const url = new URL(String(input));
      if (url.pathname === '/links' && !limited) {
        limited = true;
        return new Response(JSON.stringify({ error: { code: 'rate_limit_exceeded', message: 'slow down', doc_url: '' } }), { status: 429, headers: { 'retry-after': '7' } });
      }
      if (broken && url.pathname === '/events' && url.searchParams.get('event') === 'leads') {
        return new Response(JSON.stringify({ error: { code: 'internal_server_error', message: 'boom', doc_url: '' } }), { status: 500 });
      }
      return fetch(input, init);
    };
    const waits: number[] = [];
    await assert.rejects(migrate(target, faulty, waits), (err: unknown) => err instanceof SourceError && err.status === 500);
    assert.equal(waits[0], 7000, 'the 429 was answered by waiting its Retry-After');
    // The part before the failure is there: links and clicks, no leads yet.
    const part = await snapshot(target);
    assert.equal(part.links.length, 4);
    assert.equal((part.analytics['composite/count'] as { clicks: number; leads: number }).clicks, 6);
    assert.equal((part.analytics['composite/count'] as { clicks: number; leads: number }).leads, 0);

    broken = false;
    const resumed = await migrate(target, faulty);
    assert.equal(resumed.links.created, 0);
    assert.equal(resumed.events!.clicks.written, 0);
    assert.equal(resumed.events!.leads.written, 4);
    assert.deepEqual(await snapshot(target), await snapshot(source));
  });

  test('the default store (DuckDB): analytics and link counters equal the source\'s as soon as the import returns, and a second run adds nothing', async () => {
    const target = await newTarget({ eventsUrl: 'duckdb::memory:' });
    assert.deepEqual(await target.ctx.events.describe(), { kind: 'duckdb' });
    const summary = await migrate(target);
    assert.equal(summary.events!.clicks.written, 11);
    const want = await snapshot(source);
    // No wait and no settling: the clicks were stored by appendClicks and counted by the fold before it returned.
    assert.deepEqual(await snapshot(target), want);
    const inSql = await target.database.db.selectFrom('events').select('kind').where('kind', '=', 'click').execute();
    assert.equal(inSql.length, 0, 'no imported click in the metadata database');
    // The imported batches are history: no usage (what the workspace is billed for) was added.
    const ws = await target.database.db.selectFrom('workspaces').select('usage').where('id', '=', target.workspaceId).executeTakeFirstOrThrow();
    assert.equal(Number(ws.usage), 0);

    const again = await migrate(target);
    assert.deepEqual(again.events!.clicks, { written: 0, skipped: 11, rejected: 0 });
    assert.deepEqual(await snapshot(target), want);
  });

  test('the same page of clicks appended again (a re-run after a stop between the append and its answer) adds nothing: the batch id decides', async () => {
    const target = await newTarget({ eventsUrl: 'duckdb::memory:' });
    await migrate(target);
    const want = await snapshot(target);
    const scope = buildScope({ workspaceId: target.workspaceId, links: {}, named: false });
    const rows: StoredEvent[] = await target.ctx.events.page(
      { workspaceId: target.workspaceId, kinds: ['click'], group: [], timeseries: false, dims: [], conversions: {}, scope },
      { from: 0, to: Date.now() + 60_000 }, { order: 'asc', limit: 100, offset: 0 },
    );
    // The workspace's view leaves out the folder's and the disabled link's: the page of the 6 others.
    assert.equal(rows.length, 6);
    // The page as the import writes it, past the look-up of stored ids: the same batch id, so nothing is stored or counted twice.
    await target.ctx.events.appendClicks(importedBatchId(target.workspaceId, rows), columnsOf(rows));
    await target.ctx.events.fold();
    assert.deepEqual(await snapshot(target), want);
  });

  test('SQLite: an earlier version\'s click fold watermark left before the copied clicks: counted once, and a server start does not count them again', { skip: TEST_ENGINE !== 'sqlite' && 'the watermark is SQLite\'s' }, async () => {
    const target = await newTarget();
    const { db } = target.database;
    // A target whose old fold had counted clicks up to before the source's first click.
    const sourceFirst = (await source.database.db.selectFrom('events').select((eb) => eb.fn.min('timestamp').as('t')).where('kind', '=', 'click').executeTakeFirstOrThrow()).t;
    await db.updateTable('click_rollup_state').set({ folded_before: Number(sourceFirst) - 1 }).where('id', '=', 1).execute();
    await migrate(target);
    const watermark = (await db.selectFrom('click_rollup_state').select('folded_before').where('id', '=', 1).executeTakeFirstOrThrow()).folded_before;
    assert.equal(watermark, null, 'the import counted what the old fold left and cleared its watermark before copying');
    const want = await snapshot(source);
    assert.deepEqual(await snapshot(target), want);
    // What a server start does (an earlier version's watermark): count the clicks from the watermark on. None.
    assert.equal(await foldClicksLeftUnfolded(target.database), 0);
    assert.deepEqual(await snapshot(target), want);
  });

  test('npx waymark import api: the CLI copies into the workspace it names', async () => {
    const target = await newTarget();
    const database = target.database;
    const url = databaseUrlOf(database);
    const out: string[] = [];
    const progress: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string) => (progress.push(String(chunk)), true)) as typeof process.stderr.write;
    try {
      // The CLI opens the installation's event log itself: the target's store (EVENTS_URL).
      const code = await runCli(['import', 'api', '--from', sourceBase, '--token', source.key, '--workspace', target.workspaceId, '--events'], (l) => out.push(l), { DATABASE_URL: url, LOG_LEVEL: 'silent', EVENTS_URL: target.config.eventsUrl });
      assert.equal(code, 0, out.join('\n'));
    } finally {
      process.stderr.write = write;
    }
    assert.ok(out.includes('links: 4 copied, 0 already there, 0 rejected'), out.join('\n'));
    assert.ok(out.includes('sales: 4 copied, 0 already there, 0 rejected'), out.join('\n'));
    assert.ok(progress.some((l) => l.startsWith('import: customers: 4 copied')), progress.join(''));
    assert.deepEqual(await snapshot(target), await snapshot(source));
    // One audit entry for the run, in the workspace, by the command line: the source's host and the counts, never the token.
    const entries = await database.db.selectFrom('audit_log').selectAll().where('workspace_id', '=', target.workspaceId).where('action', '=', 'workspace.import').execute();
    assert.equal(entries.length, 1);
    assert.equal(entries[0]!.actor_type, 'cli');
    assert.equal(entries[0]!.target, target.workspaceId);
    const changes = JSON.parse(entries[0]!.changes);
    assert.equal(changes.source, 'api');
    assert.equal(changes.from, new URL(sourceBase).host);
    assert.deepEqual(changes.links, { created: 4, existing: 0, rejected: 0 });
    assert.deepEqual(changes.events.sales, { written: 4, skipped: 0, rejected: 0 });
    assert.ok(!entries[0]!.changes.includes(source.key), 'the token is not kept');
    // A dry run copies nothing and records nothing.
    assert.equal(await runCli(['import', 'api', '--from', sourceBase, '--token', source.key, '--workspace', target.workspaceId, '--dry-run'], () => {}, { DATABASE_URL: url, LOG_LEVEL: 'silent' }), 0);
    assert.equal((await database.db.selectFrom('audit_log').select('id').where('workspace_id', '=', target.workspaceId).where('action', '=', 'workspace.import').execute()).length, 1);
  });

  test('refuses a source that is not http or https', async () => {
    const target = await newTarget();
    const workspace = (await target.ctx.workspaces.findWorkspace(target.workspaceId))!;
    await assert.rejects(
      runApiImport({ database: target.database, config: target.config, workspace, source: { baseUrl: 'file:///etc/passwd', token: 'x' } }),
      /http or https/,
    );
  });
});
