/**
 * Imports judge every row before writing anything (issue 26, class 2): a rejected row creates no
 * tag and no domain, whatever it names; a dry run answers exactly what the real run then does,
 * row by row, for a mixed file (another workspace's domain with and without the key, duplicate
 * keys, new tags and domains, invalid URLs, plan limits); and another workspace's domain is
 * answered the same way whether or not the key exists there, so keys cannot be enumerated.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp, type TestWorkspace } from '../test-support/harness.js';
import { addDomain, addTag } from '../links/test-fixtures.js';

interface Item {
  line: number;
  status: string;
  domain?: string;
  key?: string;
  error?: string;
  code?: string;
}
interface Report {
  counts: { rows: number; created: number; skipped: number; rejected: number };
  tagsCreated: string[];
  domainsCreated: string[];
  items: Item[];
}

async function importCsv(t: TestApp, ws: TestWorkspace, csv: string, dryRun: boolean): Promise<Report> {
  const res = await t.inject({ method: 'POST', url: `/links/import${dryRun ? '?dryRun=true' : ''}`, payload: csv, headers: { ...ws.headers, 'content-type': 'text/csv' } });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as Report;
}

const names = async (t: TestApp, ws: TestWorkspace, path: '/tags' | '/domains') =>
  ((await t.inject({ method: 'GET', url: path, headers: ws.headers })).json() as { name?: string; slug?: string }[]).map((x) => x.name ?? x.slug).sort();

/** What a row's answer says, without what only a real run has (random keys). */
const verdict = (i: Item) => ({ line: i.line, status: i.status, code: i.code, error: i.error, domain: i.domain });

describe('imports judge before they write', () => {
  let t: TestApp;
  let mine: TestWorkspace;
  let theirs: TestWorkspace;
  before(async () => {
    t = await createTestApp();
    mine = await t.addWorkspace();
    theirs = await t.addWorkspace();
    await addDomain(t, 'theirs.example.com', { workspaceId: theirs.workspaceId });
    await addDomain(t, 'mine.example.com', { workspaceId: mine.workspaceId });
    const taken = await t.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/t', domain: 'theirs.example.com', key: 'exists' }, headers: theirs.headers });
    assert.equal(taken.statusCode, 200, taken.body);
    const shared = await t.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/s', key: 'shared-default' }, headers: theirs.headers });
    assert.equal(shared.statusCode, 200, shared.body);
    const own = await t.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/o', domain: 'mine.example.com', key: 'already' }, headers: mine.headers });
    assert.equal(own.statusCode, 200, own.body);
  });
  after(() => t.close());

  test('a rejected row naming 5,000 new tags and a new domain creates nothing', async () => {
    const ws = await t.addWorkspace();
    const tags = Array.from({ length: 5000 }, (_, i) => `bulk-${i}`).join(',');
    for (const url of ['ftp://example.com/not-web', '']) {
      const csv = `url,key,domain,tags\n${url},k1,new-domain.example.com,"${tags}"\n`;
      for (const dryRun of [true, false]) {
        const r = await importCsv(t, ws, csv, dryRun);
        assert.equal(r.items[0]!.status, 'rejected', JSON.stringify(r.items[0]));
        assert.deepEqual([r.tagsCreated, r.domainsCreated], [[], []]);
      }
    }
    // Rejected by the domain rule (another workspace's domain) rather than the row's own fields.
    const foreign = await importCsv(t, ws, `url,key,domain,tags\nhttps://example.com/x,k2,theirs.example.com,"${tags}"\n`, false);
    assert.equal(foreign.items[0]!.status, 'rejected');
    assert.deepEqual(await names(t, ws, '/tags'), []);
    assert.deepEqual(await names(t, ws, '/domains'), []);
  });

  test('dry run and real run answer the same for every row of a mixed file', async () => {
    const csv = [
      'url,key,domain,tags', // 1
      'https://example.com/a,a1,mine.example.com,Fresh', // 2: created, new tag
      'https://example.com/b,exists,theirs.example.com,', // 3: another workspace's domain, key taken there
      'https://example.com/c,free-key,theirs.example.com,', // 4: the same domain, key free there
      'https://example.com/d,a1,mine.example.com,', // 5: same key as line 2: skipped
      'https://example.com/e,already,mine.example.com,', // 6: the workspace already has it: skipped
      'https://example.com/f,shared-default,,', // 7: the default domain, key taken by another workspace
      'ftp://example.com/g,g1,mine.example.com,Never', // 8: invalid URL naming a new tag
      ',h1,mine.example.com,', // 9: no destination
      'https://example.com/i,i1,brand-new.example.com,"Fresh,Other"', // 10: a new domain and tags
      'https://example.com/j,,mine.example.com,', // 11: a random key
      'not a url,k1,,', // 12
      'https://example.com/l,l1,Bad Domain!,', // 13: a domain the rules refuse
    ].join('\n');
    const dry = await importCsv(t, mine, csv, true);
    const tagsBefore = await names(t, mine, '/tags');
    const domainsBefore = await names(t, mine, '/domains');
    assert.deepEqual(tagsBefore, [], 'the dry run wrote nothing');
    assert.deepEqual(domainsBefore, ['mine.example.com']);
    const real = await importCsv(t, mine, csv, false);

    assert.deepEqual(dry.items.map(verdict), real.items.map(verdict));
    assert.deepEqual(dry.counts, real.counts);
    assert.deepEqual([dry.tagsCreated, dry.domainsCreated], [real.tagsCreated, real.domainsCreated]);
    assert.deepEqual(real.tagsCreated, ['Fresh', 'Other'], 'the invalid row\'s tag "Never" is not created');
    assert.deepEqual(real.domainsCreated, ['brand-new.example.com']);
    assert.deepEqual(await names(t, mine, '/tags'), ['Fresh', 'Other']);
    assert.deepEqual(await names(t, mine, '/domains'), ['brand-new.example.com', 'mine.example.com']);

    const at = (line: number) => real.items.find((i) => i.line === line)!;
    assert.deepEqual([2, 10, 11].map((l) => at(l).status), ['created', 'created', 'created']);
    assert.deepEqual([5, 6].map((l) => at(l).status), ['skipped', 'skipped']);
    // Another workspace's domain: the answer of POST /links, the same whether or not the key exists there.
    const api = await t.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/b', domain: 'theirs.example.com', key: 'other' }, headers: mine.headers });
    assert.equal(api.statusCode, 403);
    for (const line of [3, 4]) assert.deepEqual([at(line).status, at(line).code, at(line).error], ['rejected', 'forbidden', api.json().error.message], `line ${line}`);
    assert.equal(at(7).code, 'conflict', 'a key of the shared default domain is taken for everyone');
    for (const line of [8, 9, 12, 13]) assert.equal(at(line).status, 'rejected', `line ${line}`);
    assert.equal(((await t.inject({ method: 'GET', url: '/links/info?domain=theirs.example.com&key=free-key', headers: theirs.headers })).statusCode), 404);
  });

  test("the plan's limits count only accepted rows, alike in both modes", async () => {
    const small = await t.addWorkspace('free');
    for (const name of ['t1', 't2', 't3', 't4']) await addTag(t, name, { workspaceId: small.workspaceId });
    for (const slug of ['s1.example.com', 's2.example.com']) await addDomain(t, slug, { workspaceId: small.workspaceId });
    const csv = [
      'url,key,domain,tags',
      'ftp://example.com/a,a,other1.example.com,"x,y"', // rejected by its URL: takes no tag and no domain of the quota
      'https://example.com/b,b,,z', // the fifth tag: created
      'https://example.com/c,c,,w', // a sixth: over the limit
      'https://example.com/d,d,other2.example.com,', // the third domain: created
      'https://example.com/e,e,other3.example.com,', // a fourth: over the limit
      'https://example.com/f,f,other2.example.com,z', // both already taken by earlier rows: created
    ].join('\n');
    const dry = await importCsv(t, small, csv, true);
    const real = await importCsv(t, small, csv, false);
    assert.deepEqual(dry.items.map(verdict), real.items.map(verdict));
    assert.deepEqual(real.items.map((i) => i.status), ['rejected', 'created', 'rejected', 'created', 'rejected', 'created']);
    assert.match(real.items[2]!.error!, /limit of 5 tags/);
    assert.match(real.items[4]!.error!, /limit of 3 domains/);
    assert.deepEqual([real.tagsCreated, real.domainsCreated], [['z'], ['other2.example.com']]);
    assert.deepEqual([dry.tagsCreated, dry.domainsCreated], [['z'], ['other2.example.com']]);
  });
});
