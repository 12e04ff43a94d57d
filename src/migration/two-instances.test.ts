/**
 * Moving a workspace between two real instances, as a user of the published service would: the
 * source is a server process (`src/main.ts` on its own database) whose links live on its default
 * short domain, which no workspace can own, and on a custom domain, with clicks through its real
 * redirect, leads and sales; the target is another installation (a test app with its own short
 * domain), written by `npx waymark import api --events`.
 *
 * It must show: every link copied (the default domain's onto the target's short domain with the
 * same keys, the custom domain's with their domain), every event attributed to the right link,
 * analytics equal on both sides, a second run copying nothing; a `--dry-run` that writes nothing
 * and predicts the run; `--report` listing each rejection. Runs on the engine under test.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { createTestApp, databaseUrlOf, type TestApp } from '../test-support/harness.js';
import { freePort, privateDatabase, startServer, type PrivateDatabase, type RunningServer } from '../test-support/processes.js';
import { hit } from '../redirect/testing.js';
import { runCli } from '../cli/index.js';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const CUSTOM = 'go.src.test';

let sourceDb: PrivateDatabase;
let server: RunningServer;
let sourceBase: string;
let sourceShort: string;
const sourceKey = `wm_${randomBytes(12).toString('hex')}`;
const targets: TestApp[] = [];
const scratch = mkdtempSync(join(tmpdir(), 'waymark-two-instances-'));

async function api(method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${sourceBase}${path}`, {
    method,
    headers: { authorization: `Bearer ${sourceKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

/** Clicks through the source's redirect; returns the click ids. */
async function clicks(host: string, key: string, n: number, ipPrefix: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await hit(sourceBase, `/${key}`, { host, headers: { 'user-agent': i % 2 ? IPHONE : CHROME, 'x-forwarded-for': `${ipPrefix}.${i + 1}`, ...(i % 3 ? { referer: 'https://news.example/a' } : {}) } });
    assert.equal(res.status, 302, res.body);
    ids.push(new URL(res.location!).searchParams.get('waymark_id')!);
  }
  return ids;
}

before(async () => {
  sourceDb = await privateDatabase();
  const port = await freePort();
  // Limits the comparison's many analytics reads would meet.
  server = await startServer(sourceDb.url, port, sourceKey, { CLICK_FLUSH_INTERVAL_MS: '20', ANALYTICS_RATE_LIMIT_PER_SECOND: '10000', RATE_LIMIT_PER_MINUTE: '100000' });
  sourceBase = `http://127.0.0.1:${port}`;
  sourceShort = `wm.localhost:${port}`;
  await api('POST', '/domains', { slug: CUSTOM });
  const tag = await api('POST', '/tags', { name: 'Spring', color: 'green' });
  // Links on the source's default short domain (named explicitly: the custom domain became the primary one).
  await api('POST', '/links', { domain: sourceShort, key: 'spring', url: 'https://shop.example/spring?utm_source=news', trackConversion: true, tagIds: [tag.id], title: 'Spring' });
  await api('POST', '/links', { domain: sourceShort, key: 'taken', url: 'https://shop.example/taken', trackConversion: true });
  await api('POST', '/links', { domain: CUSTOM, key: 'deal', url: 'https://shop.example/deal', trackConversion: true });
  const spring = await clicks(sourceShort, 'spring', 5, '198.51.100');
  const taken = await clicks(sourceShort, 'taken', 2, '203.0.113');
  const deal = await clicks(CUSTOM, 'deal', 3, '192.0.2');
  // Leads need their clicks stored: wait for the click writer.
  for (let i = 0; i < 200; i++) {
    if ((await api('GET', '/analytics?event=clicks&interval=all')).clicks === 10) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const buyers: [string, string, number[]][] = [[spring[0]!, 'u1', [5000]], [spring[1]!, 'u2', []], [deal[0]!, 'u3', [900, 300]], [taken[0]!, 'u4', [700]]];
  for (const [clickId, customer, amounts] of buyers) {
    await api('POST', '/track/lead', { clickId, eventName: 'Sign up', customerExternalId: customer, mode: 'wait' });
    for (const [n, amount] of amounts.entries()) await api('POST', '/track/sale', { customerExternalId: customer, amount, invoiceId: `inv_${customer}_${n}`, paymentProcessor: 'stripe' });
  }
  // Link counters follow the stored clicks a fold later (about a second): compare settled sources.
  const counted = async () => ((await api('GET', '/links?sortBy=createdAt')) as { clicks: number }[]).reduce((n, l) => n + l.clicks, 0);
  for (let i = 0; i < 600 && (await counted()) !== 10; i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(await counted(), 10, 'the source counted its 10 clicks');
});

after(async () => {
  for (const t of targets) await t.close();
  if (server && server.child.exitCode === null) {
    server.child.kill('SIGTERM');
    await server.exited;
  }
  await sourceDb?.dispose();
  rmSync(scratch, { recursive: true, force: true });
});

async function newTarget(): Promise<TestApp> {
  const t = await createTestApp();
  targets.push(t);
  return t;
}

/** `npx waymark import api …` into the target's database; stdout lines and stderr text. */
async function importInto(target: TestApp, ...flags: string[]): Promise<{ code: number; out: string[]; err: string }> {
  const { database } = target;
  const url = databaseUrlOf(database);
  const out: string[] = [];
  let err = '';
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string) => ((err += String(chunk)), true)) as typeof process.stderr.write;
  try {
    const code = await runCli(['import', 'api', '--from', sourceBase, '--token', sourceKey, '--workspace', target.workspaceId, '--events', ...flags], (l) => out.push(l), {
      // The target installation's settings (its short domain comes from them).
      DATABASE_URL: url, LOG_LEVEL: 'silent', PORT: String(target.config.port), BASE_URL: target.config.baseUrl, EVENTS_URL: target.config.eventsUrl,
    });
    return { code, out, err };
  } finally {
    process.stderr.write = write;
  }
}

type Get = (path: string) => Promise<any>;
const getTarget = (t: TestApp): Get => async (path) => {
  const res = await t.inject({ method: 'GET', url: path });
  assert.equal(res.statusCode, 200, `${path}: ${res.body}`);
  return res.json();
};
const getSource: Get = (path) => api('GET', path);

/**
 * What must be equal on both sides, with the source's short domain written as the target's (the
 * links moved there with their keys): links, every event with its link, analytics.
 */
async function view(get: Get, short: string) {
  const name = (d: string) => (d === short ? 'SHORT' : d);
  const links = ((await get('/links?sortBy=createdAt&sortOrder=asc')) as Record<string, any>[]).map((l) => ({
    link: `${name(l.domain)}/${l.key}`, url: l.url, title: l.title, tags: l.tags.map((t: { name: string }) => t.name),
    clicks: l.clicks, leads: l.leads, sales: l.sales, saleAmount: l.saleAmount, shortLink: l.shortLink.replace(short, 'SHORT'),
  }));
  const events: Record<string, unknown[]> = {};
  for (const event of ['clicks', 'leads', 'sales']) {
    const list = (await get(`/events?event=${event}&interval=all&limit=1000&sortOrder=asc`)) as Record<string, any>[];
    events[event] = list.map((e) => ({ click: e.click.id, eventId: e.eventId ?? null, link: `${name(e.link.domain)}/${e.link.key}`, amount: e.sale?.amount ?? null, customer: e.customer?.externalId ?? null }))
      .sort((a, b) => `${a.click}${a.eventId}`.localeCompare(`${b.click}${b.eventId}`));
  }
  const analytics: Record<string, unknown> = {};
  for (const event of ['clicks', 'leads', 'sales', 'composite']) {
    for (const groupBy of ['count', 'timeseries', 'countries', 'devices', 'browsers', 'referers', 'top_urls', 'top_domains', 'top_links']) {
      const rows = await get(`/analytics?event=${event}&groupBy=${groupBy}&interval=all&timezone=UTC`);
      analytics[`${event}/${groupBy}`] = groupBy === 'top_domains'
        ? (rows as Record<string, any>[]).map((r) => ({ ...r, domain: name(r.domain) }))
        : groupBy === 'top_links'
          ? (rows as Record<string, any>[]).map(({ id: _id, link: _link, shortLink, domain, ...r }) => ({ ...r, domain: name(domain), shortLink: String(shortLink).replace(short, 'SHORT') }))
          : rows;
    }
  }
  return { links, events, analytics };
}

describe('import api from a real instance: links on its default short domain and on a custom domain', () => {
  test('every link, every event on the right link, analytics equal; a second run copies nothing', async () => {
    const target = await newTarget();
    const first = await importInto(target);
    assert.equal(first.code, 0, first.out.join('\n') + first.err);
    const targetShort = target.config.shortDomain;
    assert.ok(first.out.includes('links: 3 copied, 0 already there, 0 rejected'), first.out.join('\n'));
    assert.ok(first.out.includes(`links moved domain: 2 from ${sourceShort} to ${targetShort} (same keys: their short links change)`), first.out.join('\n'));
    assert.ok(first.out.includes('clicks: 10 copied, 0 already there, 0 rejected'), first.out.join('\n'));
    assert.ok(first.out.includes('leads: 4 copied, 0 already there, 0 rejected'), first.out.join('\n'));
    assert.ok(first.out.includes('sales: 4 copied, 0 already there, 0 rejected'), first.out.join('\n'));
    assert.equal(first.out.at(-1), 'Nothing was rejected.');

    const want = await view(getSource, sourceShort);
    const got = await view(getTarget(target), targetShort);
    assert.deepEqual(want.links.map((l) => l.link), ['SHORT/spring', 'SHORT/taken', `${CUSTOM}/deal`]);
    assert.equal((want.analytics['composite/count'] as { clicks: number }).clicks, 10);
    assert.deepEqual(got, want);
    // The copied short links answer on the target's domain with the same keys.
    const base = await target.listen();
    for (const [host, key, url] of [[targetShort, 'spring', 'https://shop.example/spring'], [CUSTOM, 'deal', 'https://shop.example/deal']]) {
      const res = await hit(base, `/${key}`, { host: host!, headers: { 'user-agent': CHROME } });
      assert.equal(res.status, 302);
      assert.ok(res.location!.startsWith(url!), res.location);
    }
    await target.modules.redirect.flushClicks();

    const second = await importInto(target);
    assert.equal(second.code, 0, second.out.join('\n') + second.err);
    assert.ok(second.out.includes('links: 0 copied, 3 already there, 0 rejected'), second.out.join('\n'));
    assert.ok(second.out.includes('clicks: 0 copied, 10 already there, 0 rejected'), second.out.join('\n'));
    assert.ok(second.out.includes('leads: 0 copied, 4 already there, 0 rejected'), second.out.join('\n'));
    assert.ok(second.out.includes('sales: 0 copied, 4 already there, 0 rejected'), second.out.join('\n'));
    // Two clicks of the copy check above, nothing from the second run.
    const again = await view(getTarget(target), targetShort);
    assert.deepEqual(again.events.leads, want.events.leads);
    assert.deepEqual(again.events.sales, want.events.sales);
    assert.equal(again.events.clicks!.length, want.events.clicks!.length + 2);
  });

  test('--dry-run writes nothing and predicts the run; --report lists each rejection (a key another workspace holds on the short domain)', async () => {
    const target = await newTarget();
    const targetShort = target.config.shortDomain;
    // Another workspace of the target installation holds `taken` on the short domain.
    const other = await target.ctx.workspaces.createWorkspace({ name: 'Other', plan: 'enterprise' });
    const otherKey = (await target.ctx.workspaces.createKey(other.id, { name: 'other' })).key;
    const holder = await target.inject({ method: 'POST', url: '/links', headers: { authorization: `Bearer ${otherKey}` }, payload: { domain: targetShort, key: 'taken', url: 'https://other.example/' } });
    assert.equal(holder.statusCode, 200, holder.body);

    const counts = async () => {
      const { db } = target.database;
      const n = async (table: 'links' | 'events' | 'tags' | 'domains' | 'customers') =>
        Number((await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).where('workspace_id', '=', target.workspaceId).executeTakeFirstOrThrow()).n);
      return { links: await n('links'), events: await n('events'), tags: await n('tags'), domains: await n('domains'), customers: await n('customers') };
    };
    const empty = await counts();
    const dryReport = join(scratch, 'dry.csv');
    const dry = await importInto(target, '--dry-run', '--report', dryReport);
    assert.equal(dry.code, 0, dry.out.join('\n') + dry.err);
    assert.equal(dry.out[0], 'Dry run: nothing was written; the counts say what a run would do.');
    assert.deepEqual(await counts(), empty, 'the dry run wrote nothing');

    const report = join(scratch, 'rejected.csv');
    const run = await importInto(target, '--report', report);
    assert.equal(run.code, 0, run.out.join('\n') + run.err);
    // The dry run said what the run did, line for line.
    assert.deepEqual(dry.out.slice(1, -1), run.out.slice(0, -1).map((l) => l.replace(report, dryReport)));
    assert.ok(run.out.includes('links: 2 copied, 0 already there, 1 rejected'), run.out.join('\n'));
    assert.ok(run.out.includes(`links moved domain: 1 from ${sourceShort} to ${targetShort} (same keys: their short links change)`), run.out.join('\n'));
    assert.ok(run.out.includes('clicks: 8 copied, 0 already there, 2 rejected'), run.out.join('\n'));
    assert.ok(run.out.includes('leads: 3 copied, 0 already there, 1 rejected'), run.out.join('\n'));
    assert.ok(run.out.includes('sales: 3 copied, 0 already there, 1 rejected'), run.out.join('\n'));
    const reasons = run.out.slice(run.out.indexOf('Rejected, by reason:') + 1, -1);
    assert.deepEqual(reasons, [
      '  2 clicks: its link was not copied',
      '  1 leads: its link was not copied',
      '  1 sales: its link was not copied',
      `  1 links: the key is taken on ${targetShort} by another workspace`,
    ]);
    assert.equal(run.out.at(-1), `Rejected items: ${report}`);

    const rows = parse(readFileSync(report, 'utf8'), { columns: true }) as Record<string, string>[];
    const sourceLinks = (await getSource('/links')) as { id: string; key: string }[];
    const takenEvents = ((await getSource('/events?event=clicks&interval=all&limit=1000')) as any[]).filter((e) => e.link.key === 'taken');
    const conversions = [...(await getSource('/events?event=leads&interval=all')), ...(await getSource('/events?event=sales&interval=all'))].filter((e: any) => e.link.key === 'taken');
    assert.deepEqual(
      rows.map((r) => [r.kind, r.sourceId, r.domainKey]).sort(),
      [
        ['link', sourceLinks.find((l) => l.key === 'taken')!.id, `${sourceShort}/taken`],
        ...takenEvents.map((e) => ['click', e.click.id, `${sourceShort}/taken`]),
        ...conversions.map((e: any) => [e.event === 'lead' ? 'lead' : 'sale', e.eventId, `${sourceShort}/taken`]),
      ].sort(),
    );
    assert.deepEqual(readFileSync(dryReport, 'utf8'), readFileSync(report, 'utf8'), 'the dry run reported the same rejections');
    assert.deepEqual(await counts(), { ...empty, links: 2, events: 8 + 3 + 3, tags: 1, domains: 1, customers: empty.customers + 4 });
  });
});
