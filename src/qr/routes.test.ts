import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Dub } from 'dub';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { wantsSvg } from './routes.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

/** Width and height from a PNG's IHDR chunk. */
function pngSize(buf: Buffer): { width: number; height: number } {
  assert.equal(buf.subarray(0, 8).toString('hex'), '89504e470d0a1a0a', 'PNG signature');
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
}

const get = (query: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url: `/qr?${query}`, headers });

test('PNG by default, 600 px, no API key needed, cacheable', async () => {
  const res = await get(`url=${encodeURIComponent('https://go.example.com/abc?qr=1')}`);
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['content-type'], 'image/png');
  assert.equal(res.headers['cache-control'], 'public, max-age=86400');
  assert.deepEqual(pngSize(res.rawPayload), { width: 600, height: 600 });
});

test('the published unencoded form url=https://…/abc?qr=1 is read whole', async () => {
  const res = await get('url=https://go.example.com/abc?qr=1&format=svg');
  assert.equal(res.statusCode, 200);
  const encoded = await get(`url=${encodeURIComponent('https://go.example.com/abc?qr=1')}&format=svg`);
  assert.equal(res.body, encoded.body);
});

test('size, margin, level and colors change the image', async () => {
  const url = encodeURIComponent('https://go.example.com/abc');
  assert.deepEqual(pngSize((await get(`url=${url}&size=256`)).rawPayload), { width: 256, height: 256 });
  const svg = await get(`url=${url}&format=svg&fgColor=%23FF0000&bgColor=00f`);
  assert.equal(svg.statusCode, 200);
  assert.equal(svg.headers['content-type'], 'image/svg+xml');
  assert.match(svg.body, /^<svg /);
  assert.match(svg.body, /#ff0000/i);
  assert.match(svg.body, /#0000ff/i);
  const low = (await get(`url=${url}&format=svg&level=L`)).body;
  const high = (await get(`url=${url}&format=svg&level=H`)).body;
  assert.notEqual(low, high);
  const m0 = (await get(`url=${url}&format=svg&margin=0`)).body;
  const m2 = (await get(`url=${url}&format=svg`)).body;
  assert.notEqual(m0, m2);
  assert.equal((await get(`url=${url}&format=svg&includeMargin=false`)).body, m0, 'deprecated includeMargin=false means no margin');
  assert.equal((await get(`url=${url}&logo=${encodeURIComponent('https://img.example/l.png')}&hideLogo=true`)).statusCode, 200, 'logo parameters are accepted');
});

test('SVG when the client accepts SVG and not PNG', async () => {
  const res = await get(`url=${encodeURIComponent('https://go.example.com/abc')}`, { accept: 'image/svg+xml' });
  assert.equal(res.headers['content-type'], 'image/svg+xml');
  assert.equal(wantsSvg(undefined, 'image/png,image/svg+xml'), false);
  assert.equal(wantsSvg('png', 'image/svg+xml'), false);
  assert.equal(wantsSvg(undefined, undefined), false);
});

test('bad input is 422 with the field named', async () => {
  const cases: [string, RegExp][] = [
    ['', /url/],
    ['url=not-a-url', /url/],
    [`url=${encodeURIComponent('ftp://example.com/x')}`, /url/],
    [`url=${encodeURIComponent('javascript:alert(1)')}`, /url/],
    [`url=https://example.com&size=10`, /size/],
    [`url=https://example.com&size=99999`, /size/],
    [`url=https://example.com&size=abc`, /size/],
    [`url=https://example.com&level=X`, /level/],
    [`url=https://example.com&fgColor=red`, /fgColor/],
    [`url=https://example.com&margin=-1`, /margin/],
    [`url=https://example.com&format=gif`, /format/],
    // Within the 2,000-character limit, but more than a version-40 code holds at level H.
    [`url=https://example.com/${'a'.repeat(1900)}&level=H`, /^url: .*too big/i],
  ];
  for (const [query, field] of cases) {
    const res = await get(query);
    assert.equal(res.statusCode, 422, query);
    assert.equal(res.json().error.code, 'unprocessable_entity');
    assert.match(res.json().error.message, field, query);
  }
});

test('the dub SDK reads the QR code', async () => {
  const dub = new Dub({ token: t.key, serverURL: await t.listen() });
  const png = await dub.qrCodes.get({ url: 'https://go.example.com/abc' });
  assert.equal(typeof png, 'string');
  assert.ok(png.length > 100);
});
