/**
 * A bounded fuzz of the whole API, driven by `/openapi.json`: for every documented operation,
 * hostile variants of its body (wrong types, invalid JSON and UTF-8, deep and huge values, wrong
 * content types), of each body field, query parameter and path parameter, and of its headers,
 * sent byte for byte over a raw socket. Every answer must be below 500, every answer of 400 or
 * more must carry the spec's error body with a code that belongs to its status, and the server
 * must still be healthy at the end. Short-link hosts get hostile paths too (no 5xx).
 *
 * The variants are drawn from a seeded generator (FUZZ_SEED, printed in every failure), so a
 * failure can be replayed; the number of requests is bounded (about 3,000).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../src/test-support/harness.js';
import { bodyFields, minimalValue, operations, setPath, type OpenApiDoc, type Operation } from '../src/test-support/openapi-ops.js';
import { rawRequest, type RawResponse } from '../src/test-support/raw-http.js';
import { ALL_ERROR_STATUS } from '../src/http/errors.js';
import { seededRandom } from '../src/test-support/seeded-random.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
/** Hostile values tried per body field and per query parameter. */
const PER_FIELD = 4;

/** mulberry32: a small, good-enough seeded generator. */
const random = seededRandom(SEED);
const pick = <T>(items: readonly T[], n: number): T[] => {
  const copy = [...items];
  const out: T[] = [];
  while (out.length < n && copy.length) out.push(copy.splice(Math.floor(random() * copy.length), 1)[0]!);
  return out;
};

const deepObject = (levels: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
};

/** Values for a JSON field: wrong types, edge numbers, huge and strange strings, deep values. */
const FIELD_VALUES: unknown[] = [
  12345, -1, 1.5, 1e308, -0, 2 ** 53 + 1, true, false, null, {}, [], [[[]]], { $gt: '' },
  '', ' ', 'x'.repeat(100_000), '\u0000\u0001\u001f', '😀'.repeat(1_000), '\ud800', '%zz', 'javascript:alert(1)',
  '2026-02-30T00:00:00Z', '9'.repeat(400), Array.from({ length: 10_000 }, () => 'a'), deepObject(60), 'ext_', '../../etc/passwd',
  'https://例え.jp/東京?q=€', '<script>alert(1)</script>',
];

/** A field value nested 5,000 levels deep, spliced into the JSON text (stringifying it overflows here too). */
const DEEP_5000 = '\u0000deep-5000';
const DEEP_5000_TEXT = `${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`;
const jsonWithDeep = (v: unknown) => Buffer.from(JSON.stringify(v).split(JSON.stringify(DEEP_5000)).join(DEEP_5000_TEXT));

/** Raw query values (already in URL form). */
const QUERY_VALUES = ['', '%zz', '%', '%00', 'x'.repeat(8_000), '%F0%9F%98%80', '-1', '1e400', '[]', 'true', '..%2F..', '%C3%28', 'a,b,-c', 'NaN'];

/** Raw path parameter values. */
const PATH_VALUES = ['%zz', '%00', 'x'.repeat(600), '..', '%2F..%2F', '%F0%9F%98%80', '%20', 'ext_', `ext_${'x'.repeat(300)}`, '%C3%28', 'null'];

interface RawCall {
  method: string;
  path: string;
  headers?: Record<string, string>;
  /** Raw header lines, for headers no client would build. */
  rawHeaders?: string[];
  body?: Buffer;
  contentType?: string | null;
}

let t: TestApp;
let port: number;
let doc: OpenApiDoc;
const ids: Record<string, string> = {};
let sent = 0;

function toBytes(call: RawCall): Buffer {
  const lines = [`${call.method} ${call.path} HTTP/1.1`, `Host: localhost:${port}`, 'Connection: close'];
  const headers = { authorization: `Bearer ${t.key}`, ...(call.headers ?? {}) };
  for (const [name, value] of Object.entries(headers)) if (value !== '') lines.push(`${name}: ${value}`);
  lines.push(...(call.rawHeaders ?? []));
  if (call.body) {
    if (call.contentType !== null) lines.push(`Content-Type: ${call.contentType ?? 'application/json'}`);
    lines.push(`Content-Length: ${call.body.length}`);
  }
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), call.body ?? Buffer.alloc(0)]);
}

async function check(call: RawCall, context: string): Promise<RawResponse> {
  sent++;
  const res = await rawRequest(port, toBytes(call));
  const where = `${context} [FUZZ_SEED=${SEED}] ${call.method} ${call.path.slice(0, 120)}`;
  assert.ok(res.status >= 100, `${where}: no HTTP answer (${res.body.slice(0, 200)})`);
  assert.ok(res.status < 500, `${where}: ${res.status} ${res.body.slice(0, 300)}`);
  if (res.status >= 400) {
    let parsed: { error?: { code?: string; message?: string; doc_url?: string } };
    try {
      parsed = JSON.parse(res.body);
    } catch {
      assert.fail(`${where}: ${res.status} without a JSON error body: ${res.body.slice(0, 200)}`);
    }
    const e = parsed.error;
    assert.ok(e && typeof e.message === 'string' && typeof e.doc_url === 'string', `${where}: ${res.status} body ${res.body.slice(0, 200)}`);
    assert.equal(ALL_ERROR_STATUS[e.code as keyof typeof ALL_ERROR_STATUS], res.status, `${where}: code ${e.code} does not belong to ${res.status}`);
    assert.ok(res.body.length < 20_000, `${where}: the error echoes ${res.body.length} bytes`);
  }
  return res;
}

/** A path for the operation with real ids where the name says which, else a placeholder. */
function pathOf(op: Operation, replace?: { name: string; raw: string }): string {
  let path = op.path;
  for (const p of op.params.filter((x) => x.in === 'path')) {
    const value = replace?.name === p.name ? replace.raw : encodeURIComponent(ids[`${op.path.split('/')[1]}:${p.name}`] ?? 'missing');
    path = path.replace(`{${p.name}}`, value);
  }
  return path;
}

function baseBody(op: Operation): unknown {
  if (!op.body) return undefined;
  if (op.body.type === 'array') return [{ url: 'https://example.com/fuzz' }];
  return minimalValue(doc, op.body);
}

before(async () => {
  t = await createTestApp();
  const base = await t.listen();
  port = Number(new URL(base).port);
  doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  const make = async (url: string, payload: object) => (await t.inject({ method: 'POST', url, payload })).json();
  ids['tags:id'] = (await make('/tags', { name: 'fuzz' })).id;
  ids['folders:id'] = (await make('/folders', { name: 'fuzz' })).id;
  ids['domains:slug'] = (await make('/domains', { slug: 'fuzz.example' })).slug;
  ids['links:linkId'] = (await make('/links', { url: 'https://example.com/fuzz', domain: 'fuzz.example', key: 'fuzz' })).id;
  ids['workspaces:idOrSlug'] = t.workspaceId;
  await make('/track/sale', { customerExternalId: 'fuzz-customer', amount: 100, customerName: 'Fuzz', clickId: '' });
  const customers = (await t.inject({ method: 'GET', url: '/customers' })).json();
  ids['customers:id'] = customers[0]?.id ?? 'cus_missing';
  // A receiver nobody listens at: deliveries fail, which is not what this test looks at.
  ids['webhooks:webhookId'] = (await make('/webhooks', { name: 'fuzz', url: 'https://hooks.invalid/fuzz', triggers: ['link.created'] })).id;
  ids['webhooks:deliveryId'] = (await make(`/webhooks/${ids['webhooks:webhookId']}/test`, { trigger: 'link.created' })).id;
});
after(() => t.close());

test('hostile requests to every documented operation: no 5xx, the error body on every refusal', async (ctx) => {
  const ops = operations(doc);
  assert.ok(ops.length >= 30);
  for (const op of ops) {
    const body = baseBody(op);
    const json = (v: unknown) => Buffer.from(JSON.stringify(v));

    if (op.body) {
      // The body as a whole.
      const wholes: [string, Buffer, string | null | undefined][] = [
        ['a string', json('text'), undefined],
        ['a number', json(5), undefined],
        ['null', json(null), undefined],
        ['an array', json([1, 2]), undefined],
        ['truncated JSON', Buffer.from('{"url": "https://exa'), undefined],
        ['unquoted keys', Buffer.from('{url: 1}'), undefined],
        ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d]), undefined],
        ['70 levels deep', json(deepObject(70)), undefined],
        ['empty JSON body', Buffer.alloc(0), undefined],
        ['text/plain', json(body), 'text/plain'],
        ['a form', Buffer.from('url=https%3A%2F%2Fexample.com'), 'application/x-www-form-urlencoded'],
        ['multipart', Buffer.from('--x\r\nContent-Disposition: form-data; name="url"\r\n\r\nhttps://example.com\r\n--x--\r\n'), 'multipart/form-data; boundary=x'],
        ['no content type', json(body), null],
        ['a latin-1 charset', json(body), 'application/json; charset=latin1'],
        ['prototype keys', Buffer.from('{"__proto__": {"admin": true}, "constructor": {"prototype": {"x": 1}}}'), undefined],
      ];
      for (const [name, bytes, contentType] of wholes) {
        await check({ method: op.method, path: pathOf(op), body: bytes, contentType }, `${op.name} body ${name}`);
      }
      // Each field, with a few hostile values.
      const fields = bodyFields(doc, op.body.type === 'array' ? op.body.items : op.body);
      for (const field of fields) {
        // Every field also gets a value nested 5,000 levels deep (it overflowed the stack once).
        for (const value of [...pick(FIELD_VALUES, PER_FIELD), DEEP_5000]) {
          let payload: unknown = structuredClone(body);
          if (Array.isArray(payload)) payload = payload.map((item) => ({ ...(item as object), [field.name]: value }));
          else setPath(payload as Record<string, unknown>, field.path, value);
          await check({ method: op.method, path: pathOf(op), body: jsonWithDeep(payload) }, `${op.name} body.${field.path}=${value === DEEP_5000 ? '5,000 levels' : JSON.stringify(value).slice(0, 40)}`);
        }
      }
    }

    const bodyBytes = body === undefined ? undefined : json(body);
    for (const param of op.params) {
      if (param.in === 'query') {
        for (const value of pick(QUERY_VALUES, PER_FIELD)) {
          await check({ method: op.method, path: `${pathOf(op)}?${param.name}=${value}`, body: bodyBytes }, `${op.name} query ${param.name}`);
        }
        await check({ method: op.method, path: `${pathOf(op)}?${param.name}=a&${param.name}=b&${param.name}[x]=c`, body: bodyBytes }, `${op.name} query ${param.name} repeated`);
      } else {
        for (const raw of PATH_VALUES) {
          await check({ method: op.method, path: pathOf(op, { name: param.name, raw }), body: bodyBytes }, `${op.name} path ${param.name}=${raw.slice(0, 20)}`);
        }
      }
    }

    // Headers.
    const headerCases: [string, RawCall][] = [
      ['a 10 KB key', { method: op.method, path: pathOf(op), headers: { authorization: `Bearer wm_${'x'.repeat(10_000)}` }, body: bodyBytes }],
      ['a Latin-1 key', { method: op.method, path: pathOf(op), headers: { authorization: 'Bearer wm_\xff\xfe' }, body: bodyBytes }],
      ['Basic credentials', { method: op.method, path: pathOf(op), headers: { authorization: 'Basic YTpi' }, body: bodyBytes }],
      ['no credentials', { method: op.method, path: pathOf(op), headers: { authorization: '' }, body: bodyBytes }],
      ['headers over 16 KB', { method: op.method, path: pathOf(op), headers: { 'x-padding': 'p'.repeat(17_000) }, body: bodyBytes }],
      ['a strange Accept', { method: op.method, path: pathOf(op), headers: { accept: 'image/svg+xml;q=0, */*;q=abc' }, body: bodyBytes }],
      ['a broken chunked body', { method: op.method, path: pathOf(op), rawHeaders: ['Content-Type: application/json', 'Transfer-Encoding: chunked'], body: Buffer.from('zz\r\n{}\r\n0\r\n\r\n') }],
    ];
    for (const [name, call] of headerCases) {
      if (call.rawHeaders) {
        // The chunked case carries its own framing: no Content-Length.
        const bytes = Buffer.concat([toBytes({ ...call, body: undefined }).subarray(0, -2), Buffer.from('\r\n'), call.body!]);
        sent++;
        const res = await rawRequest(port, bytes);
        assert.ok(res.status >= 400 && res.status < 500, `${op.name} ${name} [FUZZ_SEED=${SEED}]: ${res.status} ${res.body.slice(0, 200)}`);
        assert.ok(JSON.parse(res.body).error, `${op.name} ${name}: error body`);
        continue;
      }
      await check(call, `${op.name} header ${name}`);
    }
  }

  // Short-link hosts answer pages, not JSON, but never fail either.
  for (const raw of [...PATH_VALUES, '', '.well-known/%zz', 'fuzz?redir_url=javascript:alert(1)', `fuzz?${'a=1&'.repeat(2_000)}`]) {
    sent++;
    const res = await rawRequest(port, `GET /${raw} HTTP/1.1\r\nHost: fuzz.example\r\nUser-Agent: Mozilla/5.0 Chrome/126.0\r\nConnection: close\r\n\r\n`);
    assert.ok(res.status > 0 && res.status < 500, `short link /${raw.slice(0, 40)} [FUZZ_SEED=${SEED}]: ${res.status} ${res.body.slice(0, 200)}`);
  }

  ctx.diagnostic(`${sent} requests, FUZZ_SEED=${SEED}`);
  assert.ok(sent > 1_000 && sent < 6_000, `${sent} requests sent`);
  const health = await rawRequest(port, `GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
  assert.equal(health.status, 200, 'the server is still healthy');
  const list = await t.inject({ method: 'GET', url: '/links' });
  assert.equal(list.statusCode, 200);
});
