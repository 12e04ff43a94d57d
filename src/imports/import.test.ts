/**
 * `POST /links/import`: each recognised layout's fixture lands in the right link fields, re-runs
 * create nothing twice, rows are rejected with their line and the API's message, a dry run writes
 * nothing, tags and domains are created by the rules, and nothing crosses workspaces.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { addDomain, addTag, linkCounters } from '../links/test-fixtures.js';

const fixture = (name: string) => readFileSync(join(import.meta.dirname, 'fixtures', name), 'utf8');

interface Report {
  layout: string;
  dryRun: boolean;
  counts: { rows: number; created: number; skipped: number; rejected: number };
  tagsCreated: string[];
  domainsCreated: string[];
  items: { line: number; status: string; id?: string | null; domain?: string; key?: string; error?: string; code?: string }[];
  truncated: boolean;
}

interface Link {
  id: string;
  domain: string;
  key: string;
  url: string;
  title: string | null;
  description: string | null;
  tags: { name: string }[] | null;
  createdAt: string;
}

async function importCsv(t: TestApp, csv: string, query = '', headers: Record<string, string> = {}): Promise<Report> {
  const res = await t.inject({ method: 'POST', url: `/links/import${query}`, payload: csv, headers: { 'content-type': 'text/csv', ...headers } });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as Report;
}

async function links(t: TestApp, headers?: Record<string, string>): Promise<Link[]> {
  const res = await t.inject({ method: 'GET', url: '/links?pageSize=100&sortOrder=asc', headers });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as Link[];
}

const byKey = (all: Link[], key: string) => {
  const l = all.find((x) => x.key === key);
  assert.ok(l, `link ${key} imported`);
  return l;
};
const tagNames = (l: Link) => (l.tags ?? []).map((t) => t.name).sort();

describe('CSV import: recognised layouts', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  test('Bitly: the short link gives domain and key, long_url the destination, created the date', async () => {
    const r = await importCsv(t, fixture('bitly.csv'));
    assert.equal(r.layout, 'bitly');
    assert.deepEqual(r.counts, { rows: 2, created: 2, skipped: 0, rejected: 0 });
    const l = byKey(await links(t), 'spring24');
    assert.equal(l.domain, 'acme.link');
    assert.equal(l.url, 'https://shop.example.com/spring');
    assert.equal(l.title, 'Spring sale');
    assert.deepEqual(tagNames(l), ['promo', 'seasonal']);
    assert.equal(l.createdAt, '2024-01-05T10:00:00.000Z');
  });

  test("Dub: the API's own field names", async () => {
    const r = await importCsv(t, fixture('dub.csv'));
    assert.equal(r.layout, 'dub');
    assert.equal(r.counts.created, 2);
    const l = byKey(await links(t), 'launch');
    assert.equal(l.domain, 'dub.example.com');
    assert.equal(l.url, 'https://example.com/launch?ref=dub');
    assert.equal(l.description, 'The launch page');
    assert.deepEqual(tagNames(l), ['launch', 'news']);
    assert.equal(l.createdAt, '2024-02-01T09:15:00.000Z');
    assert.equal(byKey(await links(t), 'pricing').title, null);
  });

  test('Shlink: shortUrl, longUrl, tags separated by pipes, dates with an offset', async () => {
    const r = await importCsv(t, fixture('shlink.csv'));
    assert.equal(r.layout, 'shlink');
    const l = byKey(await links(t), 'abc12');
    assert.equal(l.domain, 's.example.org');
    assert.equal(l.url, 'https://blog.example.org/post-1');
    assert.deepEqual(tagNames(l), ['archive', 'blog']);
    assert.equal(l.createdAt, '2023-11-20T07:00:00.000Z');
  });

  test("YOURLS: keyword and url on the workspace's default domain", async () => {
    const r = await importCsv(t, fixture('yourls.csv'));
    assert.equal(r.layout, 'yourls');
    assert.equal(r.counts.created, 2, JSON.stringify(r.items));
    const l = byKey(await links(t), 'ozh');
    assert.equal(l.domain, t.config.shortDomain);
    assert.equal(l.title, "Ozh's page");
    assert.equal(l.createdAt, '2022-05-17T14:03:21.000Z');
  });

  test('Kutt: address is the key, target the destination', async () => {
    const r = await importCsv(t, fixture('kutt.csv'));
    assert.equal(r.layout, 'kutt');
    const l = byKey(await links(t), 'kt1');
    assert.equal(l.domain, 'k.example.io');
    assert.equal(l.url, 'https://example.com/from-kutt');
    assert.equal(l.description, 'Imported from Kutt');
  });

  test('a generic header: destination, short code, domain, tags, Unix time', async () => {
    const r = await importCsv(t, fixture('generic.csv'));
    assert.equal(r.layout, 'generic');
    const l = byKey(await links(t), 'gen-a');
    assert.equal(l.domain, 'gen.example.com');
    assert.equal(l.url, 'https://example.com/generic-a');
    assert.deepEqual(tagNames(l), ['alpha', 'beta']);
    assert.equal(l.createdAt, new Date(1_700_000_000_000).toISOString());
  });

  test('an explicit mapping for headers no layout knows', async () => {
    const csv = 'Where to,Back half,Label\nhttps://example.com/mapped,mapped-1,Mapped\n';
    const r = await importCsv(t, csv, `?map=${encodeURIComponent('url=Where to')}&map=${encodeURIComponent('key=Back half')}&map=title=Label`);
    assert.equal(r.counts.created, 1, JSON.stringify(r.items));
    assert.equal(byKey(await links(t), 'mapped-1').title, 'Mapped');
    const res = await t.inject({ method: 'POST', url: '/links/import', payload: csv, headers: { 'content-type': 'text/csv; charset=utf-8' } });
    assert.equal(res.statusCode, 422);
    assert.match(res.json().error.message, /no destination URL column/);
  });

  test('multipart upload with the file in the field "file"', async () => {
    const boundary = '----waymark-test-boundary';
    const csv = 'url,key\nhttps://example.com/multipart,multi-1\n';
    const body = [`--${boundary}`, 'Content-Disposition: form-data; name="note"', '', 'ignored', `--${boundary}`, 'Content-Disposition: form-data; name="file"; filename="links.csv"', 'Content-Type: text/csv', '', csv, `--${boundary}--`, ''].join('\r\n');
    const r = await importCsv(t, body, '', { 'content-type': `multipart/form-data; boundary=${boundary}` });
    assert.equal(r.counts.created, 1, JSON.stringify(r.items));
    assert.equal(byKey(await links(t), 'multi-1').url, 'https://example.com/multipart');
  });
});

describe('CSV import: re-runs, errors, dry run, tags, domains, workspaces', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
    await addDomain(t, 'own.example.com');
  });
  after(() => t.close());

  const csv = [
    'url,key,domain,tags', // line 1
    'https://example.com/a,a1,own.example.com,Known', // 2: created
    'ftp://example.com/b,b1,own.example.com,', // 3: rejected (scheme)
    'https://example.com/c,a1,own.example.com,', // 4: same domain and key as line 2: skipped
    ',c1,own.example.com,', // 5: rejected (no destination)
    'https://example.com/d,_root,,', // 6: rejected (root of the default domain)
    'https://example.com/e,e1,new.example.com,Fresh', // 7: created, with a new domain and a new tag
    'https://example.com/f,,own.example.com,', // 8: created with a random key
  ].join('\n');

  test('a dry run reports what would happen and writes nothing', async () => {
    await addTag(t, 'known');
    const before = await linkCounters(t);
    const r = await importCsv(t, csv, '?dryRun=true');
    assert.equal(r.dryRun, true);
    assert.deepEqual(r.counts, { rows: 7, created: 3, skipped: 1, rejected: 3 });
    assert.deepEqual(r.tagsCreated, ['Fresh']);
    assert.deepEqual(r.domainsCreated, ['new.example.com']);
    assert.deepEqual((await links(t)).length, 0);
    assert.deepEqual(await linkCounters(t), before);
    const tags = (await t.inject({ method: 'GET', url: '/tags' })).json() as { name: string }[];
    assert.deepEqual(tags.map((x) => x.name), ['known']);
    const domains = (await t.inject({ method: 'GET', url: '/domains' })).json() as { slug: string }[];
    assert.deepEqual(domains.map((d) => d.slug), ['own.example.com']);
  });

  test('the real run: per-row outcomes with line numbers and the messages POST /links gives', async () => {
    const r = await importCsv(t, csv);
    assert.deepEqual(r.counts, { rows: 7, created: 3, skipped: 1, rejected: 3 });
    const at = (line: number) => r.items.find((i) => i.line === line)!;
    assert.equal(at(2).status, 'created');
    assert.equal(at(4).status, 'skipped');
    assert.equal(at(4).id, null, 'a repeat inside the file names no link of its own');
    for (const [line, body] of [
      [3, { url: 'ftp://example.com/b', key: 'b1', domain: 'own.example.com' }],
      [5, { url: '', key: 'c1', domain: 'own.example.com' }],
      [6, { url: 'https://example.com/d', key: '_root' }],
    ] as const) {
      const api = await t.inject({ method: 'POST', url: '/links', payload: body });
      assert.equal(at(line).status, 'rejected');
      assert.equal(at(line).error, api.json().error.message, `line ${line}`);
      assert.equal(at(line).code, api.json().error.code, `line ${line}`);
    }
    assert.deepEqual(r.tagsCreated, ['Fresh']);
    assert.deepEqual(r.domainsCreated, ['new.example.com']);
    const domain = (await t.inject({ method: 'GET', url: '/domains/new.example.com' })).json() as { verified: boolean };
    assert.equal(domain.verified, false, 'domains an import adds are unverified');
    const all = await links(t);
    assert.equal(all.length, 3);
    assert.deepEqual(tagNames(byKey(all, 'e1')), ['Fresh']);
    assert.equal((await linkCounters(t)).totalLinks, 3);
  });

  test('re-running the same file creates nothing twice', async () => {
    const r = await importCsv(t, csv);
    assert.equal(r.counts.created, 0);
    assert.equal(r.counts.skipped, 4, 'the keyed rows (one twice) and the keyless one (same destination)');
    assert.equal(r.counts.rejected, 3);
    assert.equal((await links(t)).length, 3);
  });

  test("the plan's domain limit rejects rows of new domains with its message", async () => {
    const small = await t.addWorkspace('free');
    for (const slug of ['d1.example.com', 'd2.example.com', 'd3.example.com']) await addDomain(t, slug, { workspaceId: small.workspaceId });
    const res = await t.inject({
      method: 'POST',
      url: '/links/import',
      payload: 'url,key,domain\nhttps://example.com/x,x1,d4.example.com\nhttps://example.com/y,y1,d1.example.com\n',
      headers: { ...small.headers, 'content-type': 'text/csv' },
    });
    const r = res.json() as Report;
    assert.equal(r.items[0]!.status, 'rejected');
    const api = await t.inject({ method: 'POST', url: '/domains', payload: { slug: 'd4.example.com' }, headers: small.headers });
    assert.equal(r.items[0]!.error, api.json().error.message);
    assert.equal(r.items[1]!.status, 'created');
  });

  test("the plan's tag limit rejects rows naming a tag that cannot be created, with its message", async () => {
    const small = await t.addWorkspace('free');
    for (const name of ['t1', 't2', 't3', 't4', 't5']) await addTag(t, name, { workspaceId: small.workspaceId });
    const csv = 'url,key,tags\nhttps://example.com/t,tag-a,t6\nhttps://example.com/u,tag-b,t1\n';
    const dry = await importCsv(t, csv, '?dryRun=1', small.headers);
    const r = await importCsv(t, csv, '', small.headers);
    assert.deepEqual(dry.items.map((i) => [i.status, i.error]), r.items.map((i) => [i.status, i.error]), 'the dry run foresees the same');
    const api = await t.inject({ method: 'POST', url: '/tags', payload: { name: 't6' }, headers: small.headers });
    assert.equal(api.statusCode, 403);
    assert.deepEqual(r.items.map((i) => [i.status, i.error]), [['rejected', api.json().error.message], ['created', undefined]]);
    assert.deepEqual(r.tagsCreated, []);
  });

  test("another workspace's links are neither skipped nor visible: a taken key is rejected", async () => {
    const other = await t.addWorkspace();
    const res = await t.inject({
      method: 'POST',
      url: '/links/import',
      payload: `url,key\nhttps://example.com/mine,${'shared-key'}\n`,
      headers: { 'content-type': 'text/csv' },
    });
    assert.equal((res.json() as Report).counts.created, 1);
    const r = await importCsv(t, 'url,key\nhttps://example.com/theirs,shared-key\n', '', other.headers);
    assert.equal(r.items[0]!.status, 'rejected');
    assert.equal(r.items[0]!.code, 'conflict');
    assert.equal((await links(t, other.headers)).length, 0);
  });

  test('malformed CSV, a missing permission, and an empty file', async () => {
    const bad = await t.inject({ method: 'POST', url: '/links/import', payload: 'url,key\n"https://example.com/x,x\n', headers: { 'content-type': 'text/csv' } });
    assert.equal(bad.statusCode, 422);
    assert.match(bad.json().error.message, /Malformed CSV/);
    const readOnly = await t.addWorkspace('enterprise', ['links.read']);
    const denied = await t.inject({ method: 'POST', url: '/links/import', payload: 'url\nhttps://example.com\n', headers: { ...readOnly.headers, 'content-type': 'text/csv' } });
    assert.equal(denied.statusCode, 403);
    const empty = await t.inject({ method: 'POST', url: '/links/import', payload: '', headers: { 'content-type': 'text/csv' } });
    assert.equal(empty.statusCode, 422);
    const json = await t.inject({ method: 'POST', url: '/links/import', payload: { url: 'https://example.com' } });
    assert.equal(json.statusCode, 400, 'a JSON body is not a file');
  });
});
