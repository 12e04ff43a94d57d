import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatZodError } from '../http/errors.js';
import { CreateLinkBody, ListLinksQuery, UpdateLinkBody, parseIsoDate } from './schema.js';
import { linkFilters, linkPage } from './query.js';
import { assertLinkRules, prepareFields, tagRequestOf } from './prepare.js';
import { ApiError } from '../http/errors.js';

const errorOf = (input: unknown) => {
  const r = CreateLinkBody.safeParse(input);
  assert.equal(r.success, false, JSON.stringify(input).slice(0, 100));
  return formatZodError(r.error!);
};

test('create body: URLs completed and checked, fields normalised', () => {
  const body = CreateLinkBody.parse({
    url: 'example.com',
    externalId: 'ext_42',
    title: 't'.repeat(130),
    description: 'd'.repeat(241),
    tagIds: 'tag_a, tag_b,,',
    tagNames: ['News', 'promo'],
    folderId: '',
    expiresAt: '2030-01-02T03:04:05Z',
    testStartedAt: '',
    expiredUrl: 'example.org/gone',
    ios: '',
    geo: { DE: 'example.de', US: 'https://example.com/us' },
    utm_source: '  news  ',
    utm_medium: '',
    image: 'img.example/og.png',
    video: '',
    unknownField: 'ignored',
  });
  assert.equal(body.url, 'https://example.com/');
  assert.equal(body.externalId, '42');
  assert.equal(body.title, `${'t'.repeat(117)}...`);
  assert.equal(body.title!.length, 120);
  assert.equal(body.description!.length, 240);
  assert.deepEqual(body.tagIds, ['tag_a', 'tag_b']);
  assert.deepEqual(body.tagNames, ['News', 'promo']);
  assert.equal(body.folderId, null);
  assert.equal(body.expiresAt, Date.UTC(2030, 0, 2, 3, 4, 5));
  assert.equal(body.testStartedAt, null);
  assert.equal(body.expiredUrl, 'https://example.org/gone');
  assert.equal(body.ios, null);
  assert.deepEqual(body.geo, { DE: 'https://example.de/', US: 'https://example.com/us' });
  assert.equal(body.utm_source, 'news');
  assert.equal(body.utm_medium, null);
  assert.equal(body.image, 'https://img.example/og.png');
  assert.equal(body.video, null);
  assert.equal('unknownField' in body, false);
  assert.equal(CreateLinkBody.parse({ url: '' }).url, '');
});

test('create body: 422 messages name the field', () => {
  assert.match(errorOf({}), /^invalid_type: url: /);
  assert.match(errorOf({ url: 'javascript:alert(1)' }), /^custom: url: Invalid destination URL/);
  assert.match(errorOf({ url: 'https://a.com', expiredUrl: 'data:text/html,x' }), /^custom: expiredUrl: Invalid URL/);
  assert.match(errorOf({ url: 'https://a.com', ios: 'mailto:a@b.c' }), /^custom: ios: /);
  assert.match(errorOf({ url: 'https://a.com', geo: { DE: 'ftp://x.de' } }), /^custom: geo\.DE: /);
  assert.match(errorOf({ url: 'https://a.com', testVariants: [{ url: 'a.com', percentage: 50 }, { url: 'javascript:x', percentage: 50 }] }), /^custom: testVariants\[1\]\.url: /);
  assert.match(errorOf({ url: 'x'.repeat(32_001) }), /^too_big: url: /);
  assert.match(errorOf({ url: 'https://a.com', key: 'k'.repeat(191) }), /^too_big: key: /);
  assert.match(errorOf({ url: 'https://a.com', domain: 'd'.repeat(191) }), /^too_big: domain: /);
  assert.match(errorOf({ url: 'https://a.com', externalId: 'e'.repeat(256) }), /^too_big: externalId: /);
  assert.match(errorOf({ url: 'https://a.com', externalId: '' }), /^too_small: externalId: /);
  assert.match(errorOf({ url: 'https://a.com', externalId: 'ext_' }), /^custom: externalId: /);
  assert.match(errorOf({ url: 'https://a.com', tenantId: 't'.repeat(256) }), /^too_big: tenantId: /);
  assert.match(errorOf({ url: 'https://a.com', utm_campaign: 'u'.repeat(191) }), /^too_big: utm_campaign: /);
  assert.match(errorOf({ url: 'https://a.com', keyLength: 2 }), /^too_small: keyLength: /);
  assert.match(errorOf({ url: 'https://a.com', keyLength: 191 }), /^too_big: keyLength: /);
  assert.match(errorOf({ url: 'https://a.com', testVariants: [{ url: 'a.com', percentage: 50 }] }), /^too_small: testVariants: /);
  const five = Array.from({ length: 5 }, () => ({ url: 'a.com', percentage: 20 }));
  assert.match(errorOf({ url: 'https://a.com', testVariants: five }), /^too_big: testVariants: /);
  assert.match(errorOf({ url: 'https://a.com', testVariants: [{ url: 'a.com', percentage: 95 }, { url: 'b.com', percentage: 5 }] }), /^too_big: testVariants\[0\]\.percentage: /);
  assert.match(errorOf({ url: 'https://a.com', expiresAt: 'tomorrow' }), /^custom: expiresAt: Invalid expiration date/);
  assert.match(errorOf({ url: 'https://a.com', testCompletedAt: '2030-13-45' }), /^custom: testCompletedAt: /);
  assert.match(errorOf({ url: 'https://a.com', image: 'data:image/svg+xml;base64,AAA' }), /Invalid image format/);
  assert.match(errorOf({ url: 'https://a.com', image: 'data:image/png;base64,AA AA' }), /^custom: image: Invalid image: the data of a base64 data URL must be base64/);
  assert.match(errorOf({ url: 'https://a.com', image: 'not an url' }), /^custom: image: Invalid image URL: /);
  assert.match(errorOf({ url: 'https://a.com', video: 'javascript:alert(1)' }), /^custom: video: Invalid URL: only http and https URLs are allowed\.$/);
  assert.match(errorOf({ url: 'https://a.com', video: 'https://v.example/a\u0000b' }), /^custom: video: Invalid URL: whitespace, control characters/);
  assert.match(errorOf({ url: 'https://a.com', archived: 'yes' }), /^invalid_type: archived: /);
});

test('update body: everything optional, no keyLength/prefix', () => {
  assert.deepEqual(UpdateLinkBody.parse({}), {});
  assert.equal('keyLength' in UpdateLinkBody.parse({ keyLength: 9, prefix: 'x' }), false);
});

test('parseIsoDate: ISO-8601 dates and date-times, UTC unless an offset is given', () => {
  assert.equal(parseIsoDate('2030-01-02'), Date.UTC(2030, 0, 2));
  assert.equal(parseIsoDate('2030-01-02T03:04'), Date.UTC(2030, 0, 2, 3, 4));
  assert.equal(parseIsoDate('2030-01-02 03:04:05.123'), Date.UTC(2030, 0, 2, 3, 4, 5, 123));
  assert.equal(parseIsoDate('2030-01-02T03:04:05+02:00'), Date.UTC(2030, 0, 2, 1, 4, 5));
  assert.equal(parseIsoDate('2030-01-02T03:04:05-0130'), Date.UTC(2030, 0, 2, 4, 34, 5));
  assert.equal(parseIsoDate('2030-01-02T03:04:05+02'), Date.UTC(2030, 0, 2, 1, 4, 5));
  for (const bad of ['tomorrow', '01/02/2030', '2030-02-30T00:00:00Z', '1735689600000', '']) assert.ok(Number.isNaN(parseIsoDate(bad)), bad);
});

test('prepareFields merges UTM fields into the destination and reads the UTM columns back', () => {
  const p = prepareFields(CreateLinkBody.parse({ url: 'https://a.com/p?utm_medium=mail&x=1', utm_source: 'news', utm_medium: null }), '');
  assert.equal(p.url, 'https://a.com/p?x=1&utm_source=news');
  assert.equal(p.utm_source, 'news');
  assert.equal(p.utm_medium, null);
  // On update without `url`, the stored destination is the base.
  const u = prepareFields(UpdateLinkBody.parse({ utm_campaign: 'spring' }), 'https://a.com/?utm_source=news');
  assert.equal(u.url, 'https://a.com/?utm_source=news&utm_campaign=spring');
  assert.equal(u.utm_source, 'news');
  assert.equal(u.utm_campaign, 'spring');
  // Fields that are absent are not touched; booleans become flags; JSON is text.
  const f = prepareFields(UpdateLinkBody.parse({ archived: true, geo: { FR: 'a.fr' }, password: null }), 'https://a.com');
  assert.deepEqual(f, { archived: 1, geo: '{"FR":"https://a.fr/"}', password: null });
});

test('assertLinkRules: destination required (except root links); A/B tests need conversion tracking', () => {
  const ok = { key: 'k', url: 'https://a.com', track_conversion: 0, test_variants: null };
  assert.doesNotThrow(() => assertLinkRules(ok));
  assert.doesNotThrow(() => assertLinkRules({ ...ok, key: '_root', url: '' }));
  assert.throws(() => assertLinkRules({ ...ok, url: '' }), (e: ApiError) => e.status === 400 && e.message === 'Missing destination URL');
  assert.throws(
    () => assertLinkRules({ ...ok, test_variants: '[]' }),
    (e: ApiError) => e.status === 422 && /Conversion tracking must be enabled/.test(e.message),
  );
  assert.doesNotThrow(() => assertLinkRules({ ...ok, test_variants: '[]', track_conversion: 1 }));
});

test('tagRequestOf: tagIds win over tagNames, then the deprecated tagId (null = no tags)', () => {
  assert.deepEqual(tagRequestOf({ tagIds: ['a'], tagNames: ['n'], tagId: 'x' }), { ids: ['a'] });
  assert.deepEqual(tagRequestOf({ tagNames: ['n'], tagId: 'x' }), { names: ['n'] });
  assert.deepEqual(tagRequestOf({ tagId: 'x' }), { ids: ['x'] });
  assert.deepEqual(tagRequestOf({ tagId: null }), { ids: [] });
  assert.equal(tagRequestOf({}), undefined);
});

test('list filters: unsorted links only, unless a folder or a narrowing filter is given', () => {
  const q = (s: string) => ListLinksQuery.parse(Object.fromEntries(new URLSearchParams(s)));
  assert.equal(linkFilters(q('')).folderId, null);
  assert.equal(linkFilters(q('userId=key_1')).folderId, null);
  assert.equal(linkFilters(q('folderId=fold_1')).folderId, 'fold_1');
  assert.equal(linkFilters(q('folderId=unsorted')).folderId, null);
  for (const s of ['search=x', 'domain=go.example.com', 'tagIds=a', 'tagNames=b', 'tagId=c', 'tenantId=t']) {
    assert.equal(linkFilters(q(s)).folderId, undefined, s);
  }
  const f = linkFilters(q('domain=GO.Example.com&tagIds=a,b&tagNames=X&showArchived=true&withTags=false'));
  assert.equal(f.domain, 'go.example.com');
  assert.deepEqual(f.tagIds, ['a', 'b']);
  assert.equal(f.tagNameKeys, undefined);
  assert.equal(f.showArchived, true);
  assert.equal(f.withTags, false);
  assert.deepEqual(linkFilters(q('tagNames=News,PROMO')).tagNameKeys, ['news', 'promo']);
  assert.deepEqual(linkFilters(q('tagId=t1')).tagIds, ['t1']);
});

test('list page: defaults, deprecated sort, cursors', () => {
  const q = (s: string) => ListLinksQuery.parse(Object.fromEntries(new URLSearchParams(s)));
  assert.deepEqual(linkPage(q('')), { sortBy: 'createdAt', sortOrder: 'desc', offset: 0, limit: 50 });
  assert.deepEqual(linkPage(q('page=3&pageSize=20&sort=clicks&sortOrder=asc')), { sortBy: 'clicks', sortOrder: 'asc', offset: 40, limit: 20 });
  assert.equal(linkPage(q('sort=clicks&sortBy=saleAmount')).sortBy, 'saleAmount');
  assert.deepEqual(linkPage(q('endingBefore=link_1')), { sortBy: 'createdAt', sortOrder: 'asc', offset: 0, limit: 50 });
  assert.throws(() => linkPage(q('startingAfter=a&endingBefore=b')), /cannot use both/);
  assert.throws(() => linkPage(q('startingAfter=a&page=2')), /page together/);
  assert.throws(() => linkPage(q('startingAfter=a&sortBy=clicks')), /only works with sortBy=createdAt/);
  assert.equal(ListLinksQuery.safeParse({ pageSize: '101' }).error?.issues[0]?.message, 'Max page size is 100.');
  assert.equal(ListLinksQuery.safeParse({ showArchived: '1' }).success, false);
});
