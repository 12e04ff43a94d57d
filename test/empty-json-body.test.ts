/**
 * `Content-Type: application/json` with no body, on every documented operation (read from
 * `/openapi.json`, so a route added later is covered the day it is documented), over a raw socket
 * and through the `dub` SDK. HTTP clients send it on DELETE and GET, and the SDK on an update
 * without fields; the published API accepts it. An operation that takes no body answers as it
 * does without the header, and one that takes a body answers as it does for `{}`.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Dub } from 'dub';
import { HTTPClient } from 'dub/lib/http.js';
import * as errors from 'dub/models/errors';
import { createTestApp, type TestApp } from '../src/test-support/harness.js';
import { operations, type OpenApiDoc, type Operation } from '../src/test-support/openapi-ops.js';
import { rawRequest, type RawResponse } from '../src/test-support/raw-http.js';
import { hit } from '../src/redirect/testing.js';

let t: TestApp;
let port: number;
let baseUrl: string;
let doc: OpenApiDoc;
let n = 0;

before(async () => {
  t = await createTestApp();
  baseUrl = await t.listen();
  port = Number(new URL(baseUrl).port);
  doc = (await t.inject({ method: 'GET', url: '/openapi.json' })).json();
});
after(() => t.close());

/**
 * Resources for one call, by `<first path segment>:<parameter name>` as the fuzz test names them:
 * fresh ones for a call that changes state (a DELETE of one call must not leave the next a 404),
 * shared ones for a GET. Only what the path names is created.
 */
let shared: Record<string, string> | undefined;
async function idsFor(op: Operation): Promise<Record<string, string>> {
  if (op.method === 'GET') return (shared ??= await seed(op.path.includes('{') ? ALL : []));
  return seed(op.params.filter((p) => p.in === 'path').map((p) => `${op.path.split('/')[1]}:${p.name}`));
}
const ALL = ['tags:id', 'folders:id', 'domains:slug', 'links:linkId', 'customers:id', 'webhooks:webhookId', 'webhooks:deliveryId'];

async function seed(wanted: readonly string[]): Promise<Record<string, string>> {
  const i = ++n;
  const make = async (url: string, payload: object) => {
    const res = await t.inject({ method: 'POST', url, payload });
    assert.ok(res.statusCode < 300, `${url}: ${res.statusCode} ${res.body}`);
    return res.json();
  };
  const want = new Set(wanted);
  const ids: Record<string, string> = { 'workspaces:idOrSlug': t.workspaceId };
  if (want.has('tags:id')) ids['tags:id'] = (await make('/tags', { name: `empty-${i}` })).id;
  if (want.has('folders:id')) ids['folders:id'] = (await make('/folders', { name: `empty-${i}` })).id;
  if (want.has('domains:slug') || want.has('links:linkId') || want.has('customers:id')) {
    ids['domains:slug'] = (await make('/domains', { slug: `empty-${i}.example` })).slug;
    ids['links:linkId'] = (await make('/links', { url: 'https://example.com/empty', domain: ids['domains:slug'], key: `k${i}`, trackConversion: true })).id;
  }
  if (want.has('customers:id')) {
    // A customer comes from a lead on a click.
    const visit = await hit(baseUrl, `/k${i}`, { host: ids['domains:slug']!, headers: { 'user-agent': 'Mozilla/5.0 Chrome/126.0' } });
    const clickId = new URL(visit.location!).searchParams.get('waymark_id')!;
    await make('/track/lead', { clickId, eventName: 'Sign up', customerExternalId: `empty-${i}`, mode: 'wait' });
    ids['customers:id'] = (await t.inject({ method: 'GET', url: `/customers?externalId=empty-${i}` })).json()[0].id;
  }
  if (want.has('webhooks:webhookId') || want.has('webhooks:deliveryId')) {
    ids['webhooks:webhookId'] = (await make('/webhooks', { name: `empty-${i}`, url: 'https://hooks.invalid/empty', triggers: ['link.created'] })).id;
    ids['webhooks:deliveryId'] = (await make(`/webhooks/${ids['webhooks:webhookId']}/test`, { trigger: 'link.created' })).id;
  }
  return ids;
}

function pathOf(op: Operation, ids: Record<string, string>): string {
  let path = op.path;
  for (const p of op.params.filter((x) => x.in === 'path')) {
    path = path.replace(`{${p.name}}`, encodeURIComponent(ids[`${op.path.split('/')[1]}:${p.name}`] ?? 'missing'));
  }
  return path;
}

function send(method: string, path: string, headers: string[], body = ''): Promise<RawResponse> {
  const lines = [`${method} ${path} HTTP/1.1`, `Host: localhost:${port}`, 'Connection: close', `Authorization: Bearer ${t.key}`, ...headers];
  return rawRequest(port, `${lines.join('\r\n')}\r\n\r\n${body}`);
}

/** What a comparison looks at: the status, and for a refusal its code and message. */
function outcome(res: RawResponse): unknown {
  if (res.status < 400) return { status: res.status };
  const { code, message } = JSON.parse(res.body).error;
  return { status: res.status, code, message };
}

test('every documented operation: an empty JSON body answers as no body (no body taken) or as {} (a body taken)', async () => {
  const ops = operations(doc);
  const methods = new Set<string>();
  for (const op of ops) {
    methods.add(op.method);
    // The reference: without the header where the operation takes no body, `{}` where it takes one.
    const reference = op.body
      ? await send(op.method, pathOf(op, await idsFor(op)), ['Content-Type: application/json', 'Content-Length: 2'], '{}')
      : await send(op.method, pathOf(op, await idsFor(op)), []);
    const empty = await send(op.method, pathOf(op, await idsFor(op)), ['Content-Type: application/json', 'Content-Length: 0']);
    assert.ok(empty.status < 500, `${op.name}: ${empty.status} ${empty.body}`);
    assert.deepEqual(outcome(empty), outcome(reference), `${op.name}: an empty JSON body answered ${empty.status} ${empty.body.slice(0, 300)}`);
    // A chunked body of no bytes is the same request.
    const chunked = await send(op.method, pathOf(op, await idsFor(op)), ['Content-Type: application/json', 'Transfer-Encoding: chunked'], '0\r\n\r\n');
    assert.deepEqual(outcome(chunked), outcome(reference), `${op.name} (chunked): ${chunked.status} ${chunked.body.slice(0, 300)}`);
  }
  assert.deepEqual([...methods].sort(), ['DELETE', 'GET', 'PATCH', 'POST', 'PUT'], 'every method is covered');
});

test('an empty JSON body is {} where every field is optional: the update changes nothing and answers 200', async () => {
  const ids = await seed(ALL);
  for (const [path, field, expected] of [
    [`/tags/${ids['tags:id']}`, 'name', `empty-${n}`],
    [`/links/${ids['links:linkId']}`, 'url', 'https://example.com/empty'],
    [`/folders/${ids['folders:id']}`, 'name', `empty-${n}`],
  ] as const) {
    const res = await send('PATCH', path, ['Content-Type: application/json', 'Content-Length: 0']);
    assert.equal(res.status, 200, `${path}: ${res.body}`);
    assert.equal(JSON.parse(res.body)[field], expected, path);
  }
  // A required field is missing, as in `{}`: the spec's validation error.
  const res = await send('POST', '/track/lead', ['Content-Type: application/json', 'Content-Length: 0']);
  assert.equal(res.status, 422, res.body);
  assert.equal(JSON.parse(res.body).error.code, 'unprocessable_entity');
});

test('through the dub SDK: calls without a body send application/json and no bytes, and are answered', async () => {
  const sent: { method: string; path: string; type: string | null; bytes: number }[] = [];
  const httpClient = new HTTPClient({
    fetcher: async (input, init) => {
      const request = input instanceof Request ? input : new Request(input, init);
      const bytes = (await request.clone().arrayBuffer()).byteLength;
      sent.push({ method: request.method, path: new URL(request.url).pathname, type: request.headers.get('content-type'), bytes });
      return fetch(request);
    },
  });
  const dub = new Dub({ token: t.key, serverURL: baseUrl, httpClient });
  const ids = await seed(ALL);

  assert.equal((await dub.tags.update(ids['tags:id']!)).id, ids['tags:id']);
  assert.equal((await dub.folders.update(ids['folders:id']!)).id, ids['folders:id']);
  assert.equal((await dub.domains.update(ids['domains:slug']!)).slug, ids['domains:slug']);
  assert.equal((await dub.links.update(ids['links:linkId']!)).id, ids['links:linkId']);
  assert.equal((await dub.customers.update({ id: ids['customers:id']! })).id, ids['customers:id']);
  // Required fields missing, as in `{}`: the typed validation error, not a 400 about the body.
  await assert.rejects(dub.tags.create(), (err: unknown) => err instanceof errors.UnprocessableEntity);
  await assert.rejects(dub.track.lead(), (err: unknown) => err instanceof errors.UnprocessableEntity);
  await assert.rejects(dub.links.create(), (err: unknown) => err instanceof errors.BadRequest || err instanceof errors.UnprocessableEntity);

  const bodiless = sent.filter((s) => s.type === 'application/json' && s.bytes === 0);
  assert.deepEqual(
    bodiless.map((s) => `${s.method} ${s.path.split('/')[1]}`),
    ['PATCH tags', 'PATCH folders', 'PATCH domains', 'PATCH links', 'PATCH customers', 'POST tags', 'POST track', 'POST links'],
    'the SDK sent each of these with a JSON content type and no body',
  );
  // A DELETE and a GET as the SDK sends them (no content type) still work beside them.
  assert.equal((await dub.tags.delete(ids['tags:id']!)).id, ids['tags:id']);
  assert.ok(Array.isArray(await dub.tags.list()));
});
