import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createQrRenderer, QrRefusedError, type QrOptions } from './render.js';
import { HAS_THREAD_PRIORITIES, threadNices } from '../test-support/threads.js';

const SHORT = 'https://wm.localhost:3000/spring-sale?qr=1';
const options = (text: string, size = 2000): QrOptions => ({ text, format: 'png', size, level: 'L', margin: 2, fg: '#000000', bg: '#ffffff' });

const renderers: ReturnType<typeof createQrRenderer>[] = [];
const renderer = (o?: Parameters<typeof createQrRenderer>[0]) => {
  const r = createQrRenderer(o);
  renderers.push(r);
  return r;
};
after(() => Promise.all(renderers.map((r) => r.close())));

test('the renderer caches by every parameter and shares one drawing between concurrent requests', async () => {
  const qr = renderer();
  const first = qr.render(options(SHORT));
  assert.equal(qr.render(options(SHORT)), first, 'a request while the same image is drawn waits for that drawing');
  const image = await first;
  assert.equal(image.contentType, 'image/png');
  assert.ok(Buffer.isBuffer(image.body));
  assert.equal((image.body as Buffer).readUInt32BE(16), 2000);
  assert.equal(await qr.render(options(SHORT)), image, 'then the cached image');
  assert.notEqual(await qr.render(options(SHORT, 600)), image, 'another size is another image');
  const svg = await qr.render({ ...options(SHORT), format: 'svg' });
  assert.equal(svg.contentType, 'image/svg+xml');
  assert.match(svg.body as string, /^<svg /);
  assert.equal(qr.stats().entries, 3);
});

test('the cache is bounded by bytes as well as by entries', async () => {
  const qr = renderer({ maxEntries: 100, maxBytes: 20_000 });
  let drawn = 0;
  for (let i = 0; i < 20; i++) drawn += ((await qr.render(options(`${SHORT}&n=${i}`))).body as Buffer).length;
  assert.ok(drawn > 40_000, `the images together (${drawn} bytes) exceed the bound`);
  assert.ok(qr.stats().bytes <= 20_000, `held ${qr.stats().bytes} bytes`);
  assert.ok(qr.stats().entries < 20);
  const few = renderer({ maxEntries: 3 });
  for (let i = 0; i < 5; i++) await few.render(options(`${SHORT}&n=${i}`, 64));
  assert.equal(few.stats().entries, 3);
});

test('data beyond a version-40 code is refused (QrRefusedError) and not cached', async () => {
  const qr = renderer();
  await assert.rejects(qr.render({ ...options(`https://example.com/${'x'.repeat(3000)}`), level: 'H' }), (err) => err instanceof QrRefusedError && /too big/i.test(err.message));
  assert.equal(qr.stats().entries, 0);
  assert.equal((await qr.render(options(SHORT, 64))).contentType, 'image/png', 'and the thread goes on drawing');
});

test('codes are drawn on a thread of their own, at the nice value given', { skip: !HAS_THREAD_PRIORITIES && 'needs per-thread nice values (Linux)' }, async () => {
  const before = threadNices().filter((n) => n === 13).length;
  const qr = renderer({ nice: 13 });
  await qr.render(options(SHORT, 64));
  assert.equal(threadNices().filter((n) => n === 13).length, before + 1);
  await qr.close();
  assert.equal(threadNices().filter((n) => n === 13).length, before, 'close stops the thread');
  assert.equal((await qr.render(options(`${SHORT}&again`, 64))).contentType, 'image/png', 'the next render starts it again');
});
