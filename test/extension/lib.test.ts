/**
 * The extension's pure parts (extension/lib/), run under Node: the body of POST /links for the
 * popup's choices, the settings' normalisation, the API client's requests and errors, and that
 * each of its requests is an operation of the published API.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const lib = (name: string) => import(pathToFileURL(join(process.cwd(), 'extension/lib', name)).href);
const { linkBody, isShortenable } = await lib('link-body.js');
const { normalizeBaseUrl, cleanTemplates, MAX_TEMPLATES } = await lib('settings.js');
const { createApi, ApiError } = await lib('api.js');

test('linkBody: url, domain, key, tags and the template’s UTM fields; empty choices left out', () => {
  assert.deepEqual(linkBody({ url: ' https://example.com/a ' }), { url: 'https://example.com/a' });
  assert.deepEqual(
    linkBody({ url: 'https://example.com/a', domain: 'go.example.com', key: '/spring ', tagIds: ['tag_1', 'tag_2'], template: { name: 'News', utm_source: 'newsletter', utm_medium: 'email' } }),
    { url: 'https://example.com/a', domain: 'go.example.com', key: 'spring', tagIds: ['tag_1', 'tag_2'], utm_source: 'newsletter', utm_medium: 'email' },
  );
  assert.deepEqual(linkBody({ url: 'https://example.com/a', domain: '', key: '  ', tagIds: [], template: null }), { url: 'https://example.com/a' });
  // Only the five UTM fields travel, whatever a stored template holds.
  assert.deepEqual(linkBody({ url: 'https://e.com/', template: { name: 'x', utm_campaign: 'c', password: 'p' } as never }), { url: 'https://e.com/', utm_campaign: 'c' });
});

test('isShortenable: http(s) pages only', () => {
  assert.equal(isShortenable('https://example.com/'), true);
  assert.equal(isShortenable('http://example.com:8080/a?b'), true);
  for (const url of [undefined, '', 'chrome://newtab/', 'file:///etc/passwd', 'javascript:alert(1)', 'about:blank', 'not a url']) assert.equal(isShortenable(url), false, String(url));
});

test('normalizeBaseUrl: http(s), no trailing slash, no query, fragment or credentials', () => {
  assert.equal(normalizeBaseUrl(' https://links.example.com/ '), 'https://links.example.com');
  assert.equal(normalizeBaseUrl('https://example.com/api//?x=1#y'), 'https://example.com/api');
  assert.equal(normalizeBaseUrl('http://127.0.0.1:3000'), 'http://127.0.0.1:3000');
  for (const bad of ['', 'links.example.com', 'ftp://example.com', 'javascript:alert(1)', 'https://user:pw@example.com']) assert.equal(normalizeBaseUrl(bad), null, bad);
});

test('cleanTemplates: named, trimmed, unique, bounded, unknown fields dropped', () => {
  assert.deepEqual(cleanTemplates('nope'), []);
  assert.deepEqual(
    cleanTemplates([{ name: ' News ', utm_source: ' newsletter ', utm_term: '', evil: '<b>' }, { name: 'News', utm_source: 'again' }, { name: '' }, null, 7]),
    [{ name: 'News', utm_source: 'newsletter' }],
  );
  assert.equal(cleanTemplates(Array.from({ length: MAX_TEMPLATES + 5 }, (_, i) => ({ name: `t${i}` }))).length, MAX_TEMPLATES);
});

test('createApi: bearer key, JSON body, no cookies; an API error carries its code and message', async () => {
  const calls: { url: string; init: RequestInit }[] = [];
  const answers = [
    new Response(JSON.stringify({ id: 'link_1', shortLink: 'https://go.example.com/a' }), { status: 200 }),
    new Response(JSON.stringify({ error: { code: 'conflict', message: 'Duplicate key: This short link already exists.', doc_url: 'x' } }), { status: 409 }),
    new Response('<html>bad gateway</html>', { status: 502 }),
  ];
  const api = createApi({ baseUrl: 'https://links.example.com', apiKey: 'wm_secret' }, async (url: string, init: RequestInit) => {
    calls.push({ url, init });
    return answers.shift()!;
  });
  assert.deepEqual(await api.createLink({ url: 'https://example.com/' }), { id: 'link_1', shortLink: 'https://go.example.com/a' });
  assert.equal(calls[0]!.url, 'https://links.example.com/links');
  assert.equal(calls[0]!.init.method, 'POST');
  assert.equal(calls[0]!.init.credentials, 'omit');
  assert.deepEqual(calls[0]!.init.headers, { authorization: 'Bearer wm_secret', 'content-type': 'application/json' });
  assert.equal(calls[0]!.init.body, '{"url":"https://example.com/"}');

  await assert.rejects(api.linkInfo('link 1&x'), (err: InstanceType<typeof ApiError>) => err instanceof ApiError && err.status === 409 && err.code === 'conflict' && err.message === 'Duplicate key: This short link already exists.');
  assert.equal(calls[1]!.url, 'https://links.example.com/links/info?linkId=link%201%26x');
  await assert.rejects(api.recentLinks(5), /The server answered 502\./);
  assert.equal(calls[2]!.url, 'https://links.example.com/links?pageSize=5');
  assert.equal(api.qrCodeUrl('https://go.example.com/a?b'), 'https://links.example.com/qr?url=https%3A%2F%2Fgo.example.com%2Fa%3Fb&size=360&margin=2');

  const down = createApi({ baseUrl: 'https://down.example', apiKey: 'k' }, async () => {
    throw new TypeError('fetch failed');
  });
  await assert.rejects(down.domains(), (err: InstanceType<typeof ApiError>) => err.code === 'network' && /could not be reached/.test(err.message));
});

/**
 * The published API's operations as the official `dub` SDK calls them: method, path and query
 * parameter names, read from its compiled functions (one file per operation).
 */
function sdkOperations(): { method: string; path: string; query: Set<string> }[] {
  const dir = join(process.cwd(), 'node_modules/dub/dist/esm/funcs');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.js'))
    .flatMap((f) => {
      const source = readFileSync(join(dir, f), 'utf8');
      const path = /pathToFunc\("([^"]+)"/.exec(source)?.[1];
      const method = /method: "([A-Z]+)"/.exec(source)?.[1];
      if (!path || !method) return [];
      // Every `encodeFormQuery({...})` of the operation (lists are encoded apart from scalars).
      const names = [...source.matchAll(/encodeFormQuery\(\{([\s\S]*?)\}/g)].flatMap((block) => [...block[1]!.matchAll(/"([A-Za-z_]+)":/g)].map((m) => m[1]!));
      return [{ method, path, query: new Set(names) }];
    });
}

test('every request the extension makes is an operation of the published API (the official SDK has it)', async () => {
  const operations = sdkOperations();
  assert.ok(operations.length > 30, 'the SDK was read');
  const calls: { method: string; url: URL }[] = [];
  const api = createApi({ baseUrl: 'https://api.example.com', apiKey: 'k' }, async (url: string, init: RequestInit) => {
    calls.push({ method: String(init.method), url: new URL(url) });
    return new Response('[]', { status: 200 });
  });
  await api.domains();
  await api.tags();
  await api.createLink({ url: 'https://example.com/' });
  await api.recentLinks(5);
  await api.linkInfo('link_1');
  calls.push({ method: 'GET', url: new URL(api.qrCodeUrl('https://go.example.com/a')) });
  for (const { method, url } of calls) {
    const op = operations.find((o) => o.method === method && o.path === url.pathname);
    assert.ok(op, `${method} ${url.pathname} is a published operation`);
    for (const name of url.searchParams.keys()) assert.ok(op.query.has(name), `${method} ${url.pathname}: ?${name} is a published parameter`);
  }
});
