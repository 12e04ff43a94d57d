/**
 * A destination's social card (page-card.ts): read from og, twitter and plain tags as a browser
 * parses them; fetched from a local server within the size and time bounds, following redirects;
 * refused on a private address unless allowed (the webhooks' rule).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { READ_LIMITS, UnreadablePage, fetchPageCard, readCard } from './page-card.js';

test('readCard: og tags first, then twitter, then <title> and the description meta; entities decoded, image made absolute', () => {
  const og = readCard(
    `<html><head><title>Plain</title><meta property="og:title" content="Spring &amp; summer">
     <meta name="description" content="plain description"><meta property="og:description" content="  The   collection  ">
     <meta property="og:image" content="/img/card.png"></head><body></body></html>`,
    'https://shop.example.com/p/1',
  );
  assert.deepEqual(og, { title: 'Spring & summer', description: 'The collection', image: 'https://shop.example.com/img/card.png' });
  const twitter = readCard('<meta name="twitter:title" content="T"><meta name="twitter:image" content="https://cdn.example.com/t.jpg">', 'https://a.example/');
  assert.deepEqual(twitter, { title: 'T', description: '', image: 'https://cdn.example.com/t.jpg' });
  const plain = readCard('<title>\n  Just a title </title><meta name="Description" content="Words">', 'https://a.example/');
  assert.deepEqual(plain, { title: 'Just a title', description: 'Words', image: '' });
  assert.equal(readCard('<meta property="og:image" content="javascript:alert(1)">', 'https://a.example/').image, '', 'only http(s) images');
  assert.equal(readCard('<svg><title>icon</title></svg><template><title>x</title></template>', 'https://a.example/').title, '', 'titles of SVG and templates are not the page’s');
  const long = readCard(`<meta property="og:title" content="${'t'.repeat(300)}"><meta property="og:description" content="${'d'.repeat(500)}">`, 'https://a.example/');
  assert.equal(long.title.length, 120);
  assert.equal(long.description.length, 240);
});

test('readCard walks without recursion: deep nesting and too many elements are refused, a page within the bounds is read in document order', () => {
  // 100,000 nested elements: a recursive walk overflowed the call stack here.
  const deep = `<head><meta property="og:title" content="Deep"></head><body>${'<div>'.repeat(100_000)}</body>`;
  assert.throws(() => readCard(deep, 'https://a.example/'), UnreadablePage);
  const depthOnly = `<title>t</title>${'<span>'.repeat(READ_LIMITS.depth + 10)}`;
  assert.throws(() => readCard(depthOnly, 'https://a.example/'), (err: Error) => err instanceof UnreadablePage && /nested too deeply/.test(err.message));
  const wide = `<title>t</title>${'<p>x</p>'.repeat(READ_LIMITS.nodes + 1)}`;
  assert.throws(() => readCard(wide, 'https://a.example/'), (err: Error) => err instanceof UnreadablePage && /too many elements/.test(err.message));
  // Within the bounds (nested 500 deep, 20,000 elements), read as before; the first <title> wins.
  const fine = `<title>First</title><meta property="og:image" content="/c.png">${'<div>'.repeat(500)}<title>Second</title>${'<p>x</p>'.repeat(9_000)}`;
  assert.deepEqual(readCard(fine, 'https://a.example/'), { title: 'First', description: '', image: 'https://a.example/c.png' });
  // The bounds are the caller's to set.
  assert.throws(() => readCard('<div><div><div></div></div></div>', 'https://a.example/', { nodes: 100, depth: 3 }), UnreadablePage);
  assert.equal(readCard('<title>ok</title><div><div></div></div>', 'https://a.example/', { nodes: 100, depth: 10 }).title, 'ok');
});

// A local site: each path is one kind of page.
let server: http.Server;
let base: string;
const served = { bigBytesWritten: 0, bigClosedEarly: false, privateHits: 0 };
before(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/og') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><head><meta property="og:title" content="Local page"><meta property="og:description" content="From a test server"><meta property="og:image" content="/card.png"></head>');
    } else if (req.url === '/moved') {
      res.writeHead(301, { location: '/og' });
      res.end();
    } else if (req.url === '/loop') {
      res.writeHead(302, { location: '/loop' });
      res.end();
    } else if (req.url === '/big') {
      // A head with the card, then megabytes of body, written as fast as the reader takes them.
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('<html><head><meta property="og:title" content="Big page"></head><body>');
      const chunk = Buffer.alloc(64 * 1024, 'a');
      const pump = () => {
        while (served.bigBytesWritten < 8 * 1024 * 1024) {
          served.bigBytesWritten += chunk.length;
          if (!res.write(chunk)) return res.once('drain', pump);
        }
        res.end();
      };
      res.on('close', () => (served.bigClosedEarly = !res.writableFinished));
      pump();
    } else if (req.url === '/nested') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<head><meta property="og:title" content="Nested"></head><body>${'<div>'.repeat(100_000)}`);
    } else if (req.url === '/silent') {
      // Never answers.
    } else if (req.url === '/trickle') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('<html><head><title>Slow');
    } else if (req.url === '/image') {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end('png');
    } else if (req.url === '/private') {
      served.privateHits += 1;
      res.end('<title>Should not be read</title>');
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const allowed = { allowPrivate: true };

test('a page with og tags is read, through a redirect', async () => {
  const direct = await fetchPageCard(`${base}/og`, allowed);
  assert.deepEqual(direct, { ok: true, url: `${base}/og`, truncated: false, card: { title: 'Local page', description: 'From a test server', image: `${base}/card.png` } });
  const moved = await fetchPageCard(`${base}/moved`, allowed);
  assert.equal(moved.ok && moved.url, `${base}/og`);
  const loop = await fetchPageCard(`${base}/loop`, allowed);
  assert.deepEqual(loop, { ok: false, reason: 'The destination redirects more than 3 times.', refused: false });
  const image = await fetchPageCard(`${base}/image`, allowed);
  assert.equal(image.ok, false);
  const missing = await fetchPageCard(`${base}/nothing`, allowed);
  assert.deepEqual(missing, { ok: false, reason: 'The destination answered 404.', refused: false });
});

test('a private address is refused without a request, unless the operator allows it (WEBHOOK_ALLOW_PRIVATE)', async () => {
  const refused = await fetchPageCard(`${base}/private`, { allowPrivate: false });
  assert.equal(refused.ok, false);
  assert.equal(!refused.ok && refused.refused, true);
  const byName = await fetchPageCard(`http://internal.test:${new URL(base).port}/private`, {
    allowPrivate: false,
    resolve: async () => [{ address: '10.0.0.7', family: 4 }],
  });
  assert.equal(!byName.ok && byName.refused, true, 'a name that resolves to a private address');
  assert.equal(served.privateHits, 0, 'the server never saw a request');
});

test('an oversize page is cut at the byte limit, a silent or trickling one at the time limit', async () => {
  const big = await fetchPageCard(`${base}/big`, { ...allowed, maxBytes: 64 * 1024 });
  assert.equal(big.ok, true);
  assert.equal(big.ok && big.truncated, true);
  assert.equal(big.ok && big.card.title, 'Big page', 'the head was read');
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(served.bigClosedEarly, true, 'the connection was closed before the 8 MB were sent');
  assert.ok(served.bigBytesWritten < 8 * 1024 * 1024, `stopped writing after ${served.bigBytesWritten} bytes`);

  const silent = await fetchPageCard(`${base}/silent`, { ...allowed, timeoutMs: 300 });
  assert.deepEqual(silent, { ok: false, reason: 'The destination did not answer within 0.3 seconds.', refused: false });
  const trickle = await fetchPageCard(`${base}/trickle`, { ...allowed, timeoutMs: 300 });
  assert.deepEqual(trickle, { ok: false, reason: 'The destination did not answer within 0.3 seconds.', refused: false }, 'a body still arriving is given up');
});

test('a page of deeply nested elements is answered "could not read the page", not a stack overflow', async () => {
  const nested = await fetchPageCard(`${base}/nested`, allowed);
  assert.equal(nested.ok, false);
  assert.equal(!nested.ok && nested.unreadable, true);
  assert.match(!nested.ok ? nested.reason : '', /^Could not read the page/);
});
