import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSource, describeErrorBody, parseSourceUrl, rateLimitWaitMs, retryAfterMs, SourceError } from './source.js';

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

test('a 429 waits as X-RateLimit-Reset says when there is no Retry-After; without either, a backoff up to a minute', () => {
  const now = 1_700_000_000_000;
  assert.equal(rateLimitWaitMs(new Headers({ 'retry-after': '3', 'x-ratelimit-reset': '99' }), now), 3000);
  assert.equal(rateLimitWaitMs(new Headers({ 'x-ratelimit-reset': String(now / 1000 + 42) }), now), 42_000);
  assert.equal(rateLimitWaitMs(new Headers({ 'x-ratelimit-reset': '15' }), now), 15_000);
  assert.equal(rateLimitWaitMs(new Headers({ 'x-ratelimit-reset': 'soon' }), now), undefined);
  assert.equal(rateLimitWaitMs(new Headers(), now), undefined);
});

test('429s are waited out beyond the attempts of errors, up to maxRateLimitWaitMs', async () => {
  let calls = 0;
  const waits: number[] = [];
  const limited = createSource({
    baseUrl: 'https://s.example', token: 'k', maxAttempts: 2, sleep: async (ms) => void waits.push(ms),
    fetch: (async () => (++calls <= 10 ? new Response('{"message":"RATE_LIMIT_EXCEEDED"}', { status: 429 }) : new Response('[]'))) as unknown as typeof fetch,
  });
  assert.deepEqual(await limited.get('/tags'), []);
  assert.deepEqual(waits, [500, 1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000]);
  const stuck = createSource({
    baseUrl: 'https://s.example', token: 'k', maxRateLimitWaitMs: 5_000, sleep: async () => {},
    fetch: (async () => new Response('{"message":"RATE_LIMIT_EXCEEDED","description":"slow down"}', { status: 429, headers: { 'retry-after': '2' } })) as unknown as typeof fetch,
  });
  await assert.rejects(stuck.get('/tags'), (err: unknown) => err instanceof SourceError && err.status === 429 && /RATE_LIMIT_EXCEEDED: slow down/.test(err.message) && /run the import again later/.test(err.message));
  assert.equal(stuck.requests(), 3);
});

test('error bodies in a line: the published API\'s and Bitly\'s shapes', () => {
  assert.equal(describeErrorBody('{"error":{"code":"unauthorized","message":"Missing key","doc_url":"x"}}'), 'unauthorized: Missing key');
  assert.equal(
    describeErrorBody('{"message":"FORBIDDEN","description":"You are currently forbidden to access this resource.","resource":"bitlinks","errors":[{"field":"group_guid","message":"invalid","error_code":"invalid"}]}'),
    'FORBIDDEN: You are currently forbidden to access this resource.: group_guid invalid',
  );
  assert.equal(describeErrorBody('<html>down</html>'), '<html>down</html>');
});
