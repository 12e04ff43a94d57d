import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyUa, createUaClassifier, refererOf } from '../visitors/visitor.js';
import { continentOf, regionOf } from '../visitors/places.js';
import { createGeoLocator, geoFromHeaders, geoFromRecord, UNKNOWN_GEO } from '../visitors/geo.js';
import { createAttemptLimiter, passwordMatches, passwordProof } from './password.js';
import { escapeHtml, safeHttpUrl } from './pages.js';

const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

test('user agents: device (Desktop by default), browser and OS as ua-parser-js 1.x names them', () => {
  assert.deepEqual(classifyUa(IPHONE), { bot: false, device: 'Mobile', browser: 'Mobile Safari', os: 'iOS' });
  assert.deepEqual(classifyUa(CHROME), { bot: false, device: 'Desktop', browser: 'Chrome', os: 'Windows' });
  assert.equal(classifyUa('Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36').os, 'Android');
  assert.deepEqual(classifyUa(''), { bot: false, device: 'Desktop', browser: 'Unknown', os: 'Unknown' });
});

test('bots: crawlers and HTTP tools are bots', () => {
  for (const ua of ['Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', 'curl/8.5.0', 'facebookexternalhit/1.1', 'python-requests/2.31', 'node']) {
    assert.equal(classifyUa(ua).bot, true, ua);
  }
});

test('the classifier returns the cached result for a repeated user agent', () => {
  const classify = createUaClassifier(10);
  assert.equal(classify(IPHONE), classify(IPHONE));
});

test('referer: host without www, full URL, or (direct)', () => {
  assert.deepEqual(refererOf('https://www.google.com/search?q=x'), { host: 'google.com', url: 'https://www.google.com/search?q=x' });
  assert.deepEqual(refererOf(undefined), { host: '(direct)', url: '(direct)' });
  assert.deepEqual(refererOf('not a url'), { host: '(direct)', url: '(direct)' });
});

test('places: continent from country; region as COUNTRY-CODE', () => {
  assert.equal(continentOf('US'), 'NA');
  assert.equal(continentOf('DE'), 'EU');
  assert.equal(continentOf('BR'), 'SA');
  assert.equal(continentOf('AQ'), 'AN');
  assert.equal(continentOf('ZZ'), 'Unknown');
  assert.equal(regionOf('US', 'California'), 'US-CA');
  assert.equal(regionOf('CA', 'Quebec'), 'CA-QC');
  assert.equal(regionOf('DE', 'Hesse'), 'DE-Hesse');
  assert.equal(regionOf('US', 'ca', true), 'US-CA');
  assert.equal(regionOf('US', ''), 'Unknown');
});

test('geo records: DB-IP flat and MaxMind nested layouts', () => {
  assert.deepEqual(geoFromRecord({ country_code: 'US', state1: 'California', city: 'Mountain View' }), { country: 'US', region: 'US-CA', city: 'Mountain View', continent: 'NA' });
  assert.deepEqual(
    geoFromRecord({ country: { iso_code: 'GB' }, subdivisions: [{ iso_code: 'ENG' }], city: { names: { en: 'London' } }, continent: { code: 'EU' } }),
    { country: 'GB', region: 'GB-ENG', city: 'London', continent: 'EU' },
  );
  assert.deepEqual(geoFromRecord(null), UNKNOWN_GEO);
});

test('geo headers: Cloudflare and Vercel, XX/T1 mean unknown', () => {
  assert.deepEqual(geoFromHeaders({ 'cf-ipcountry': 'fr', 'cf-ipcity': 'Paris', 'cf-region-code': 'IDF' }), { country: 'FR', region: 'FR-IDF', city: 'Paris', continent: 'EU' });
  assert.deepEqual(geoFromHeaders({ 'x-vercel-ip-country': 'US', 'x-vercel-ip-country-region': 'CA', 'x-vercel-ip-city': 'San%20Francisco', 'x-vercel-ip-continent': 'NA' }), {
    country: 'US',
    region: 'US-CA',
    city: 'San Francisco',
    continent: 'NA',
  });
  assert.equal(geoFromHeaders({ 'cf-ipcountry': 'XX' }), null);
  assert.equal(geoFromHeaders({ 'cf-ipcountry': 'T1' }), null);
  assert.equal(geoFromHeaders({}), null);
});

test('geo lookup in the bundled DB-IP data (IPv4 and IPv6); headers only when trusted', async () => {
  const geo = createGeoLocator({ trustHeaders: false });
  geo.start();
  await geo.ready();
  const us = geo.locate('8.8.8.8', { 'cf-ipcountry': 'FR' });
  assert.equal(us.country, 'US');
  assert.equal(us.continent, 'NA');
  assert.match(us.region, /^US-/);
  assert.equal(geo.locate('2a00:1450:4001:80b::200e', {}).country, 'DE');
  assert.deepEqual(geo.locate('127.0.0.1', {}), UNKNOWN_GEO);
  assert.deepEqual(geo.locate('not-an-ip', {}), UNKNOWN_GEO);
  const trusting = createGeoLocator({ trustHeaders: true });
  trusting.start();
  await trusting.ready();
  assert.equal(trusting.locate('8.8.8.8', { 'cf-ipcountry': 'FR' }).country, 'FR');
  assert.equal(trusting.locate('8.8.8.8', {}).country, 'US');
});

test('password: constant-time match of the password or the cookie proof', () => {
  assert.equal(passwordMatches('link_1', 'secret', { password: 'secret' }), true);
  assert.equal(passwordMatches('link_1', 'secret', { password: 'Secret' }), false);
  assert.equal(passwordMatches('link_1', 'secret', { proof: passwordProof('link_1', 'secret') }), true);
  assert.equal(passwordMatches('link_1', 'secret', { proof: passwordProof('link_2', 'secret') }), false, 'proof is per link');
  assert.equal(passwordMatches('link_1', 'changed', { proof: passwordProof('link_1', 'secret') }), false, 'proof dies with the password');
  assert.ok(!passwordProof('link_1', 'secret').includes('secret'));
});

test('password attempts: blocked after max wrong tries until the window ends; reset on success', () => {
  const limiter = createAttemptLimiter({ max: 3, windowMs: 60_000 });
  for (let i = 0; i < 3; i++) {
    assert.equal(limiter.blocked('k', 1000), 0);
    limiter.fail('k', 1000);
  }
  assert.equal(limiter.blocked('k', 1000), 60);
  assert.equal(limiter.blocked('other', 1000), 0);
  assert.equal(limiter.blocked('k', 61_001), 0, 'window over');
  limiter.fail('k', 70_000);
  limiter.reset('k');
  assert.equal(limiter.blocked('k', 70_000), 0);
});

test('pages escape HTML and embed only http(s) URLs', () => {
  assert.equal(escapeHtml(`<script>alert("x")</script>&'`), '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;');
  assert.equal(safeHttpUrl('javascript:alert(1)'), 'about:blank');
  assert.equal(safeHttpUrl('https://ok.example/'), 'https://ok.example/');
});

test('readCookie finds one cookie by exact name and decodes it; withoutPort keeps IPv6 brackets', async () => {
  const { readCookie, withoutPort } = await import('./request.js');
  assert.equal(readCookie('a=1; waymark_test_url=https%3A%2F%2Fa.example%2F; b=2', 'waymark_test_url'), 'https://a.example/');
  assert.equal(readCookie('xwaymark_id=1; waymark_id=2', 'waymark_id'), '2');
  assert.equal(readCookie('a=1', 'b'), null);
  assert.equal(readCookie(undefined, 'b'), null);
  assert.equal(withoutPort('wm.localhost:3000'), 'wm.localhost');
  assert.equal(withoutPort('go.test'), 'go.test');
  assert.equal(withoutPort('[::1]'), '[::1]');
  assert.equal(withoutPort('[::1]:3000'), '[::1]');
});

test('readHeaders: one pass over the raw headers, any case; the first wins, cookies and X-Forwarded-For lines are joined', async () => {
  const { readHeaders } = await import('./request.js');
  const req = {
    rawHeaders: [
      'HOST', 'go.test:3000', 'User-Agent', 'UA 1', 'user-agent', 'UA 2', 'X-Forwarded-For', '203.0.113.7, 10.0.0.1', 'x-forwarded-for', '10.9.9.9',
      'Cookie', 'a=1', 'cookie', 'b=2', 'Referer', 'https://ref.example/', 'Accept', '*/*', 'Dub-No-Track', '1',
    ],
  } as unknown as import('node:http').IncomingMessage;
  assert.deepEqual(readHeaders(req), {
    host: 'go.test:3000', userAgent: 'UA 1', forwardedFor: '203.0.113.7, 10.0.0.1, 10.9.9.9', referer: 'https://ref.example/', cookie: 'a=1; b=2', noTrack: true,
  });
  assert.deepEqual(readHeaders({ rawHeaders: ['host', 'x'] } as unknown as import('node:http').IncomingMessage), {
    host: 'x', userAgent: '', forwardedFor: undefined, referer: undefined, cookie: undefined, noTrack: false,
  });
});
