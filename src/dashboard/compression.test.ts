/**
 * The dashboard's HTML is compressed as Accept-Encoding allows (compression.ts), streamed exports
 * and redirects are not, and uPlot is referenced only by pages that draw a chart.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { ASSETS } from './assets.js';
import { chooseEncoding } from './compression.js';
import { addUser, createLink, logIn, slugOf, type Browser } from './testing.js';
import { referencedAssets } from './page-weight.js';

let t: TestApp;
let owner: Browser;
let ws: string;

before(async () => {
  t = await createTestApp();
  owner = await logIn(t, await addUser(t, 'owner'));
  ws = `/dashboard/w/${await slugOf(t)}`;
  for (let i = 0; i < 50; i++) await createLink(t, { url: `https://shop.example.com/products/item-${i}?utm_source=newsletter`, key: `compress-${i}`, title: `Item ${i}` });
});
after(() => t.close());

test('chooseEncoding: brotli before gzip, q=0 refuses, * stands for both', () => {
  assert.equal(chooseEncoding('gzip, deflate, br'), 'br');
  assert.equal(chooseEncoding('gzip'), 'gzip');
  assert.equal(chooseEncoding('br;q=0, gzip;q=0.5'), 'gzip');
  assert.equal(chooseEncoding('GZIP;q=1.0'), 'gzip');
  assert.equal(chooseEncoding('*'), 'br');
  assert.equal(chooseEncoding('*;q=0, gzip'), 'gzip');
  assert.equal(chooseEncoding('identity'), undefined);
  assert.equal(chooseEncoding('gzip;q=0'), undefined);
  assert.equal(chooseEncoding(undefined), undefined);
  assert.equal(chooseEncoding(''), undefined);
});

test('a dashboard page asked with gzip or br comes back compressed and decodes to the same HTML', async (c) => {
  const plain = await owner.get(`${ws}/links`);
  assert.equal(plain.statusCode, 200);
  assert.equal(plain.headers['content-encoding'], undefined, 'no Accept-Encoding: sent as it is');
  const gz = await owner.get(`${ws}/links`, { 'accept-encoding': 'gzip' });
  assert.equal(gz.headers['content-encoding'], 'gzip');
  assert.match(String(gz.headers.vary), /Accept-Encoding/i);
  assert.match(String(gz.headers['content-type']), /^text\/html/);
  assert.equal(gunzipSync(gz.rawPayload).toString('utf8'), plain.body);
  const br = await owner.get(`${ws}/links`, { 'accept-encoding': 'gzip, deflate, br' });
  assert.equal(br.headers['content-encoding'], 'br');
  assert.equal(brotliDecompressSync(br.rawPayload).toString('utf8'), plain.body);
  assert.ok(gz.rawPayload.length * 4 < plain.rawPayload.length, `gzip at least 4× smaller: ${plain.rawPayload.length} → ${gz.rawPayload.length}`);
  c.diagnostic(`links page, 50 links: ${plain.rawPayload.length} B as HTML, ${gz.rawPayload.length} B gzip, ${br.rawPayload.length} B brotli`);

  // Error pages too, and public pages (no session).
  const missing = await owner.get(`${ws}/nothing-here`, { 'accept-encoding': 'gzip' });
  assert.equal(missing.statusCode, 404);
  assert.match(gunzipSync(missing.rawPayload).toString('utf8'), /There is no page at this address/);
});

test('streamed exports, assets and redirects are not compressed by the hook', async () => {
  const exported = await owner.get(`${ws}/links/export`, { 'accept-encoding': 'gzip' });
  assert.equal(exported.statusCode, 200);
  assert.equal(exported.headers['content-encoding'], undefined, 'the CSV streams as it is read');
  assert.match(exported.body, /compress-49/);
  const redirect = await owner.get('/dashboard', { 'accept-encoding': 'gzip' });
  assert.equal(redirect.statusCode, 303);
  assert.equal(redirect.headers['content-encoding'], undefined);
  const api = await t.inject({ method: 'GET', url: '/links', headers: { 'accept-encoding': 'gzip' } });
  assert.equal(api.headers['content-encoding'], undefined, 'the API is outside the dashboard scope');
  const fragment = await owner.get(`${ws}/links/key-check?key=free-key`, { 'accept-encoding': 'gzip' });
  assert.equal(fragment.headers['content-encoding'], undefined, 'a fragment under 1 KB is sent as it is');
});

test('uPlot is referenced only by pages that draw a chart', async () => {
  for (const path of ['/links', '/links/new', '/events', '/customers', '/settings/general']) {
    const page = await owner.get(`${ws}${path}`);
    assert.equal(page.statusCode, 200, path);
    assert.doesNotMatch(page.body, /uplot/i, `${path} does not reference uPlot`);
    assert.ok(referencedAssets(page.body).includes(ASSETS.chart), `${path} keeps chart.js (it draws a chart a boosted visit swaps in)`);
  }
  const analytics = await owner.get(`${ws}/analytics?interval=all`);
  assert.ok(referencedAssets(analytics.body).includes(ASSETS.uplot), 'the analytics page loads uPlot');
  assert.ok(referencedAssets(analytics.body).includes(ASSETS.uplotCss));
  // For a boosted visit (only the body is swapped), chart.js loads uPlot from the chart element.
  assert.match(analytics.body, new RegExp(`id="analytics-chart"[^>]*data-uplot-src="${ASSETS.uplot.replace(/[?.]/g, '\\$&')}"`));

  const shared = await createLink(t, { url: 'https://shop.example.com/shared', key: 'shared-stats', publicStats: true });
  const stats = await t.app.inject({ method: 'GET', url: `/stats/${shared.domain}/${shared.key}` });
  assert.equal(stats.statusCode, 200);
  assert.ok(referencedAssets(stats.body).includes(ASSETS.uplot), 'the public stats page loads uPlot');
});
