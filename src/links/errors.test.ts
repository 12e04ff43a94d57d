/**
 * Every error case of the links API over raw HTTP: status, code and message.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { newId } from '../ids.js';
import { addDomain, addTag, linkCounters } from './test-fixtures.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const SHORT = 'wm.localhost:3999';

function expectError(res: LightMyRequestResponse, status: number, code: string, message?: RegExp | string): void {
  assert.equal(res.statusCode, status, res.body);
  const { error } = res.json();
  assert.equal(error.code, code);
  if (typeof message === 'string') assert.equal(error.message, message);
  else if (message) assert.match(error.message, message);
  assert.match(error.doc_url, /\/api-reference\/errors#/);
}

const create = (payload: unknown, headers?: Record<string, string>) => t.inject({ method: 'POST', url: '/links', payload: payload as object, headers });

test('duplicate key: 409 without regard to case, on the same domain only', async () => {
  assert.equal((await create({ url: 'https://a.com', key: 'Promo' })).statusCode, 200);
  expectError(await create({ url: 'https://b.com', key: 'promo' }), 409, 'conflict', 'Duplicate key: This short link already exists.');
  expectError(await create({ url: 'https://b.com', key: '/PROMO/' }), 409, 'conflict');
  // Another workspace cannot take it on the shared domain either.
  const other = await t.addWorkspace();
  expectError(await create({ url: 'https://b.com', key: 'PrOmO' }, other.headers), 409, 'conflict');
  // On another domain the key is free.
  await addDomain(t, 'dup.example.com');
  assert.equal((await create({ url: 'https://b.com', key: 'promo', domain: 'dup.example.com' })).statusCode, 200);
});

test('duplicate key by update: 409; renaming to a free key works', async () => {
  const a = (await create({ url: 'https://a.com', key: 'upd-a' })).json();
  await create({ url: 'https://a.com', key: 'upd-b' });
  expectError(await t.inject({ method: 'PATCH', url: `/links/${a.id}`, payload: { key: 'UPD-B' } }), 409, 'conflict');
  const ok = await t.inject({ method: 'PUT', url: `/links/${a.id}`, payload: { key: 'upd-c' } });
  assert.equal(ok.statusCode, 200);
  assert.equal(ok.json().key, 'upd-c');
});

test('duplicate keys inside one bulk request: the later item fails with conflict, nothing of it is stored', async () => {
  const before = await linkCounters(t);
  const res = await t.inject({
    method: 'POST',
    url: '/links/bulk',
    payload: [
      { url: 'https://a.com', key: 'same-in-bulk' },
      { url: 'https://b.com', key: 'SAME-in-bulk' },
      { url: 'https://c.com', externalId: 'x-1' },
      { url: 'https://d.com', externalId: 'x-1' },
    ],
  });
  assert.equal(res.statusCode, 200);
  const body = res.json();
  assert.deepEqual(body.map((x: { key?: string; code?: string }) => x.key ?? x.code), ['same-in-bulk', body[1].key, 'conflict', 'conflict']);
  assert.deepEqual(body[2].link, { url: 'https://b.com', key: 'SAME-in-bulk' });
  assert.deepEqual(body[3].link, { url: 'https://d.com', externalId: 'x-1' });
  const after = await linkCounters(t);
  assert.equal(after.totalLinks - before.totalLinks, 2);
  assert.equal(after.linksUsage - before.linksUsage, 2);
});

test('missing link: 404 for get, update, delete and info', async () => {
  const id = newId('link');
  expectError(await t.inject({ method: 'GET', url: `/links/${id}` }), 404, 'not_found', 'Link not found.');
  expectError(await t.inject({ method: 'PATCH', url: `/links/${id}`, payload: { title: 'x' } }), 404, 'not_found', 'Link not found.');
  expectError(await t.inject({ method: 'DELETE', url: `/links/${id}` }), 404, 'not_found', 'Link not found.');
  expectError(await t.inject({ method: 'GET', url: `/links/info?linkId=${id}` }), 404, 'not_found');
  expectError(await t.inject({ method: 'GET', url: '/links/info?externalId=ext_nope' }), 404, 'not_found');
  expectError(await t.inject({ method: 'GET', url: `/links/info?domain=${SHORT}&key=nope` }), 404, 'not_found');
  expectError(await t.inject({ method: 'GET', url: '/links/ext_nope' }), 404, 'not_found');
});

test('a link of another workspace answers exactly like a missing one', async () => {
  const mine = (await create({ url: 'https://mine.com', key: 'mine-only', externalId: 'mine-ext' })).json();
  const other = await t.addWorkspace();
  const h = other.headers;
  const missing = await t.inject({ method: 'GET', url: `/links/${newId('link')}`, headers: h });
  for (const res of [
    await t.inject({ method: 'GET', url: `/links/${mine.id}`, headers: h }),
    await t.inject({ method: 'GET', url: '/links/ext_mine-ext', headers: h }),
    await t.inject({ method: 'GET', url: `/links/info?linkId=${mine.id}`, headers: h }),
    await t.inject({ method: 'GET', url: `/links/info?domain=${SHORT}&key=mine-only`, headers: h }),
    await t.inject({ method: 'GET', url: '/links/info?externalId=ext_mine-ext', headers: h }),
    await t.inject({ method: 'PATCH', url: `/links/${mine.id}`, headers: h, payload: { url: 'https://evil.com' } }),
    await t.inject({ method: 'DELETE', url: `/links/${mine.id}`, headers: h }),
  ]) {
    expectError(res, 404, 'not_found', 'Link not found.');
    assert.deepEqual(Object.keys(res.json().error), Object.keys(missing.json().error));
  }
  // Bulk operations skip or report it; the link is untouched.
  const bulkDel = await t.inject({ method: 'DELETE', url: `/links/bulk?linkIds=${mine.id}`, headers: h });
  assert.deepEqual(bulkDel.json(), { deletedCount: 0 });
  const bulkUpd = await t.inject({ method: 'PATCH', url: '/links/bulk', headers: h, payload: { linkIds: [mine.id], data: { url: 'https://evil.com' } } });
  assert.deepEqual(bulkUpd.json(), [{ link: { id: mine.id }, error: 'Link not found.', code: 'not_found' }]);
  assert.equal((await t.inject({ method: 'GET', url: `/links/${mine.id}` })).json().url, 'https://mine.com');
  assert.deepEqual((await t.inject({ method: 'GET', url: '/links', headers: h })).json(), []);
  assert.equal((await t.inject({ method: 'GET', url: '/links/count', headers: h })).json(), 0);
});

test('bad URL schemes are 422 for the destination and every other URL field', async () => {
  const bad = ['javascript:alert(1)', 'data:text/html,<b>x</b>', 'mailto:a@b.com', 'ftp://files.example.com', 'file:///etc/passwd'];
  for (const url of bad) expectError(await create({ url }), 422, 'unprocessable_entity', /^custom: url: Invalid destination URL/);
  const base = { url: 'https://ok.com' };
  expectError(await create({ ...base, expiredUrl: 'javascript:alert(1)' }), 422, 'unprocessable_entity', /^custom: expiredUrl: /);
  expectError(await create({ ...base, ios: 'javascript:alert(1)' }), 422, 'unprocessable_entity', /^custom: ios: /);
  expectError(await create({ ...base, android: 'data:text/plain,x' }), 422, 'unprocessable_entity', /^custom: android: /);
  expectError(await create({ ...base, geo: { US: 'javascript:alert(1)' } }), 422, 'unprocessable_entity', /^custom: geo\.US: /);
  const variants = [{ url: 'https://a.com', percentage: 50 }, { url: 'javascript:alert(1)', percentage: 50 }];
  expectError(await create({ ...base, trackConversion: true, testVariants: variants }), 422, 'unprocessable_entity', /^custom: testVariants\[1\]\.url: /);
  const link = (await create(base)).json();
  expectError(await t.inject({ method: 'PATCH', url: `/links/${link.id}`, payload: { url: 'javascript:alert(1)' } }), 422, 'unprocessable_entity');
  expectError(await t.inject({ method: 'PUT', url: '/links/upsert', payload: { url: 'javascript:alert(1)' } }), 422, 'unprocessable_entity');
  expectError(await create({ url: '' }), 400, 'bad_request', 'Missing destination URL');
});

test('oversize and undersize fields from the Limits table are 422 naming the field', async () => {
  const base = { url: 'https://ok.com' };
  const cases: [object, RegExp][] = [
    [{ url: `https://a.com/${'x'.repeat(32_000)}` }, /^too_big: url: /],
    [{ ...base, expiredUrl: `https://a.com/${'x'.repeat(32_000)}` }, /^too_big: expiredUrl: /],
    [{ ...base, key: 'k'.repeat(191) }, /^too_big: key: /],
    [{ ...base, domain: `${'d'.repeat(187)}.com` }, /^too_big: domain: /],
    [{ ...base, externalId: 'e'.repeat(256) }, /^too_big: externalId: /],
    [{ ...base, tenantId: 't'.repeat(256) }, /^too_big: tenantId: /],
    [{ ...base, utm_source: 'u'.repeat(191) }, /^too_big: utm_source: /],
    [{ ...base, utm_content: 'u'.repeat(191) }, /^too_big: utm_content: /],
    [{ ...base, keyLength: 2 }, /^too_small: keyLength: /],
    [{ ...base, keyLength: 191 }, /^too_big: keyLength: /],
    [{ ...base, trackConversion: true, testVariants: [{ url: 'https://a.com', percentage: 50 }] }, /^too_small: testVariants: /],
    [{ ...base, trackConversion: true, testVariants: Array.from({ length: 5 }, (_, i) => ({ url: `https://a.com/${i}`, percentage: 20 })) }, /^too_big: testVariants: /],
    [{ ...base, trackConversion: true, testVariants: [{ url: 'https://a.com', percentage: 9 }, { url: 'https://b.com', percentage: 91 }] }, /^too_small: testVariants\[0\]\.percentage: /],
  ];
  for (const [payload, message] of cases) expectError(await create(payload), 422, 'unprocessable_entity', message);
  // At the limits, accepted.
  const atLimit = await create({ url: 'https://ok.com', key: 'k'.repeat(190), externalId: 'e'.repeat(255), tenantId: 't'.repeat(255), utm_term: 'u'.repeat(190) });
  assert.equal(atLimit.statusCode, 200, atLimit.body);
  assert.equal(atLimit.json().utm_term, 'u'.repeat(190));
  assert.equal((await create({ url: 'https://ok.com', keyLength: 190 })).json().key.length, 190);
  assert.equal((await create({ url: 'https://ok.com', keyLength: 3 })).json().key.length, 3);
});

test('rules on other fields: A/B tests need conversion tracking, dates are ISO-8601, tags and folders must exist', async () => {
  const variants = [{ url: 'https://a.com', percentage: 50 }, { url: 'https://b.com', percentage: 50 }];
  expectError(await create({ url: 'https://a.com', testVariants: variants, trackConversion: false }), 422, 'unprocessable_entity', 'Conversion tracking must be enabled to use A/B testing.');
  assert.equal((await create({ url: 'https://a.com', testVariants: variants, trackConversion: true })).statusCode, 200);
  expectError(await create({ url: 'https://a.com', expiresAt: 'next friday' }), 422, 'unprocessable_entity', /^custom: expiresAt: Invalid expiration date/);
  expectError(await create({ url: 'https://a.com', testStartedAt: '31/12/2030' }), 422, 'unprocessable_entity', /testStartedAt/);
  expectError(await create({ url: 'https://a.com', tagIds: ['tag_unknown1', 'tag_unknown2'] }), 422, 'unprocessable_entity', 'Invalid tagIds detected: tag_unknown1, tag_unknown2');
  expectError(await create({ url: 'https://a.com', tagNames: 'Nope' }), 422, 'unprocessable_entity', 'Invalid tagNames detected: Nope');
  const other = await t.addWorkspace();
  const foreignTag = await addTag(t, 'Theirs', { workspaceId: other.workspaceId });
  expectError(await create({ url: 'https://a.com', tagIds: foreignTag }), 422, 'unprocessable_entity', `Invalid tagIds detected: ${foreignTag}`);
  expectError(await create({ url: 'https://a.com', folderId: 'fold_missing' }), 404, 'not_found', 'Folder not found.');
  await create({ url: 'https://a.com', externalId: 'unique-ext' });
  expectError(await create({ url: 'https://b.com', externalId: 'ext_unique-ext' }), 409, 'conflict', 'A link with this externalId already exists in this workspace.');
  // The same external id in another workspace is fine.
  assert.equal((await create({ url: 'https://b.com', externalId: 'unique-ext' }, other.headers)).statusCode, 200);
});

test('domains: someone else\'s or unknown domain is 403, a malformed one 422', async () => {
  const other = await t.addWorkspace();
  await addDomain(t, 'theirs.example.com', { workspaceId: other.workspaceId });
  expectError(await create({ url: 'https://a.com', domain: 'theirs.example.com' }), 403, 'forbidden', 'Domain does not belong to workspace.');
  expectError(await create({ url: 'https://a.com', domain: 'nobody.example.com' }), 403, 'forbidden', 'Domain does not belong to workspace.');
  expectError(await create({ url: 'https://a.com', domain: 'https://x.com/path' }), 422, 'unprocessable_entity', /Invalid domain/);
  const link = (await create({ url: 'https://a.com' })).json();
  expectError(await t.inject({ method: 'PATCH', url: `/links/${link.id}`, payload: { domain: 'theirs.example.com' } }), 403, 'forbidden');
});

test('keys: reserved file names (403), reserved words on the shared domain (409), invalid keys (422)', async () => {
  expectError(await create({ url: 'https://a.com', key: 'favicon.ico' }), 403, 'forbidden', 'favicon.ico is a reserved path and cannot be used as a short link.');
  expectError(await create({ url: 'https://a.com', key: 'Robots.txt' }), 403, 'forbidden');
  expectError(await create({ url: 'https://a.com', key: 'API' }), 409, 'conflict', /reserved on the default short domain/);
  expectError(await create({ url: 'https://a.com', key: 'docs' }), 409, 'conflict');
  await addDomain(t, 'brand.example.com');
  assert.equal((await create({ url: 'https://a.com', key: 'docs', domain: 'brand.example.com' })).statusCode, 200);
  for (const key of ['has space', '_private', 'x.php', '.well-known/security.txt', 'a?b', 'a#b']) {
    expectError(await create({ url: 'https://a.com', key }), 422, 'unprocessable_entity', /^Invalid key/);
  }
  expectError(await create({ url: 'https://a.com', key: '_root' }), 403, 'forbidden');
  expectError(await create({ url: 'https://a.com', prefix: 'bad prefix' }), 422, 'unprocessable_entity', /Invalid prefix/);
});

test('root links of domains cannot be deleted or renamed through the links API', async () => {
  await addDomain(t, 'root.example.com');
  const root = await create({ url: 'https://home.example.com', domain: 'root.example.com', key: '_root' });
  assert.equal(root.statusCode, 200, root.body);
  assert.equal(root.json().shortLink, 'http://root.example.com');
  expectError(await t.inject({ method: 'DELETE', url: `/links/${root.json().id}` }), 403, 'forbidden', /can't delete a custom domain link/);
  expectError(await t.inject({ method: 'PATCH', url: `/links/${root.json().id}`, payload: { key: 'other' } }), 422, 'unprocessable_entity', /root link/);
  const info = await t.inject({ method: 'GET', url: '/links/info?domain=root.example.com' });
  assert.equal(info.json().id, root.json().id);
  assert.deepEqual((await t.inject({ method: 'DELETE', url: `/links/bulk?linkIds=${root.json().id}` })).json(), { deletedCount: 0 });
  // A root link may have no destination (the domain's placeholder).
  const upd = await t.inject({ method: 'PATCH', url: `/links/${root.json().id}`, payload: { url: '' } });
  assert.equal(upd.json().url, '');
});

test('quota: a free workspace creates 25 links, then 403 naming the limit; bulk cannot pass it', async () => {
  const free = await createTestApp({ plan: 'free' });
  try {
    const bulk = await free.inject({ method: 'POST', url: '/links/bulk', payload: Array.from({ length: 20 }, (_, i) => ({ url: `https://a.com/${i}` })) });
    assert.equal(bulk.json().length, 20);
    const tooMany = await free.inject({ method: 'POST', url: '/links/bulk', payload: Array.from({ length: 6 }, (_, i) => ({ url: `https://b.com/${i}` })) });
    expectError(tooMany, 403, 'forbidden', "You've reached your monthly limit of 25 links on the Free plan. Please upgrade for higher limits.");
    assert.deepEqual(await linkCounters(free), { linksUsage: 20, totalLinks: 20 });
    for (let i = 0; i < 5; i++) assert.equal((await free.inject({ method: 'POST', url: '/links', payload: { url: `https://c.com/${i}` } })).statusCode, 200);
    expectError(await free.inject({ method: 'POST', url: '/links', payload: { url: 'https://d.com' } }), 403, 'forbidden', /monthly limit of 25 links on the Free plan/);
    expectError(await free.inject({ method: 'PUT', url: '/links/upsert', payload: { url: 'https://new.example.com' } }), 403, 'forbidden');
    expectError(await free.inject({ method: 'POST', url: '/links/bulk', payload: [{ url: 'https://e.com' }] }), 403, 'forbidden');
    // Deleting lowers totalLinks, not the monthly usage: still over quota.
    const first = (await free.inject({ method: 'GET', url: '/links' })).json()[0];
    await free.inject({ method: 'DELETE', url: `/links/${first.id}` });
    assert.deepEqual(await linkCounters(free), { linksUsage: 25, totalLinks: 24 });
    expectError(await free.inject({ method: 'POST', url: '/links', payload: { url: 'https://d.com' } }), 403, 'forbidden');
    // Updating and upserting an existing link is not a creation.
    assert.equal((await free.inject({ method: 'PUT', url: '/links/upsert', payload: { url: 'https://c.com/1', title: 'kept' } })).statusCode, 200);
    const ws = (await free.inject({ method: 'GET', url: `/workspaces/${free.workspaceId}` })).json();
    assert.deepEqual([ws.linksUsage, ws.totalLinks, ws.linksLimit], [25, 24, 25]);
  } finally {
    await free.close();
  }
});

test('quota holds under concurrent creations', async () => {
  const free = await createTestApp({ plan: 'free' });
  try {
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => free.inject({ method: 'POST', url: '/links', payload: { url: `https://p.com/${i}` } })));
    const codes = results.map((r) => r.statusCode);
    assert.equal(codes.filter((c) => c === 200).length, 25);
    assert.equal(codes.filter((c) => c === 403).length, 15);
    assert.deepEqual(await linkCounters(free), { linksUsage: 25, totalLinks: 25 });
  } finally {
    await free.close();
  }
});

test('concurrent creations of one key: one wins, the others get 409 (no 500)', async () => {
  const results = await Promise.all(Array.from({ length: 8 }, (_, i) => create({ url: `https://race.com/${i}`, key: `race-${i % 2 ? 'A' : 'a'}` })));
  const codes = results.map((r) => r.statusCode).sort();
  assert.deepEqual(codes, [200, 409, 409, 409, 409, 409, 409, 409]);
});

test('bulk limits: 0 items and more than 100 items are 400; bulk delete needs ids', async () => {
  expectError(await t.inject({ method: 'POST', url: '/links/bulk', payload: [] }), 400, 'bad_request', 'No links created – you must provide at least one link.');
  const many = Array.from({ length: 101 }, (_, i) => ({ url: `https://a.com/${i}` }));
  const before = await linkCounters(t);
  expectError(await t.inject({ method: 'POST', url: '/links/bulk', payload: many }), 400, 'bad_request', 'You can only create up to 100 links at a time.');
  assert.deepEqual(await linkCounters(t), before);
  const hundred = await t.inject({ method: 'POST', url: '/links/bulk', payload: many.slice(0, 100) });
  assert.equal(hundred.json().length, 100);
  expectError(await t.inject({ method: 'POST', url: '/links/bulk', payload: { url: 'https://a.com' } }), 422, 'unprocessable_entity');
  expectError(await t.inject({ method: 'DELETE', url: '/links/bulk' }), 400, 'bad_request', /Please provide linkIds/);
  const ids = Array.from({ length: 101 }, (_, i) => `link_${i}`).join(',');
  expectError(await t.inject({ method: 'DELETE', url: `/links/bulk?linkIds=${ids}` }), 400, 'bad_request', /up to 100 links/);
  const upd = await t.inject({ method: 'PATCH', url: '/links/bulk', payload: { linkIds: Array.from({ length: 101 }, (_, i) => `l${i}`), data: {} } });
  expectError(upd, 422, 'unprocessable_entity', /^too_big: linkIds: /);
  assert.deepEqual((await t.inject({ method: 'PATCH', url: '/links/bulk', payload: { data: { title: 'x' } } })).json(), []);
});

test('bulk update: missing links and failing rules are reported per link; the others are updated', async () => {
  const a = (await create({ url: 'https://a.com', key: 'bu-a' })).json();
  const b = (await create({ url: 'https://b.com', key: 'bu-b', trackConversion: true })).json();
  const variants = [{ url: 'https://x.com', percentage: 50 }, { url: 'https://y.com', percentage: 50 }];
  const res = await t.inject({ method: 'PATCH', url: '/links/bulk', payload: { linkIds: [a.id, 'link_gone', b.id], data: { testVariants: variants } } });
  assert.equal(res.statusCode, 200);
  const [updated, failed, gone] = res.json();
  assert.equal(updated.id, b.id);
  assert.deepEqual(updated.testVariants, variants);
  assert.deepEqual(gone, { link: { id: 'link_gone' }, error: 'Link not found.', code: 'not_found' });
  assert.deepEqual(failed, { link: { id: a.id }, error: 'Conversion tracking must be enabled to use A/B testing.', code: 'unprocessable_entity' });
  expectError(await t.inject({ method: 'PATCH', url: '/links/bulk', payload: { linkIds: [a.id], data: { tagIds: ['tag_nope'] } } }), 422, 'unprocessable_entity', /tag_nope/);
  expectError(await t.inject({ method: 'PATCH', url: '/links/bulk', payload: { linkIds: [a.id], data: { url: 'javascript:x' } } }), 422, 'unprocessable_entity');
});

test('scopes: a read-only key lists links but cannot write them', async () => {
  const ro = await t.addWorkspace('enterprise', ['links.read']);
  assert.equal((await t.inject({ method: 'GET', url: '/links', headers: ro.headers })).statusCode, 200);
  assert.equal((await t.inject({ method: 'GET', url: '/links/count', headers: ro.headers })).statusCode, 200);
  const denied = [
    await t.inject({ method: 'POST', url: '/links', headers: ro.headers, payload: { url: 'https://a.com' } }),
    await t.inject({ method: 'POST', url: '/links/bulk', headers: ro.headers, payload: [{ url: 'https://a.com' }] }),
    await t.inject({ method: 'PUT', url: '/links/upsert', headers: ro.headers, payload: { url: 'https://a.com' } }),
    await t.inject({ method: 'PATCH', url: '/links/link_x', headers: ro.headers, payload: {} }),
    await t.inject({ method: 'PATCH', url: '/links/bulk', headers: ro.headers, payload: { data: {} } }),
    await t.inject({ method: 'DELETE', url: '/links/link_x', headers: ro.headers }),
    await t.inject({ method: 'DELETE', url: '/links/bulk?linkIds=a', headers: ro.headers }),
  ];
  for (const res of denied) expectError(res, 403, 'forbidden', /links\.write/);
  const none = await t.addWorkspace('enterprise', ['tags.read']);
  expectError(await t.inject({ method: 'GET', url: '/links', headers: none.headers }), 403, 'forbidden', /links\.read/);
  expectError(await t.inject({ method: 'GET', url: '/links', headers: { authorization: 'Bearer wm_nope' } }), 401, 'unauthorized');
});

test('lookups and lists: bad parameters', async () => {
  expectError(await t.inject({ method: 'GET', url: '/links/info' }), 400, 'bad_request', 'You must provide a domain and a key or a linkId or an externalId to retrieve a link.');
  expectError(await t.inject({ method: 'GET', url: '/links/info?externalId=no-prefix' }), 400, 'bad_request', /forget to prefix it with `ext_`/);
  expectError(await t.inject({ method: 'GET', url: '/links/info?domain=' }), 422, 'unprocessable_entity');
  expectError(await t.inject({ method: 'GET', url: '/links?pageSize=101' }), 422, 'unprocessable_entity', 'too_big: pageSize: Max page size is 100.');
  expectError(await t.inject({ method: 'GET', url: '/links?pageSize=0' }), 422, 'unprocessable_entity');
  expectError(await t.inject({ method: 'GET', url: '/links?page=0' }), 422, 'unprocessable_entity');
  expectError(await t.inject({ method: 'GET', url: '/links?showArchived=1' }), 422, 'unprocessable_entity', /showArchived/);
  expectError(await t.inject({ method: 'GET', url: '/links?sortBy=title' }), 422, 'unprocessable_entity', /sortBy/);
  expectError(await t.inject({ method: 'GET', url: '/links?sortOrder=up' }), 422, 'unprocessable_entity', /sortOrder/);
  expectError(await t.inject({ method: 'GET', url: '/links?startingAfter=link_nope' }), 422, 'unprocessable_entity', /Invalid cursor/);
  expectError(await t.inject({ method: 'GET', url: '/links?startingAfter=a&endingBefore=b' }), 422, 'unprocessable_entity');
  expectError(await t.inject({ method: 'GET', url: '/links/count?groupBy=url' }), 422, 'unprocessable_entity', /groupBy/);
  expectError(await t.inject({ method: 'POST', url: '/links', headers: { 'content-type': 'application/json' }, payload: '{"url":' }), 400, 'bad_request', /Invalid JSON/);
});
