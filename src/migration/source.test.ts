import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSource, parseSourceUrl, retryAfterMs, SourceError } from './source.js';

test('only http and https sources, without credentials in the URL', () => {
  assert.equal(parseSourceUrl('https://api.dub.co').href, 'https://api.dub.co/');
  assert.equal(parseSourceUrl('http://127.0.0.1:3000/api?x=1#y').href, 'http://127.0.0.1:3000/api/');
  for (const bad of ['file:///etc/passwd', 'ftp://example.com', 'javascript:alert(1)', 'not a url', 'https://user:pw@example.com']) {
    assert.throws(() => parseSourceUrl(bad), SourceError, bad);
  }
});

test('Retry-After in seconds or as an HTTP date', () => {
  assert.equal(retryAfterMs('7'), 7000);
  assert.equal(retryAfterMs('0'), 0);
  assert.equal(retryAfterMs(new Date(10_000).toUTCString(), 4_000), 6000);
  assert.equal(retryAfterMs(null), undefined);
  assert.equal(retryAfterMs('soon'), undefined);
});

test('429 waits and retries, 5xx gives up after the attempts, 4xx at once; pages stop at a short one', async () => {
  const answers: Response[] = [
    new Response('{}', { status: 429, headers: { 'retry-after': '3' } }),
    new Response(JSON.stringify([1, 2]), { status: 200 }),
    new Response(JSON.stringify([3]), { status: 200 }),
  ];
  const asked: string[] = [];
  const waits: number[] = [];
  const source = createSource({
    baseUrl: 'https://source.example/api',
    token: 'k',
    fetch: (async (url: URL, init: RequestInit) => {
      asked.push(`${url.pathname}${url.search} ${(init.headers as Record<string, string>).authorization}`);
      return answers.shift()!;
    }) as unknown as typeof fetch,
    sleep: async (ms) => void waits.push(ms),
  });
  const pages: number[][] = [];
  for await (const p of source.pages<number>('/tags', {}, { sizeParam: 'pageSize', size: 2 })) pages.push(p.items);
  assert.deepEqual(pages, [[1, 2], [3]]);
  assert.deepEqual(waits, [3000]);
  assert.deepEqual(asked, ['/api/tags?page=1&pageSize=2 Bearer k', '/api/tags?page=1&pageSize=2 Bearer k', '/api/tags?page=2&pageSize=2 Bearer k']);

  const failing = createSource({ baseUrl: 'https://s.example', token: 'k', maxAttempts: 3, sleep: async () => {}, fetch: (async () => new Response('down', { status: 503 })) as unknown as typeof fetch });
  await assert.rejects(failing.get('/links'), (err: unknown) => err instanceof SourceError && err.status === 503);
  assert.equal(failing.requests(), 3);
  const denied = createSource({ baseUrl: 'https://s.example', token: 'k', sleep: async () => {}, fetch: (async () => new Response('no', { status: 401 })) as unknown as typeof fetch });
  await assert.rejects(denied.get('/links'), (err: unknown) => err instanceof SourceError && err.status === 401);
  assert.equal(denied.requests(), 1);
});

test('an answer larger than the cap is refused', async () => {
  const source = createSource({ baseUrl: 'https://s.example', token: 'k', maxBodyBytes: 10, fetch: (async () => new Response(JSON.stringify([1, 2, 3, 4, 5, 6]))) as unknown as typeof fetch });
  await assert.rejects(source.get('/links'), /exceeds 10 bytes/);
});
