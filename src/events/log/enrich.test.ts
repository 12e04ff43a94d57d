import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createClickEnricher } from './enrich.js';
import { decodeClicks, encodeClicks, type RawClick } from './raw-click.js';
import { createGeoLocator, type GeoResult } from '../../visitors/geo.js';
import { createUaClassifier } from '../../visitors/visitor.js';

const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

const raw = (over: Partial<RawClick> = {}): RawClick => ({
  id: '1BGXw4ka8Zq02LmN',
  timestamp: 1_763_000_000_000,
  linkId: 'link_1',
  workspaceId: 'ws_1',
  domain: 'go.test',
  key: 'abc',
  url: 'https://example.com/p?utm_source=news&utm_campaign=fall',
  ip: '203.0.113.5',
  ua: IPHONE,
  referer: 'https://www.news.example/story?id=7',
  qr: true,
  geo: null,
  ...over,
});

test('encodeClicks/decodeClicks round-trip every field, and refuse a cut batch', () => {
  const geo: GeoResult = { country: 'DE', region: 'DE-BE', city: 'Berlin', continent: 'EU' };
  const clicks = [raw(), raw({ id: 'x', qr: false, referer: '', ua: '', geo })];
  const flat = encodeClicks(clicks);
  assert.ok(flat.every((v) => typeof v !== 'object' || v === null || v === geo), 'flat values only');
  assert.deepEqual(decodeClicks(flat), clicks);
  assert.deepEqual(decodeClicks([]), []);
  assert.throws(() => decodeClicks(flat.slice(0, -1)), /malformed/);
});

test('the enricher adds traits, referer, trigger and UTM, and takes the location from the IP', () => {
  const looked: string[] = [];
  const enrich = createClickEnricher({
    geo: { locateIp: (ip) => (looked.push(ip), { country: 'US', region: 'US-CA', city: 'San Francisco', continent: 'NA' }) },
    classify: createUaClassifier(),
    ipMode: 'full',
  });
  const e = enrich(raw());
  assert.deepEqual(
    { ...e },
    {
      workspace_id: 'ws_1', timestamp: 1_763_000_000_000, id: '1BGXw4ka8Zq02LmN', kind: 'click', click_id: '1BGXw4ka8Zq02LmN', link_id: 'link_1',
      domain: 'go.test', key: 'abc', url: 'https://example.com/p?utm_source=news&utm_campaign=fall',
      country: 'US', city: 'San Francisco', region: 'US-CA', continent: 'NA', device: 'Mobile', browser: 'Mobile Safari', os: 'iOS',
      referer: 'news.example', referer_url: 'https://www.news.example/story?id=7', trigger: 'qr', ip: '203.0.113.5', ua: IPHONE,
      utm_source: 'news', utm_medium: null, utm_campaign: 'fall', utm_term: null, utm_content: null,
      customer_id: null, event_name: null, amount: 0, currency: null, original_amount: null, payment_processor: null, invoice_id: null, sale_type: null, metadata: null,
    },
  );
  assert.deepEqual(looked, ['203.0.113.5']);
});

test('the enricher keeps a location from trusted headers and marks a visit without referer as direct', () => {
  const enrich = createClickEnricher({
    geo: { locateIp: () => assert.fail('no lookup when the headers gave the location') },
    classify: createUaClassifier(),
    ipMode: 'full',
  });
  const e = enrich(raw({ geo: { country: 'FR', region: 'FR-IDF', city: 'Paris', continent: 'EU' }, referer: '', qr: false, url: 'https://example.com/' }));
  assert.equal(e.country, 'FR');
  assert.equal(e.city, 'Paris');
  assert.equal(e.referer, '(direct)');
  assert.equal(e.referer_url, '(direct)');
  assert.equal(e.trigger, 'link');
  assert.equal(e.utm_source, null);
});

test('the location is looked up from the full address; the row keeps only what VISITOR_IP allows', () => {
  const looked: string[] = [];
  const geo = { locateIp: (ip: string) => (looked.push(ip), { country: 'US', region: 'US-CA', city: 'San Francisco', continent: 'NA' }) };
  const classify = createUaClassifier();
  assert.equal(createClickEnricher({ geo, classify, ipMode: 'anonymized' })(raw()).ip, '203.0.113.0');
  assert.equal(createClickEnricher({ geo, classify, ipMode: 'none' })(raw()).ip, '');
  assert.equal(createClickEnricher({ geo, classify, ipMode: 'anonymized' })(raw({ ip: '2001:db8:85a3:1::7' })).ip, '2001:db8:85a3::');
  assert.deepEqual(looked, ['203.0.113.5', '203.0.113.5', '2001:db8:85a3:1::7']);
});

test('geo: IPv4 answers are remembered per /24 only when the record covers the /24', async () => {
  const geo = createGeoLocator({ trustHeaders: false });
  await geo.ready();
  assert.ok(geo.isReady());
  const a = geo.locateIp('8.8.8.8');
  assert.equal(a.country, 'US');
  // The same network answers from memory: the same object.
  assert.equal(geo.locateIp('8.8.8.9'), a);
  assert.equal(geo.locateIp('2a00:1450:4001:80b::200e').country, 'DE');
  const country = createGeoLocator({ trustHeaders: false, precision: 'country' });
  await country.ready();
  assert.deepEqual(country.locateIp('8.8.8.8'), { country: 'US', region: 'Unknown', city: 'Unknown', continent: 'NA' });
});
