/**
 * The MCP server driven by the official SDK's client over real HTTP (StreamableHTTPClientTransport
 * against a listening test app): every tool and resource, the key's scopes and plan, workspace
 * isolation, the API's validation messages, and the API's rate limit.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { insertClick, readLink } from '../test-support/conversions.js';
import { addDomain, addTag } from '../links/test-fixtures.js';

let t: TestApp;
let baseUrl: string;
const clients: Client[] = [];

async function connect(key: string, url = baseUrl): Promise<Client> {
  const client = new Client({ name: 'waymark-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', url), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  clients.push(client);
  return client;
}

/** A tool's answer: its text parts joined, and whether it is a tool error. */
async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<{ text: string; isError: boolean; result: CallToolResult }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n');
  return { text, isError: result.isError === true, result };
}

/** The API's error body a tool error carries. */
function apiError(answer: { text: string; isError: boolean }): { code: string; message: string; doc_url: string } {
  assert.equal(answer.isError, true, `expected a tool error, got ${answer.text}`);
  return (JSON.parse(answer.text) as { error: { code: string; message: string; doc_url: string } }).error;
}

/** Rows of a compact table as objects keyed by its header. */
function rows(tableText: string): Record<string, string>[] {
  if (tableText === '(no rows)') return [];
  const [header, , ...lines] = tableText.split('\n');
  const columns = header!.split(' | ');
  return lines.map((line) => Object.fromEntries(line.split(' | ').map((v, i) => [columns[i]!, v])));
}

let client: Client;

before(async () => {
  t = await createTestApp();
  baseUrl = await t.listen();
  client = await connect(t.key);
});
after(async () => {
  for (const c of clients) await c.close();
  await t.close();
});

test('the server lists every tool with the JSON Schema of its API request schema, and the resources', async () => {
  const { tools } = await client.listTools();
  assert.deepEqual(
    tools.map((x) => x.name).sort(),
    ['analytics', 'archive_link', 'create_link', 'find_links', 'get_link', 'link_qr_code', 'list_customers', 'list_domains', 'list_events', 'list_tags', 'update_link'],
  );
  const create = tools.find((x) => x.name === 'create_link')!;
  assert.equal(create.inputSchema.type, 'object');
  for (const field of ['url', 'domain', 'key', 'tagNames', 'utm_source', 'expiresAt', 'password', 'testVariants']) assert.ok(create.inputSchema.properties?.[field], field);
  assert.equal(create.annotations?.readOnlyHint, false);
  assert.equal(tools.find((x) => x.name === 'find_links')!.annotations?.readOnlyHint, true);

  const { resources } = await client.listResources();
  assert.deepEqual(resources.map((r) => r.uri).sort(), ['waymark://links', 'waymark://links/top']);
  const { resourceTemplates } = await client.listResourceTemplates();
  assert.deepEqual(resourceTemplates.map((r) => r.uriTemplate), ['waymark://links/{linkId}']);
});

test('create_link stores tags, UTM, expiry, password and A/B variants, as POST /links does', async () => {
  await addDomain(t, 'go.mcp.test');
  await addTag(t, 'Launch', { color: 'blue' });
  const answer = await call(client, 'create_link', {
    url: 'https://shop.example.com/spring',
    domain: 'go.mcp.test',
    key: 'spring',
    tagNames: ['Launch'],
    utm_source: 'assistant',
    utm_campaign: 'spring',
    expiresAt: '2031-01-01T00:00:00Z',
    expiredUrl: 'https://shop.example.com/over',
    password: 'hunter2',
    testVariants: [
      { url: 'https://shop.example.com/a', percentage: 60 },
      { url: 'https://shop.example.com/b', percentage: 40 },
    ],
    testCompletedAt: '2030-06-01T00:00:00Z',
    trackConversion: true,
  });
  assert.equal(answer.isError, false, answer.text);
  const link = JSON.parse(answer.text);
  assert.equal(link.shortLink, 'http://go.mcp.test/spring');
  assert.deepEqual(link.tags.map((x: { name: string }) => x.name), ['Launch']);
  assert.equal(link.utm_source, 'assistant');
  // The service adds the UTM parameters to the destination, as it does for the API.
  assert.match(link.url, /utm_source=assistant/);
  assert.equal(link.expiresAt, '2031-01-01T00:00:00.000Z');
  assert.equal(link.password, 'hunter2');
  assert.deepEqual(link.testVariants, [
    { url: 'https://shop.example.com/a', percentage: 60 },
    { url: 'https://shop.example.com/b', percentage: 40 },
  ]);
  // Audited as an API change by this key, from the client's address.
  const entry = await t.ctx.database.db.selectFrom('audit_log').selectAll().where('target', '=', link.id).where('action', '=', 'link.create').executeTakeFirstOrThrow();
  assert.equal(entry.actor_type, 'api_key');
  assert.equal(entry.actor_id, link.userId);
  assert.equal(entry.ip, '127.0.0.1');
  // The same link through the REST API: one store, one answer.
  const rest = await t.inject({ method: 'GET', url: `/links/${link.id}` });
  assert.deepEqual(rest.json(), link);
});

test('update_link, archive_link, get_link and find_links read and change links through the links service', async () => {
  const link = JSON.parse((await call(client, 'create_link', { url: 'https://shop.example.com/update-me', key: 'update-me' })).text);
  const updated = JSON.parse((await call(client, 'update_link', { linkId: link.id, title: 'Renamed', utm_medium: 'chat' })).text);
  assert.equal(updated.title, 'Renamed');
  assert.equal(updated.utm_medium, 'chat');

  const archived = JSON.parse((await call(client, 'archive_link', { linkId: link.id })).text);
  assert.equal(archived.archived, true);
  assert.equal((await readLink(t, link.id)).archived, 1);

  const byKey = JSON.parse((await call(client, 'get_link', { domain: link.domain, key: 'update-me' })).text);
  assert.equal(byKey.id, link.id);

  const hidden = rows((await call(client, 'find_links', { search: 'update-me' })).text);
  assert.deepEqual(hidden, []);
  const found = rows((await call(client, 'find_links', { search: 'update-me', showArchived: 'true' })).text);
  assert.equal(found.length, 1);
  assert.equal(found[0]!.id, link.id);
  assert.equal(found[0]!.archived, 'true');
  assert.equal(found[0]!.url, 'https://shop.example.com/update-me?utm_medium=chat');

  const restored = JSON.parse((await call(client, 'archive_link', { linkId: link.id, archived: false })).text);
  assert.equal(restored.archived, false);
});

test('list_domains and list_tags answer tables of the workspace', async () => {
  await addDomain(t, 'links.mcp.test');
  await addTag(t, 'Zebra', { color: 'green' });
  const domains = rows((await call(client, 'list_domains')).text);
  assert.ok(domains.some((d) => d.slug === 'links.mcp.test' && d.archived === 'false'), JSON.stringify(domains));
  const tags = rows((await call(client, 'list_tags', { search: 'Zeb' })).text);
  assert.deepEqual(tags.map((x) => [x.name, x.color]), [['Zebra', 'green']]);
});

test('analytics, list_events and list_customers answer compact tables of recorded clicks and leads', async () => {
  const link = JSON.parse((await call(client, 'create_link', { url: 'https://shop.example.com/tracked', key: 'tracked', trackConversion: true })).text);
  const row = await readLink(t, link.id);
  const click = await insertClick(t, row, { country: 'FR', city: 'Paris' });
  await insertClick(t, row, { country: 'FR', city: 'Lyon' });
  await insertClick(t, row, { country: 'DE' });
  const lead = await t.inject({ method: 'POST', url: '/track/lead', payload: { clickId: click.click_id, eventName: 'Sign up', customerExternalId: 'cust-1', customerEmail: 'ada@example.com', mode: 'wait' } });
  assert.equal(lead.statusCode, 200, lead.body);

  const count = rows((await call(client, 'analytics', { linkId: link.id, event: 'composite' })).text);
  assert.deepEqual(count, [{ clicks: '3', leads: '1', sales: '0', saleAmount: '0' }]);

  const countries = rows((await call(client, 'analytics', { linkId: link.id, groupBy: 'countries' })).text);
  assert.deepEqual(countries.map((r) => [r.country, r.clicks]), [['FR', '2'], ['DE', '1']]);
  const filtered = rows((await call(client, 'analytics', { linkId: link.id, groupBy: 'cities', country: 'FR' })).text);
  assert.deepEqual(filtered.map((r) => r.city).sort(), ['Lyon', 'Paris']);

  const clicks = rows((await call(client, 'list_events', { linkId: link.id })).text);
  assert.equal(clicks.length, 3);
  assert.ok(clicks.every((e) => e.event === 'click' && e.link === 'http://wm.localhost:3999/tracked'));
  const leads = rows((await call(client, 'list_events', { linkId: link.id, event: 'leads' })).text);
  assert.deepEqual(leads.map((e) => [e.event, e.eventName, e.customer]), [['lead', 'Sign up', 'ada@example.com']]);

  const customers = rows((await call(client, 'list_customers', { externalId: 'cust-1' })).text);
  assert.deepEqual(customers.map((c) => [c.externalId, c.email]), [['cust-1', 'ada@example.com']]);

  // The top-links resource reads the same analytics.
  const top = await client.readResource({ uri: 'waymark://links/top' });
  const topRows = JSON.parse((top.contents[0] as { text: string }).text) as { id?: string; link?: string; clicks: number }[];
  assert.ok(topRows.some((r) => (r.id ?? r.link) === link.id && r.clicks === 3), JSON.stringify(topRows));
});

test("link_qr_code answers a PNG of the short link, or an SVG", async () => {
  const link = JSON.parse((await call(client, 'create_link', { url: 'https://shop.example.com/qr', key: 'qr-me' })).text);
  const png = await call(client, 'link_qr_code', { linkId: link.id, size: 200 });
  assert.equal(png.isError, false, png.text);
  const image = png.result.content.find((c) => c.type === 'image') as { data: string; mimeType: string };
  assert.equal(image.mimeType, 'image/png');
  assert.deepEqual([...Buffer.from(image.data, 'base64').subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  assert.match(png.text, /http:\/\/wm\.localhost:3999\/qr-me/);
  const svg = await call(client, 'link_qr_code', { linkId: link.id, format: 'svg' });
  const svgImage = svg.result.content.find((c) => c.type === 'image') as { data: string; mimeType: string };
  assert.equal(svgImage.mimeType, 'image/svg+xml');
  assert.match(Buffer.from(svgImage.data, 'base64').toString(), /^<svg/);
});

test('the links resource and the link template read the workspace links as JSON', async () => {
  const link = JSON.parse((await call(client, 'create_link', { url: 'https://shop.example.com/resource', key: 'as-resource' })).text);
  const all = await client.readResource({ uri: 'waymark://links' });
  const list = JSON.parse((all.contents[0] as { text: string }).text) as { id: string }[];
  assert.ok(list.some((l) => l.id === link.id));
  const one = await client.readResource({ uri: `waymark://links/${link.id}` });
  assert.equal(JSON.parse((one.contents[0] as { text: string }).text).id, link.id);
});

test('a links.read key finds links but cannot create, update or archive one: the API 403 as a tool error', async () => {
  const link = JSON.parse((await call(client, 'create_link', { url: 'https://shop.example.com/ro', key: 'read-only' })).text);
  const { key } = await t.ctx.workspaces.createKey(t.workspaceId, { name: 'reader', scopes: ['links.read'] });
  const reader = await connect(key);
  assert.equal(rows((await call(reader, 'find_links', { search: 'read-only' })).text).length, 1);

  const refused = apiError(await call(reader, 'create_link', { url: 'https://shop.example.com/nope' }));
  assert.equal(refused.code, 'forbidden');
  assert.match(refused.message, /'links\.write' scope/);
  assert.equal(apiError(await call(reader, 'update_link', { linkId: link.id, title: 'x' })).code, 'forbidden');
  assert.equal(apiError(await call(reader, 'archive_link', { linkId: link.id })).code, 'forbidden');
  assert.equal(apiError(await call(reader, 'analytics', {})).code, 'forbidden');
  await assert.rejects(reader.readResource({ uri: 'waymark://links/top' }), /'analytics\.read' scope/);
  assert.equal((await readLink(t, link.id)).title, null);
  const count = await t.ctx.database.db.selectFrom('links').select((eb) => eb.fn.countAll<number>().as('n')).where('url', '=', 'https://shop.example.com/nope').executeTakeFirstOrThrow();
  assert.equal(Number(count.n), 0);
});

test("another workspace's link is not found, by any tool or resource", async () => {
  const link = JSON.parse((await call(client, 'create_link', { url: 'https://shop.example.com/mine', key: 'mine' })).text);
  const other = await t.addWorkspace();
  const stranger = await connect(other.key);
  for (const [name, args] of [
    ['get_link', { linkId: link.id }],
    ['update_link', { linkId: link.id, title: 'taken' }],
    ['archive_link', { linkId: link.id }],
    ['link_qr_code', { linkId: link.id }],
  ] as const) {
    const error = apiError(await call(stranger, name, args));
    assert.equal(error.code, 'not_found', name);
  }
  assert.deepEqual(rows((await call(stranger, 'find_links', { search: 'mine' })).text), []);
  await assert.rejects(stranger.readResource({ uri: `waymark://links/${link.id}` }), /not found/i);
  await assert.rejects(stranger.readResource({ uri: 'waymark://links/%E0%A4%A' }), /Resource not found/);
  await assert.rejects(stranger.readResource({ uri: 'waymark://elsewhere' }), /Resource not found/);
  assert.equal((await readLink(t, link.id)).archived, 0);
});

test('bad input is refused with the API validation message, naming the field', async () => {
  const badUrl = apiError(await call(client, 'create_link', { url: 'javascript:alert(1)' }));
  assert.equal(badUrl.code, 'unprocessable_entity');
  const rest = await t.inject({ method: 'POST', url: '/links', payload: { url: 'javascript:alert(1)' } });
  assert.equal(badUrl.message, rest.json().error.message);

  const badDate = apiError(await call(client, 'create_link', { url: 'https://shop.example.com/x', expiresAt: 'tomorrow' }));
  assert.equal(badDate.message, 'custom: expiresAt: Invalid expiration date: expected an ISO-8601 date-time.');
  const badVariants = apiError(await call(client, 'create_link', { url: 'https://shop.example.com/x', testVariants: [{ url: 'https://a.example.com', percentage: 5 }, { url: 'https://b.example.com', percentage: 95 }] }));
  assert.match(badVariants.message, /^too_small: testVariants\[0\]\.percentage: /);
  const badGroup = apiError(await call(client, 'analytics', { groupBy: 'planets' }));
  assert.match(badGroup.message, /^invalid_value: groupBy: Invalid type value\. Valid values are: count, timeseries/);
  // A refusal of the service (not the schema) carries its message too.
  const taken = apiError(await call(client, 'create_link', { url: 'https://shop.example.com/y', key: 'mine' }));
  assert.equal(taken.code, 'conflict');

  await assert.rejects(client.callTool({ name: 'delete_everything', arguments: {} }), /Unknown tool "delete_everything"/);
});

test('a plan below Business is refused list_events and list_customers with the API message', async () => {
  const pro = await t.addWorkspace('pro');
  const proClient = await connect(pro.key);
  const events = apiError(await call(proClient, 'list_events'));
  assert.equal(events.code, 'forbidden');
  assert.match(events.message, /Business plan or higher; this workspace is on the Pro plan/);
  assert.equal(apiError(await call(proClient, 'list_customers')).code, 'forbidden');
});

test('a missing or invalid key gets the API 401 before any MCP message is read', async () => {
  const res = await fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: 'Bearer wm_not_a_key' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  assert.equal(res.status, 401);
  assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'unauthorized');
  await assert.rejects(connect('wm_not_a_key'), /unauthorized[\s\S]*Invalid API key/);
});

test('GET /mcp is 405 (stateless: no stream), and a JSON-RPC batch is refused', async () => {
  const get = await fetch(`${baseUrl}/mcp`, { headers: { accept: 'text/event-stream' } });
  assert.equal(get.status, 405);
  assert.equal(get.headers.get('allow'), 'POST');
  const batch = await fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${t.key}` },
    body: JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { jsonrpc: '2.0', id: 2, method: 'tools/list' }]),
  });
  assert.equal(batch.status, 400);
  assert.match(((await batch.json()) as { error: { message: string } }).error.message, /one JSON-RPC message per request/);
  // A single message is answered by the SDK's transport, with the rate limiter's headers.
  const one = await fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${t.key}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
  });
  assert.equal(one.status, 200);
  assert.equal(one.headers.get('x-ratelimit-limit'), '100000');
  assert.equal(((await one.json()) as { id: number; result: { tools: unknown[] } }).result.tools.length, 11);
});

test('calls count against the key rate limit as API requests do; analytics tools against the analytics limit', async () => {
  // An analytics limit of 0 refuses every analytics call whatever the timing; the per-minute
  // window is far longer than this test.
  const limited = await createTestApp({ config: { rateLimitPerMinute: 4, analyticsRateLimitPerSecond: 0 } });
  try {
    const url = await limited.listen();
    const c = await connect(limited.key, url);
    // initialize and notifications/initialized were two requests; tools/list is the third.
    await c.listTools();
    await assert.rejects(call(c, 'analytics', {}), /rate_limit_exceeded[\s\S]*per second for this key/);
    await assert.rejects(c.readResource({ uri: 'waymark://links/top' }), /rate_limit_exceeded[\s\S]*per second for this key/);
    // Neither analytics request took from the per-minute limit: the fourth request passes, the fifth does not.
    assert.equal((await call(c, 'list_tags')).isError, false);
    await assert.rejects(call(c, 'list_tags'), /rate_limit_exceeded[\s\S]*limit is 4 per minute for this key/);
  } finally {
    await limited.close();
  }
});
