/**
 * `import bitly` against a local server (node:http on 127.0.0.1, in this process) that answers as
 * Bitly's public API v4 is published: the OpenAPI document "Bitly API 4.0.0"
 * (https://dev.bitly.com/api-reference; schemas Groups/Group, Tags, Bitlinks/BitlinkBody/
 * Pagination, ClicksSummary, Error/FieldError, TooManyRequests) and the note "Changes to Retrieve
 * Bitlinks By Group" (https://dev.bitly.com/docs/getting-started/changes-to-retrieve-bitlinks-by-group/:
 * `pagination.search_after`, empty on the last batch; `prev` absent on the first).
 *
 * It shows: groups (all, or the one --group names), a group's branded domain copied, tags, links
 * with custom back-halves (each address a link, the click total on the first), titles, archived
 * state and creation times kept, pagination across batches, a 429 in the middle waited out,
 * Bitly's error bodies reported, a re-run copying nothing and asking no click totals, --dry-run
 * writing nothing, and the CLI with --domain-map and --report. Runs on the engine under test.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { createTestApp, databaseUrlOf, type TestApp } from '../test-support/harness.js';
import { runBitlyImport } from './bitly.js';
import { nextParams, addressOf } from './bitly-source.js';
import type { ImportSummary } from './tally.js';
import { describeSummary } from './tally.js';
import { runCli } from '../cli/index.js';
import { hit } from '../redirect/testing.js';

const TOKEN = 'bitly-test-token';

const GROUPS = [
  { created: '2022-01-01T00:00:00+0000', modified: '2022-01-01T00:00:00+0000', bsds: ['acme.link'], guid: 'Bg1Marketing', organization_guid: 'Oa1', name: 'Marketing', is_active: true, role: 'org-admin', references: { organization: 'https://api-ssl.bitly.com/v4/organizations/Oa1' } },
  { created: '2022-02-01T00:00:00+0000', modified: '2022-02-01T00:00:00+0000', bsds: [], guid: 'Bg2Support', organization_guid: 'Oa1', name: 'Support', is_active: true, role: 'org-admin', references: {} },
];
const TAGS: Record<string, string[]> = { Bg1Marketing: ['spring', 'promo'], Bg2Support: ['help'] };

function bitlink(id: string, fields: { long_url: string; custom?: string[]; title?: string | null; tags?: string[]; archived?: boolean; created_at: string; group: string }) {
  return {
    references: { group: `https://api-ssl.bitly.com/v4/groups/${fields.group}` },
    link: `https://${id}`,
    id,
    long_url: fields.long_url,
    title: fields.title ?? null,
    archived: fields.archived ?? false,
    created_at: fields.created_at,
    created_by: 'acme',
    client_id: 'a1b2c3',
    custom_bitlinks: fields.custom ?? [],
    tags: fields.tags ?? [],
    launchpad_ids: [],
    deeplinks: [],
  };
}

const LINKS: Record<string, ReturnType<typeof bitlink>[]> = {
  Bg1Marketing: [
    bitlink('bit.ly/3xYzAbc', { long_url: 'https://shop.example/spring?utm_source=bitly', custom: ['https://bit.ly/spring-sale'], title: 'Spring sale', tags: ['spring', 'promo'], created_at: '2023-03-01T10:00:00+0000', group: 'Bg1Marketing' }),
    bitlink('acme.link/9QwErTy', { long_url: 'https://shop.example/deal', custom: ['https://acme.link/deal'], title: 'Deal', tags: ['promo'], created_at: '2023-03-02T10:00:00+0000', group: 'Bg1Marketing' }),
    bitlink('bit.ly/2plain1', { long_url: 'https://shop.example/plain', archived: true, created_at: '2023-03-03T10:00:00+0000', group: 'Bg1Marketing' }),
    bitlink('bit.ly/4nTagX', { long_url: 'https://shop.example/tagged', tags: ['unlisted'], created_at: '2023-03-04T10:00:00+0000', group: 'Bg1Marketing' }),
    bitlink('bit.ly/5ftp', { long_url: 'ftp://files.example/x', created_at: '2023-03-05T10:00:00+0000', group: 'Bg1Marketing' }),
  ],
  Bg2Support: [
    bitlink('bit.ly/6help', { long_url: 'https://help.example/', custom: ['https://bit.ly/help-center'], title: 'Help', tags: ['help'], created_at: '2023-04-01T10:00:00+0000', group: 'Bg2Support' }),
  ],
};
const TOTALS: Record<string, number> = { 'bit.ly/3xYzAbc': 120, 'acme.link/9QwErTy': 40, 'bit.ly/2plain1': 7, 'bit.ly/4nTagX': 0, 'bit.ly/5ftp': 3 };

/** Every request the fake Bitly answered: `GET /v4/…?…` → status. */
const log: { path: string; status: number }[] = [];
const faults = { bitlinksPage2: 0, summaryDeal: 0 };
let base: string;
const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  const url = new URL(req.url!, 'http://127.0.0.1');
  const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
    log.push({ path: `${url.pathname}${url.search}`, status });
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  const error = (status: number, message: string, description: string, resource: string) => send(status, { message, description, resource, errors: [] });
  if (req.headers.authorization !== `Bearer ${TOKEN}`) return error(403, 'FORBIDDEN', 'You are currently forbidden to access this resource.', 'groups');
  let m: RegExpMatchArray | null;
  if (url.pathname === '/v4/groups') return send(200, { groups: GROUPS });
  if ((m = url.pathname.match(/^\/v4\/groups\/([^/]+)\/tags$/))) return TAGS[m[1]!] ? send(200, { tags: TAGS[m[1]!] }) : error(404, 'NOT_FOUND', 'group not found', 'groups');
  if ((m = url.pathname.match(/^\/v4\/groups\/([^/]+)\/bitlinks$/))) {
    const all = LINKS[m[1]!];
    if (!all) return error(404, 'NOT_FOUND', 'group not found', 'groups');
    const size = Math.min(100, Number(url.searchParams.get('size') ?? 50));
    const after = url.searchParams.get('search_after');
    const start = after ? Number(Buffer.from(after, 'base64url').toString()) : 0;
    // The second batch is refused once by the rate limit, without any header.
    if (start > 0 && faults.bitlinksPage2++ === 0) return error(429, 'RATE_LIMIT_EXCEEDED', 'You have exceeded your rate limit.', 'bitlinks');
    const links = all.slice(start, start + size);
    const more = start + size < all.length;
    const token = more ? Buffer.from(String(start + size)).toString('base64url') : '';
    const pagination: Record<string, unknown> = {
      next: more ? `${base}/v4/groups/${m[1]}/bitlinks?size=${size}&search_after=${token}` : '',
      size, page: Math.floor(start / size) + 1, total: all.length, search_after: token,
    };
    if (start > 0) pagination.prev = `${base}/v4/groups/${m[1]}/bitlinks?size=${size}`;
    return send(200, { links, pagination });
  }
  if ((m = url.pathname.match(/^\/v4\/bitlinks\/(.+)\/clicks\/summary$/))) {
    const id = decodeURIComponent(m[1]!);
    if (id === 'bit.ly/6help') return error(402, 'UPGRADE_REQUIRED', 'Your plan does not include click metrics for this link.', 'bitlinks');
    if (id === 'acme.link/9QwErTy' && faults.summaryDeal++ === 0) return send(429, { message: 'RATE_LIMIT_EXCEEDED', description: 'You have exceeded your rate limit.', resource: 'bitlinks', errors: [] }, { 'retry-after': '2' });
    if (!(id in TOTALS)) return error(404, 'NOT_FOUND', 'bitlink not found', 'bitlinks');
    return send(200, { unit_reference: '2024-06-01T00:00:00+0000', total_clicks: TOTALS[id], units: -1, unit: 'day' });
  }
  return error(404, 'NOT_FOUND', 'no such endpoint', 'api');
});

const targets: TestApp[] = [];
const scratch = mkdtempSync(join(tmpdir(), 'waymark-bitly-'));
before(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
after(async () => {
  for (const t of targets) await t.close();
  server.close();
  rmSync(scratch, { recursive: true, force: true });
});

async function newTarget(): Promise<TestApp> {
  const t = await createTestApp();
  targets.push(t);
  return t;
}

async function importBitly(target: TestApp, extra: Partial<Parameters<typeof runBitlyImport>[0]> = {}, waits: number[] = []): Promise<ImportSummary> {
  const workspace = (await target.ctx.workspaces.findWorkspace(target.workspaceId))!;
  return runBitlyImport({ database: target.database, config: target.config, workspace, token: TOKEN, baseUrl: `${base}/v4`, pageSize: 2, sleep: async (ms) => void waits.push(ms), ...extra });
}

async function links(t: TestApp): Promise<Record<string, any>[]> {
  const res = await t.inject({ method: 'GET', url: '/links?showArchived=true&sortBy=createdAt&sortOrder=asc&pageSize=100' });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

describe('import bitly', () => {
  test('groups, branded domain, tags, custom back-halves, totals as counters, pagination with a 429 in the middle; a re-run copies nothing', async () => {
    const target = await newTarget();
    const short = target.config.shortDomain;
    log.length = 0;
    const waits: number[] = [];
    const summary = await importBitly(target, {}, waits);
    const lines = describeSummary(summary);

    assert.deepEqual(summary.domains, { created: 1, existing: 0, rejected: 0 });
    assert.deepEqual(summary.tags, { created: 4, existing: 0, rejected: 0 });
    assert.deepEqual(summary.links, { created: 8, existing: 0, rejected: 1 }, lines.join('\n'));
    assert.deepEqual(summary.moves, [{ from: 'bit.ly', to: short, links: 6 }]);
    assert.deepEqual(summary.reasons.map((r) => [r.kind, r.count]), [['link', 1]]);
    assert.match(summary.reasons[0]!.reason, /url/i);
    assert.ok(lines.includes("click totals: 167 clicks of 4 bitlinks set as their links' counters (Bitly gives totals, not clicks: analytics count from the first click here)"), lines.join('\n'));
    assert.ok(lines.some((l) => /^click totals not available for 1 bitlinks \(402 UPGRADE_REQUIRED: Your plan does not include click metrics for this link\.\): their counters start at 0$/.test(l)), lines.join('\n'));

    // Pagination: three batches of two for the first group, asked by search_after; the 429 was waited out and asked again.
    const batches = log.filter((l) => l.path.startsWith('/v4/groups/Bg1Marketing/bitlinks'));
    assert.deepEqual(batches.map((b) => [new URLSearchParams(b.path.split('?')[1]).get('search_after'), b.status]), [
      [null, 200], [Buffer.from('2').toString('base64url'), 429], [Buffer.from('2').toString('base64url'), 200], [Buffer.from('4').toString('base64url'), 200],
    ]);
    assert.ok(batches.every((b) => b.path.includes('archived=both') && b.path.includes('size=2')));
    assert.ok(waits.includes(500), `a 429 without headers waits a backoff: ${waits}`);
    assert.ok(waits.includes(2000), `a 429 with Retry-After waits it: ${waits}`);

    const got = await links(target);
    const byAddress = new Map(got.map((l) => [`${l.domain}/${l.key}`, l]));
    assert.deepEqual([...byAddress.keys()].sort(), [`${short}/2plain1`, `${short}/3xYzAbc`, `${short}/4nTagX`, `${short}/6help`, `${short}/help-center`, `${short}/spring-sale`, 'acme.link/9QwErTy', 'acme.link/deal'].sort());
    const spring = byAddress.get(`${short}/spring-sale`)!;
    assert.equal(spring.url, 'https://shop.example/spring?utm_source=bitly');
    assert.equal(spring.title, 'Spring sale');
    assert.deepEqual(spring.tags.map((t: { name: string }) => t.name).sort(), ['promo', 'spring']);
    assert.equal(spring.createdAt, '2023-03-01T10:00:00.000Z');
    assert.equal(spring.clicks, 120, 'the total is the counter of the first custom back-half');
    const hash = byAddress.get(`${short}/3xYzAbc`)!;
    assert.equal(hash.clicks, 0);
    assert.equal(hash.comments, 'Another address of bit.ly/spring-sale on Bitly');
    assert.equal(hash.url, spring.url);
    assert.equal(byAddress.get('acme.link/deal')!.clicks, 40);
    assert.equal(byAddress.get(`${short}/2plain1`)!.archived, true);
    assert.equal(byAddress.get(`${short}/2plain1`)!.clicks, 7);
    assert.deepEqual(byAddress.get(`${short}/4nTagX`)!.tags.map((t: { name: string }) => t.name), ['unlisted'], 'a tag the group list leaves out is created for its link');
    assert.equal(byAddress.get(`${short}/help-center`)!.clicks, 0);
    const domains = (await target.inject({ method: 'GET', url: '/domains' })).json() as { slug: string; verified: boolean }[];
    assert.deepEqual(domains.map((d) => [d.slug, d.verified]), [['acme.link', false]]);
    // No click was made up: analytics count from the first click here.
    assert.equal((await target.inject({ method: 'GET', url: '/analytics?event=clicks&interval=all' })).json().clicks, 0);
    const events = await target.database.db.selectFrom('events').select('id').where('workspace_id', '=', target.workspaceId).execute();
    assert.equal(events.length, 0);

    // The addresses answer here with the same keys.
    const app = await target.listen();
    const res = await hit(app, '/spring-sale', { host: short, headers: { 'user-agent': 'Mozilla/5.0 Chrome/126.0' } });
    assert.equal(res.status, 302);
    assert.equal(res.location, 'https://shop.example/spring?utm_source=bitly');

    log.length = 0;
    const again = await importBitly(target);
    assert.deepEqual(again.links, { created: 0, existing: 8, rejected: 1 });
    assert.deepEqual(again.tags, { created: 0, existing: 4, rejected: 0 });
    assert.deepEqual(again.domains, { created: 0, existing: 1, rejected: 0 });
    assert.ok(!log.some((l) => l.path.includes('/clicks/summary')), `a re-run asks no totals of copied links: ${log.map((l) => l.path).join('\n')}`);
    const after = await links(target);
    assert.deepEqual(after.map((l) => [l.domain, l.key, l.clicks]), got.map((l) => [l.domain, l.key, l.clicks]));
  });

  test('--group copies one group; --dry-run reads everything (totals too) and writes nothing', async () => {
    const target = await newTarget();
    log.length = 0;
    const summary = await importBitly(target, { group: 'Bg2Support', dryRun: true });
    assert.equal(summary.dryRun, true);
    assert.deepEqual(summary.links, { created: 2, existing: 0, rejected: 0 });
    assert.deepEqual(summary.tags, { created: 1, existing: 0, rejected: 0 });
    assert.deepEqual(summary.domains, { created: 0, existing: 0, rejected: 0 });
    assert.ok(log.some((l) => l.path.startsWith('/v4/bitlinks/bit.ly/6help/clicks/summary')));
    assert.ok(!log.some((l) => l.path.includes('Bg1Marketing')), 'the other group was not read');
    assert.deepEqual(await links(target), []);
    assert.deepEqual((await target.inject({ method: 'GET', url: '/tags' })).json(), []);

    await assert.rejects(importBitly(target, { group: 'BgNope' }), /--group BgNope: the token sees no such group; it sees Bg1Marketing \(Marketing\), Bg2Support \(Support\)/);
  });

  test('npx waymark import bitly: --domain-map onto a domain of the workspace, --report; a bad token answers Bitly\'s error', async () => {
    const target = await newTarget();
    assert.equal((await target.inject({ method: 'POST', url: '/domains', payload: { slug: 'go.acme.test' } })).statusCode, 201);
    const url = databaseUrlOf(target.database);
    const env = { DATABASE_URL: url, LOG_LEVEL: 'silent', PORT: String(target.config.port), BASE_URL: target.config.baseUrl, WAYMARK_IMPORT_TOKEN: TOKEN };
    const report = join(scratch, 'bitly-rejected.csv');
    const out: string[] = [];
    const write = process.stderr.write;
    let err = '';
    process.stderr.write = ((chunk: string) => ((err += String(chunk)), true)) as typeof process.stderr.write;
    try {
      const code = await runCli(['import', 'bitly', '--from', `${base}/v4`, '--workspace', target.workspaceId, '--group', 'Bg2Support', '--domain-map', 'bit.ly=go.acme.test', '--report', report], (l) => out.push(l), env);
      assert.equal(code, 0, out.join('\n') + err);
      assert.ok(out.includes('links: 2 copied, 0 already there, 0 rejected'), out.join('\n'));
      assert.ok(out.includes('links moved domain: 2 from bit.ly to go.acme.test (same keys: their short links change)'), out.join('\n'));
      assert.ok(out.includes('Nothing was rejected.'), out.join('\n'));
      assert.ok(err.includes('import: groups: Support (Bg2Support)'), err);
      assert.deepEqual(parse(readFileSync(report, 'utf8')), [['kind', 'sourceId', 'domainKey', 'reason']]);
      assert.deepEqual((await links(target)).map((l) => `${l.domain}/${l.key}`).sort(), ['go.acme.test/6help', 'go.acme.test/help-center']);

      const failed = await runCli(['import', 'bitly', '--from', `${base}/v4`, '--token', 'wrong', '--workspace', target.workspaceId], (l) => out.push(l), env);
      assert.equal(failed, 1);
      assert.match(err, /waymark: GET \/v4\/groups answered 403: FORBIDDEN: You are currently forbidden to access this resource\./);
      // Another base than Bitly's is taken (a proxy, this test's server), but only http(s).
      const bad = await runCli(['import', 'bitly', '--from', 'file:///etc', '--workspace', target.workspaceId], () => {}, env);
      assert.equal(bad, 1);
      assert.match(err, /waymark: --from must use http or https, not file:/);
    } finally {
      process.stderr.write = write;
    }
  });
});

test('Bitly pagination: search_after first, else the query of next; addresses from ids and custom back-half URLs', () => {
  assert.deepEqual(nextParams({ search_after: 'abc', next: 'https://api-ssl.bitly.com/v4/groups/G/bitlinks?page=2' }), { search_after: 'abc' });
  assert.deepEqual(nextParams({ search_after: '', next: 'https://api-ssl.bitly.com/v4/groups/G/bitlinks?page=2&size=50' }), { page: '2' });
  assert.equal(nextParams({ search_after: '', next: '' }), undefined);
  assert.equal(nextParams(undefined), undefined);
  assert.deepEqual(addressOf('bit.ly/3xYz'), { domain: 'bit.ly', key: '3xYz' });
  assert.deepEqual(addressOf('https://Acme.link/Spring-Sale'), { domain: 'acme.link', key: 'Spring-Sale' });
  assert.equal(addressOf('https://bit.ly/'), undefined);
  assert.equal(addressOf('https://bit.ly/a/b'), undefined);
  assert.equal(addressOf('https://bit.ly/%zz'), undefined);
});
