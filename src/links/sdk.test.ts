/**
 * Every links operation driven through the official `dub` SDK, asserting the returned data. The
 * SDK validates each response body, so these tests also prove the shapes.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { Dub } from 'dub';
import * as errors from 'dub/models/errors';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { addDomain, addFolder, addTag, linkCounters, recordChanges } from './test-fixtures.js';

let t: TestApp;
let dub: Dub;
let baseUrl: string;
const SHORT = 'wm.localhost:3999';

before(async () => {
  t = await createTestApp();
  baseUrl = await t.listen();
  dub = new Dub({ token: t.key, serverURL: baseUrl });
});
after(() => t.close());

test('SDK create: every field is stored and returned', async () => {
  await addDomain(t, 'go.acme.test');
  const news = await addTag(t, 'News', { color: 'red' });
  const promo = await addTag(t, 'Promo', { color: 'green' });
  const folder = await addFolder(t, 'Spring');
  const before = await linkCounters(t);

  const link = await dub.links.create({
    url: 'https://acme.test/pricing?plan=pro',
    domain: 'GO.acme.test',
    key: 'Spring-Sale',
    externalId: 'ext_order-1',
    tenantId: 'tenant-7',
    programId: 'prog_1',
    partnerId: 'pn_1',
    trackConversion: true,
    tagIds: [promo, news],
    folderId: folder,
    comments: 'launch',
    expiresAt: '2031-05-01T12:00:00Z',
    expiredUrl: 'acme.test/expired',
    password: 'hunter2',
    proxy: true,
    title: 'Spring sale',
    description: 'Everything must go',
    image: 'https://acme.test/og.png',
    video: 'https://acme.test/v.mp4',
    rewrite: true,
    ios: 'https://apps.apple.com/app/acme',
    android: 'https://play.google.com/store/apps/details?id=acme',
    geo: { DE: 'acme.de', FR: 'https://acme.fr/' },
    doIndex: true,
    utmSource: 'newsletter',
    utmCampaign: 'spring',
    testVariants: [
      { url: 'https://acme.test/a', percentage: 50 },
      { url: 'acme.test/b', percentage: 50 },
    ],
    testStartedAt: '2031-04-01T00:00:00Z',
    testCompletedAt: '2031-04-15T00:00:00Z',
    publicStats: true,
  });

  assert.match(link.id, /^link_[0-9A-Z]{26}$/);
  assert.equal(link.domain, 'go.acme.test');
  assert.equal(link.key, 'Spring-Sale');
  assert.equal(link.url, 'https://acme.test/pricing?plan=pro&utm_source=newsletter&utm_campaign=spring');
  assert.equal(link.shortLink, 'http://go.acme.test/Spring-Sale');
  assert.equal(link.qrCode, `http://localhost:3999/qr?url=${encodeURIComponent('http://go.acme.test/Spring-Sale?qr=1')}`);
  assert.equal(link.externalId, 'order-1');
  assert.equal(link.tenantId, 'tenant-7');
  assert.equal(link.programId, 'prog_1');
  assert.equal(link.partnerId, 'pn_1');
  assert.equal(link.trackConversion, true);
  assert.equal(link.archived, false);
  assert.deepEqual(link.tags, [
    { id: promo, name: 'Promo', color: 'green' },
    { id: news, name: 'News', color: 'red' },
  ]);
  assert.equal(link.tagId, promo);
  assert.equal(link.folderId, folder);
  assert.equal(link.comments, 'launch');
  assert.equal(link.expiresAt, '2031-05-01T12:00:00.000Z');
  assert.equal(link.expiredUrl, 'https://acme.test/expired');
  assert.equal(link.password, 'hunter2');
  assert.equal(link.proxy, true);
  assert.equal(link.title, 'Spring sale');
  assert.equal(link.description, 'Everything must go');
  assert.equal(link.image, 'https://acme.test/og.png');
  assert.equal(link.video, 'https://acme.test/v.mp4');
  assert.equal(link.rewrite, true);
  assert.equal(link.ios, 'https://apps.apple.com/app/acme');
  assert.equal(link.android, 'https://play.google.com/store/apps/details?id=acme');
  assert.deepEqual(link.geo, { DE: 'https://acme.de/', FR: 'https://acme.fr/' });
  assert.equal(link.doIndex, true);
  assert.equal(link.utmSource, 'newsletter');
  assert.equal(link.utmMedium, null);
  assert.equal(link.utmCampaign, 'spring');
  assert.deepEqual(link.testVariants, [
    { url: 'https://acme.test/a', percentage: 50 },
    { url: 'https://acme.test/b', percentage: 50 },
  ]);
  assert.equal(link.testStartedAt, '2031-04-01T00:00:00.000Z');
  assert.equal(link.testCompletedAt, '2031-04-15T00:00:00.000Z');
  assert.equal(link.publicStats, true);
  assert.equal(link.workspaceId, t.workspaceId);
  assert.equal(link.projectId, t.workspaceId);
  assert.match(link.userId!, /^key_/);
  assert.deepEqual(link.webhookIds, []);
  assert.equal(link.disabledAt, null);
  assert.equal(link.lastClicked, null);
  assert.deepEqual([link.clicks, link.leads, link.conversions, link.sales, link.saleAmount], [0, 0, 0, 0, 0]);
  assert.equal(link.createdAt, link.updatedAt);

  const after = await linkCounters(t);
  assert.deepEqual(after, { linksUsage: before.linksUsage + 1, totalLinks: before.totalLinks + 1 });
});

test('SDK create: defaults (shared domain, random 7-character key, nulls) and bare host names', async () => {
  const ws = await t.addWorkspace();
  const sdk = new Dub({ token: ws.key, serverURL: baseUrl });
  const link = await sdk.links.create({ url: 'example.com' });
  assert.equal(link.url, 'https://example.com/');
  assert.equal(link.domain, SHORT);
  assert.match(link.key, /^[0-9A-Za-z]{7}$/);
  assert.equal(link.shortLink, `http://${SHORT}/${link.key}`);
  for (const field of ['externalId', 'tenantId', 'expiresAt', 'password', 'title', 'ios', 'geo', 'folderId', 'testVariants', 'tagId'] as const) {
    assert.equal(link[field], null, field);
  }
  assert.deepEqual(link.tags, []);
  assert.equal(link.trackConversion, false);

  const prefixed = await sdk.links.create({ url: 'https://example.com/x', prefix: '/promo/', keyLength: 12 });
  assert.match(prefixed.key, /^promo\/[0-9A-Za-z]{12}$/);

  // The primary domain of the workspace becomes the default.
  await addDomain(t, 'links.primary.test', { primary: true, workspaceId: ws.workspaceId });
  assert.equal((await sdk.links.create({ url: 'https://example.com/y' })).domain, 'links.primary.test');
  // The shared domain stays usable when named.
  assert.equal((await sdk.links.create({ url: 'https://example.com/z', domain: SHORT })).domain, SHORT);
});

test('SDK create: trackConversion defaults to the workspace setting', async () => {
  const ws = await t.addWorkspace();
  const sdk = new Dub({ token: ws.key, serverURL: baseUrl });
  await t.app.inject({ method: 'PATCH', url: `/workspaces/${ws.workspaceId}`, headers: ws.headers, payload: { conversionEnabled: true } });
  assert.equal((await sdk.links.create({ url: 'https://example.com' })).trackConversion, true);
  assert.equal((await sdk.links.create({ url: 'https://example.com', trackConversion: false })).trackConversion, false);
});

test('SDK get: by id, by ext_ external id, by domain and key (any case)', async () => {
  const link = await dub.links.create({ url: 'https://example.com/get', key: 'GetMe', externalId: 'get-1' });
  assert.deepEqual(await dub.links.get({ linkId: link.id }), link);
  assert.deepEqual(await dub.links.get({ externalId: 'ext_get-1' }), link);
  assert.deepEqual(await dub.links.get({ domain: SHORT, key: 'getme' }), link);
  const raw = await t.inject({ method: 'GET', url: `/links/ext_get-1` });
  assert.equal(raw.statusCode, 200);
  assert.equal(raw.json().id, link.id);
  await assert.rejects(dub.links.get({ linkId: 'link_missing' }), errors.NotFound);
});

test('SDK update: fields, key and tags change; unchanged fields stay; the cache hears old and new', async () => {
  const a = await addTag(t, 'Alpha');
  const b = await addTag(t, 'beta');
  const link = await dub.links.create({ url: 'https://example.com/u?utm_source=x', key: 'before', tagIds: [a], title: 'T', password: 'pw' });
  const rec = recordChanges(t);
  const updated = await dub.links.update(link.id, {
    key: 'After',
    url: 'example.org/new',
    utmMedium: 'email',
    tagNames: ['BETA', 'alpha'],
    title: null,
    archived: true,
  });
  rec.stop();
  assert.equal(updated.id, link.id);
  assert.equal(updated.key, 'After');
  assert.equal(updated.shortLink, `http://${SHORT}/After`);
  assert.equal(updated.url, 'https://example.org/new?utm_medium=email');
  assert.equal(updated.utmMedium, 'email');
  assert.equal(updated.utmSource, null);
  assert.deepEqual(updated.tags?.map((x) => x.id), [b, a]);
  assert.equal(updated.title, null);
  assert.equal(updated.password, 'pw');
  assert.equal(updated.archived, true);
  assert.equal(updated.createdAt, link.createdAt);
  assert.deepEqual(rec.changes, [
    { type: 'link', domain: SHORT, key: 'before' },
    { type: 'link', domain: SHORT, key: 'After' },
  ]);
  assert.deepEqual(await dub.links.get({ linkId: link.id }), updated);

  // By external id, and a key change in case only (no conflict with itself).
  await dub.links.update(link.id, { externalId: 'upd-1' });
  const recased = await dub.links.update('ext_upd-1', { key: 'AFTER', tagIds: [] });
  assert.equal(recased.key, 'AFTER');
  assert.deepEqual(recased.tags, []);
});

test('SDK upsert: matches the workspace link with the same destination, else creates', async () => {
  const ws = await t.addWorkspace();
  const sdk = new Dub({ token: ws.key, serverURL: baseUrl });
  const created = await sdk.links.upsert({ url: 'upsert.example.com/page', title: 'First' });
  assert.equal(created.url, 'https://upsert.example.com/page');
  const again = await sdk.links.upsert({ url: 'https://upsert.example.com/page', title: 'Second', comments: 'c' });
  assert.equal(again.id, created.id);
  assert.equal(again.key, created.key);
  assert.equal(again.title, 'Second');
  assert.equal(again.comments, 'c');
  const other = await sdk.links.upsert({ url: 'https://upsert.example.com/page', utmSource: 'x' });
  assert.notEqual(other.id, created.id);
  assert.equal(other.url, 'https://upsert.example.com/page?utm_source=x');
  assert.equal((await sdk.links.upsert({ url: 'https://upsert.example.com/page', utmSource: 'x', title: 'U' })).id, other.id);
  assert.equal((await linkCounters(t, ws.workspaceId)).totalLinks, 2);
});

test('SDK delete: answers the id, lowers totalLinks but not linksUsage, and forgets the link', async () => {
  const link = await dub.links.create({ url: 'https://example.com/del', key: 'delete-me' });
  const before = await linkCounters(t);
  const rec = recordChanges(t);
  assert.deepEqual(await dub.links.delete(link.id), { id: link.id });
  rec.stop();
  assert.deepEqual(rec.changes, [{ type: 'link', domain: SHORT, key: 'delete-me' }]);
  assert.deepEqual(await linkCounters(t), { linksUsage: before.linksUsage, totalLinks: before.totalLinks - 1 });
  await assert.rejects(dub.links.get({ linkId: link.id }), errors.NotFound);
  await assert.rejects(dub.links.delete(link.id), errors.NotFound);
  // The key is free again.
  assert.equal((await dub.links.create({ url: 'https://example.com/again', key: 'DELETE-ME' })).key, 'DELETE-ME');
});

test('SDK list and count: the links of the workspace, newest first, paged', async () => {
  const ws = await t.addWorkspace();
  const sdk = new Dub({ token: ws.key, serverURL: baseUrl });
  const made = [];
  for (let i = 0; i < 5; i++) made.push(await sdk.links.create({ url: `https://example.com/${i}`, key: `list-${i}` }));
  const page = await sdk.links.list({});
  assert.deepEqual(page.result.map((l) => l.key), ['list-4', 'list-3', 'list-2', 'list-1', 'list-0']);
  assert.deepEqual(page.result[0], made[4]);
  const second = await sdk.links.list({ page: 2, pageSize: 2 });
  assert.deepEqual(second.result.map((l) => l.key), ['list-2', 'list-1']);
  const after = await sdk.links.list({ startingAfter: made[3]!.id, pageSize: 2 });
  assert.deepEqual(after.result.map((l) => l.key), ['list-2', 'list-1']);
  const beforeCursor = await sdk.links.list({ endingBefore: made[1]!.id, pageSize: 2 });
  assert.deepEqual(beforeCursor.result.map((l) => l.key), ['list-3', 'list-2']);
  assert.deepEqual((await sdk.links.list({ search: 'LIST-3' })).result.map((l) => l.key), ['list-3']);
  assert.equal(await sdk.links.count({}), 5);
  assert.equal(await sdk.links.count({ search: 'example.com/1' }), 1);
  // The SDK pages through everything.
  const keys: string[] = [];
  for await (const p of await sdk.links.list({ pageSize: 2 })) keys.push(...p.result.map((l) => l.key));
  assert.equal(keys.length, 5);
});

test('SDK createMany: created links in input order, then per-item errors; nothing of a failed item is stored', async () => {
  const ws = await t.addWorkspace();
  const sdk = new Dub({ token: ws.key, serverURL: baseUrl });
  await sdk.links.create({ url: 'https://example.com/taken', key: 'taken' });
  const before = await linkCounters(t, ws.workspaceId);
  const out = await sdk.links.createMany([
    { url: 'https://example.com/1', key: 'bulk-1', externalId: 'b1' },
    { url: 'javascript:alert(1)' },
    { url: 'https://example.com/2', key: 'BULK-1' },
    { url: 'https://example.com/3', key: 'Taken' },
    { url: 'example.com/4' },
    { url: 'https://example.com/5', externalId: 'b1' },
  ]);
  assert.equal(out.length, 6);
  const [l1, l4, e1, e2, e3, e4] = out as any[];
  assert.equal(l1.key, 'bulk-1');
  assert.equal(l1.externalId, 'b1');
  assert.equal(l4.url, 'https://example.com/4');
  assert.match(l4.key, /^[0-9A-Za-z]{7}$/);
  assert.equal(e1.code, 'unprocessable_entity');
  assert.deepEqual(e1.link, { url: 'javascript:alert(1)' });
  assert.match(e1.error, /Invalid destination URL/);
  assert.deepEqual([e2.code, e2.link.key], ['conflict', 'BULK-1']);
  assert.match(e2.error, /Duplicate key/);
  assert.deepEqual([e3.code, e3.link.key], ['conflict', 'Taken']);
  assert.deepEqual([e4.code, e4.error], ['conflict', 'A link with this externalId already exists in this workspace.']);
  assert.deepEqual(await linkCounters(t, ws.workspaceId), { linksUsage: before.linksUsage + 2, totalLinks: before.totalLinks + 2 });
  assert.equal(await sdk.links.count({}), 3);
});

test('SDK updateMany: by link ids and by external ids', async () => {
  const ws = await t.addWorkspace();
  const sdk = new Dub({ token: ws.key, serverURL: baseUrl });
  const tag = await addTag(t, 'Bulk', { workspaceId: ws.workspaceId });
  const a = await sdk.links.create({ url: 'https://example.com/a', externalId: 'ea' });
  const b = await sdk.links.create({ url: 'https://example.com/b', externalId: 'eb' });
  const rec = recordChanges(t);
  const out = await sdk.links.updateMany({ linkIds: [a.id, b.id], data: { title: 'Same', tagIds: [tag], utmSource: 'bulk' } });
  rec.stop();
  assert.deepEqual(out.map((l) => l.id), [a.id, b.id]);
  for (const l of out) {
    assert.equal(l.title, 'Same');
    assert.deepEqual(l.tags, [{ id: tag, name: 'Bulk', color: 'blue' }]);
    assert.equal(l.utmSource, 'bulk');
  }
  assert.equal(out[0]!.url, 'https://example.com/a?utm_source=bulk');
  assert.equal(rec.changes.length, 4);
  const byExternal = await sdk.links.updateMany({ externalIds: ['ext_eb'], data: { archived: true } });
  assert.deepEqual(byExternal.map((l) => [l.id, l.archived, l.title]), [[b.id, true, 'Same']]);
});

test('SDK deleteMany: ids and ext_ ids; unknown ids are ignored', async () => {
  const ws = await t.addWorkspace();
  const sdk = new Dub({ token: ws.key, serverURL: baseUrl });
  const a = await sdk.links.create({ url: 'https://example.com/a' });
  await sdk.links.create({ url: 'https://example.com/b', externalId: 'del-b' });
  const c = await sdk.links.create({ url: 'https://example.com/c' });
  assert.deepEqual(await sdk.links.deleteMany({ linkIds: [a.id, 'ext_del-b', 'link_nope'] }), { deletedCount: 2 });
  assert.deepEqual((await sdk.links.list({})).result.map((l) => l.id), [c.id]);
  assert.deepEqual(await linkCounters(t, ws.workspaceId), { linksUsage: 3, totalLinks: 1 });
});

test('findByDomainKey (the redirect lookup) ignores case and reads punycode', async () => {
  const link = await dub.links.create({ url: 'https://example.com/fire', key: '🔥Deal' });
  assert.equal(link.key, 'xn--Deal-ke73c');
  assert.equal((await t.modules.links.findByDomainKey(SHORT.toUpperCase(), '🔥deal'))?.id, link.id);
  assert.equal((await t.modules.links.findByDomainKey(SHORT, 'XN--DEAL-KE73C'))?.id, link.id);
  assert.equal(await t.modules.links.findByDomainKey('other.test', '🔥deal'), undefined);
});
