/**
 * Workspace isolation, driven by `/openapi.json`: every documented operation is called with a
 * second workspace's key, once with that workspace's own resources (the request must succeed, so
 * the comparison below is not vacuous), then with the first workspace's id in each id-bearing
 * path, query and body field, and again with a made-up id of the same shape. The two answers must
 * be the same (status, error code, message with the id masked): another workspace's resource
 * looks exactly like one that does not exist. No answer may contain a value of the first
 * workspace that the request did not send, and the first workspace's data must be unchanged.
 *
 * A new route is covered the day it is documented. A new id-bearing field whose kind this file
 * does not know, or a route whose minimal request does not succeed, fails the test with a
 * message saying what to add.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createTestApp, type TestApp, type TestWorkspace } from '../src/test-support/harness.js';
import { hit } from '../src/redirect/testing.js';
import { newId } from '../src/ids.js';
import { startReceiver, type Receiver } from '../src/webhooks/testing.js';
import { bodyFields, minimalValue, operations, setPath, type OpenApiDoc, type Operation } from '../src/test-support/openapi-ops.js';

/** What a value in an id-bearing field refers to. */
type Kind =
  | 'link' | 'linkExternal' | 'linkExternalPrefixed' | 'tag' | 'tagName' | 'folder' | 'domain' | 'domainKey' | 'newKey'
  | 'customer' | 'customerExternal' | 'customerEmail' | 'click' | 'workspace' | 'tenant' | 'user' | 'webhook' | 'delivery' | 'import'
  /** Ids of things Waymark does not store per workspace (programs, partners, groups): nothing to leak. */
  | 'opaque';

/** One workspace's resources, made through the API. */
interface Seeded {
  workspaceId: string;
  workspaceSlug: string;
  tagId: string;
  tagName: string;
  folderId: string;
  domain: string;
  key: string;
  linkId: string;
  linkExternal: string;
  tenant: string;
  userId: string;
  clickId: string;
  customerId: string;
  customerExternal: string;
  customerEmail: string;
  webhookId: string;
  deliveryId: string;
  importId: string;
}

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const OWNER_MARK = 'OWNERSECRET';

let t: TestApp;
let base: string;
let other: TestWorkspace;
let owner: Seeded;
let doc: OpenApiDoc;
/** Webhooks of both workspaces deliver here (answering 204), so their state stays put. */
let receiver: Receiver;

/** Creates a tag, folder, domain, link (with a click), customer, lead and sale in a workspace. */
async function seed(headers: Record<string, string>, mark: string): Promise<Seeded> {
  const r = randomBytes(4).toString('hex');
  const call = async (method: 'GET' | 'POST', url: string, payload?: object) => {
    const res = await t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
    assert.ok(res.statusCode < 300, `seed ${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json();
  };
  const tag = await call('POST', '/tags', { name: `${mark}-tag-${r}` });
  const folder = await call('POST', '/folders', { name: `${mark}-folder-${r}` });
  const domain = (await call('POST', '/domains', { slug: `${mark.toLowerCase()}-${r}.iso.example` })).slug as string;
  const link = await call('POST', '/links', {
    url: `https://example.com/${mark}/${r}`,
    domain,
    key: `k${r}`,
    externalId: `${mark}-ext-${r}`,
    tenantId: `${mark}-tenant-${r}`,
    tagIds: [tag.id],
    folderId: folder.id,
    trackConversion: true,
    // An A/B test, so GET /links/{linkId}/ab-test has a result to refuse to others.
    testVariants: [{ url: `https://example.com/${mark}/${r}/a`, percentage: 50 }, { url: `https://example.com/${mark}/${r}/b`, percentage: 50 }],
    testCompletedAt: new Date(Date.now() + 86_400_000).toISOString(),
    comments: `${mark} comment`,
    title: `${mark} title`,
  });
  const visit = await hit(base, `/k${r}`, { host: domain, headers: { 'user-agent': CHROME, 'x-forwarded-for': `198.51.100.${Number.parseInt(r.slice(0, 2), 16)}` } });
  const clickId = new URL(visit.location!).searchParams.get('waymark_id');
  assert.ok(clickId, `seed click: ${visit.status} ${visit.location}`);
  await t.modules.redirect.flushClicks();
  const customerExternal = `${mark}-cust-${r}`;
  const customerEmail = `${mark.toLowerCase()}-${r}@example.com`;
  await call('POST', '/track/lead', { clickId, eventName: 'Sign up', customerExternalId: customerExternal, customerEmail, customerName: `${mark} name`, mode: 'wait' });
  await call('POST', '/track/sale', { customerExternalId: customerExternal, amount: 1234, invoiceId: `${mark}-inv-${r}` });
  const [customer] = await call('GET', `/customers?externalId=${customerExternal}`);
  const webhook = await call('POST', '/webhooks', { name: `${mark} hook`, url: receiver.url, triggers: ['lead.created'] });
  const delivery = await call('POST', `/webhooks/${webhook.id}/test`, { trigger: 'lead.created' });
  const imported = await t.app.inject({ method: 'POST', url: '/links/import', headers: { ...headers, 'content-type': 'text/csv' }, payload: `url,key\nhttps://example.com/${mark}/imported,i${r}\n` });
  assert.equal(imported.statusCode, 200, `seed import: ${imported.body}`);
  const workspaceId = link.workspaceId as string;
  const workspace = await call('GET', `/workspaces/${workspaceId}`);
  return {
    workspaceId,
    workspaceSlug: workspace.slug,
    tagId: tag.id,
    tagName: tag.name,
    folderId: folder.id,
    domain,
    key: `k${r}`,
    linkId: link.id,
    linkExternal: link.externalId,
    tenant: link.tenantId,
    userId: link.userId,
    clickId,
    customerId: customer.id,
    customerExternal,
    customerEmail,
    webhookId: webhook.id,
    deliveryId: delivery.id,
    importId: (imported.json() as { importId: string }).importId,
  };
}

/** A value of the kind that names nothing (same shape as a real one). */
function fabricated(kind: Kind): string {
  const r = randomBytes(4).toString('hex');
  switch (kind) {
    case 'link': return newId('link');
    case 'tag': return newId('tag');
    case 'folder': return newId('fold');
    case 'customer': return newId('cus');
    case 'webhook': return newId('wh');
    case 'delivery': return newId('whd');
    case 'import': return `imp_${randomBytes(12).toString('hex')}`;
    case 'workspace': return newId('ws');
    case 'user': return newId('key');
    case 'click': return `0${randomBytes(12).toString('base64url').replace(/[-_]/g, 'a').slice(0, 15)}`;
    case 'domain': return `nobody-${r}.iso.example`;
    case 'newKey': return `k${r}`;
    case 'linkExternal': return `ext-${r}`;
    case 'linkExternalPrefixed': return `ext_ext-${r}`;
    case 'tagName': return `tagname-${r}`;
    case 'customerExternal': return `cust-${r}`;
    case 'customerEmail': return `nobody-${r}@example.com`;
    case 'tenant': return `tenant-${r}`;
    case 'domainKey': case 'opaque': return `x-${r}`;
  }
}

/** The workspace's value of a kind (`domainKey` is handled as a pair by the caller). */
function valueOf(s: Seeded, kind: Kind): string {
  switch (kind) {
    case 'link': return s.linkId;
    case 'tag': return s.tagId;
    case 'folder': return s.folderId;
    case 'customer': return s.customerId;
    case 'webhook': return s.webhookId;
    case 'delivery': return s.deliveryId;
    case 'import': return s.importId;
    case 'workspace': return s.workspaceId;
    case 'user': return s.userId;
    case 'click': return s.clickId;
    case 'domain': return s.domain;
    case 'newKey': return s.key;
    case 'linkExternal': return s.linkExternal;
    case 'linkExternalPrefixed': return `ext_${s.linkExternal}`;
    case 'tagName': return s.tagName;
    case 'customerExternal': return s.customerExternal;
    case 'customerEmail': return s.customerEmail;
    case 'tenant': return s.tenant;
    case 'domainKey': return s.key;
    case 'opaque': return 'opaque';
  }
}

/**
 * The kind of an id-bearing field of an operation, or undefined when the field bears no id.
 * Unknown names that look like ids throw, so a new field cannot slip past this test.
 */
function kindOf(op: Operation, where: 'path' | 'query' | 'body', name: string): Kind | undefined {
  const leaf = name.split('.').pop()!;
  const resource = op.path.split('/')[1];
  if (where === 'path') {
    if (leaf === 'linkId') return 'link';
    if (leaf === 'slug' && resource === 'domains') return 'domain';
    if (leaf === 'idOrSlug' && resource === 'workspaces') return 'workspace';
    if (leaf === 'id' && resource === 'tags') return 'tag';
    if (leaf === 'id' && resource === 'folders') return 'folder';
    if (leaf === 'id' && resource === 'customers') return 'customer';
    if (leaf === 'webhookId') return 'webhook';
    if (leaf === 'deliveryId') return 'delivery';
    if (leaf === 'importId') return 'import';
    throw new Error(`${op.name}: no kind for path parameter "${leaf}"; add it to kindOf() in this test`);
  }
  const known: Record<string, Kind> = {
    linkId: 'link', linkIds: 'link', tagId: 'tag', tagIds: 'tag', tagNames: 'tagName', folderId: 'folder',
    customerId: 'customer', customerExternalId: 'customerExternal', clickId: 'click', tenantId: 'tenant', userId: 'user',
    programId: 'opaque', partnerId: 'opaque', groupId: 'opaque', partnerTagId: 'opaque', processorCustomerId: 'opaque', stripeCustomerId: 'opaque',
    invoiceId: 'opaque', webhookIds: 'webhook', externalIds: 'linkExternal', folderIds: 'folder',
  };
  if (leaf in known) return known[leaf];
  if (leaf === 'ids' && resource === 'tags') return 'tag';
  if (leaf === 'domain') return 'domain';
  if (leaf === 'key') return where === 'body' ? 'newKey' : 'domainKey';
  if (leaf === 'slug' && op.method === 'POST' && resource === 'domains') return 'domain';
  if (leaf === 'slug' && resource === 'domains') return 'domain';
  if (leaf === 'slug' && resource === 'workspaces') return 'opaque';
  if (leaf === 'externalId') {
    if (resource === 'customers') return 'customerExternal';
    return where === 'body' ? 'linkExternal' : resource === 'analytics' || resource === 'events' ? 'linkExternalPrefixed' : 'linkExternal';
  }
  if (leaf === 'email' && resource === 'customers') return where === 'query' ? 'customerEmail' : undefined;
  if (leaf === 'startingAfter' || leaf === 'endingBefore') return resource === 'customers' ? 'customer' : 'link';
  if (/(^id$|Id$|Ids$|^ids$|Slug$)/.test(leaf)) throw new Error(`${op.name}: no kind for ${where} field "${name}"; add it to kindOf() in this test`);
  return undefined;
}

/**
 * Names whose values are unique across the service, not per workspace: taking one that another
 * workspace holds must fail with 409 (as the published service does), which tells only that the
 * name is taken. Checked separately.
 */
const GLOBAL_NAMES = new Set(['POST /domains body slug', 'PATCH /domains/{slug} body slug']);

/** What a minimal successful call of each operation needs beyond its schema's required fields. */
function baselineExtras(op: Operation, own: Seeded): { query?: Record<string, string>; body?: unknown; headers?: Record<string, string> } {
  switch (op.name) {
    case 'POST /domains': return { body: { slug: fabricated('domain') } };
    case 'POST /tags': return { body: { name: `tag-${randomBytes(4).toString('hex')}` } };
    case 'GET /links/info': return { query: { linkId: own.linkId } };
    case 'DELETE /links/bulk': return { query: { linkIds: own.linkId } };
    case 'POST /links/bulk': return { body: [{ url: 'https://example.com/bulk' }] };
    case 'PATCH /links/bulk': return { body: { linkIds: [own.linkId], data: { archived: false } } };
    case 'POST /track/lead': return { body: { clickId: own.clickId, eventName: 'Again', customerExternalId: own.customerExternal, mode: 'wait' } };
    case 'POST /track/sale': return { body: { customerExternalId: own.customerExternal, amount: 100 } };
    // A CSV file, not JSON: the operation documents no JSON body.
    case 'POST /links/import': return { body: `url,key\nhttps://example.com/imported,imp${randomBytes(4).toString('hex')}\n`, headers: { 'content-type': 'text/csv' } };
    case 'POST /webhooks': return { body: { name: 'hook', url: receiver.url, triggers: ['link.clicked'], linkScope: 'links', linkIds: [own.linkId] } };
    default: return {};
  }
}

interface Call {
  method: Operation['method'];
  url: string;
  payload?: unknown;
  headers?: Record<string, string>;
}

/** The request of `op` with the workspace's own ids, plus `set` applied (`where:name` → value). */
function buildCall(op: Operation, own: Seeded, set: Map<string, { where: 'path' | 'query' | 'body'; value: unknown }>): Call {
  let path = op.path;
  for (const p of op.params.filter((x) => x.in === 'path')) {
    const override = set.get(`path:${p.name}`);
    const value = override ? String(override.value) : valueOf(own, kindOf(op, 'path', p.name)!);
    path = path.replace(`{${p.name}}`, encodeURIComponent(value));
  }
  const extras = baselineExtras(op, own);
  const query = new URLSearchParams();
  for (const p of op.params.filter((x) => x.in === 'query' && x.required)) query.set(p.name, String(minimalValue(doc, p.schema, p.name)));
  for (const [k, v] of Object.entries(extras.query ?? {})) query.set(k, v);
  let payload: unknown = op.body ? (extras.body ?? minimalValue(doc, op.body)) : extras.body;
  if (payload && typeof payload === 'object' && !Array.isArray(payload)) {
    // Required id-bearing body fields get the workspace's own values.
    for (const f of bodyFields(doc, op.body)) {
      if (!(f.path in (payload as object)) || extras.body) continue;
      const kind = kindOf(op, 'body', f.path);
      if (kind && kind !== 'opaque') setPath(payload as Record<string, unknown>, f.path, valueOf(own, kind));
    }
  }
  for (const [id, { where, value }] of set) {
    const name = id.slice(id.indexOf(':') + 1);
    if (where === 'query') query.set(name, String(value));
    if (where === 'body') {
      payload = payload ?? {};
      if (Array.isArray(payload)) payload = payload.map((item) => ({ ...(item as object), [name]: value }));
      else setPath(payload as Record<string, unknown>, name, value);
    }
  }
  const qs = query.toString();
  return { method: op.method, url: qs ? `${path}?${qs}` : path, ...(payload !== undefined ? { payload } : {}), ...(extras.headers ? { headers: extras.headers } : {}) };
}

/** Everything the second workspace has sent so far: a value it sent may come back legitimately. */
let sentSoFar = '';

async function send(call: Call) {
  sentSoFar += ` ${call.url} ${JSON.stringify(call.payload ?? '')}`;
  const res = await t.app.inject({ method: call.method, url: call.url, headers: { ...other.headers, ...call.headers }, ...(call.payload !== undefined ? { payload: call.payload as object } : {}) });
  return { status: res.statusCode, body: res.body };
}

/** Every value of the first workspace, for the leak check. */
function ownerValues(): string[] {
  return Object.values(owner).filter((v) => typeof v === 'string' && v.length >= 6);
}

function assertNoLeak(res: { status: number; body: string }, context: string) {
  for (const value of ownerValues()) {
    if (res.body.includes(value) && !sentSoFar.includes(value)) {
      assert.fail(`${context}: the answer (${res.status}) reveals the other workspace's "${value}": ${res.body.slice(0, 300)}`);
    }
  }
  assert.ok(res.status < 500, `${context}: ${res.status} ${res.body.slice(0, 300)}`);
}

/** The comparable part of an answer: status, and the error code and message with the value masked. */
function summary(res: { status: number; body: string }, values: string[]): string {
  let body = res.body;
  for (const v of values) body = body.split(encodeURIComponent(v)).join('<V>').split(v).join('<V>');
  if (res.status >= 400) {
    const parsed = JSON.parse(body);
    return `${res.status} ${parsed.error?.code} ${parsed.error?.message}`;
  }
  // Exports answer CSV or NDJSON: compared by their number of lines.
  if (!/^\s*([[{"]|null$|true$|false$|-?\d)/.test(body || 'null') || body.includes('\n{')) return `${res.status} text of ${body.split('\n').filter(Boolean).length} lines`;
  const parsed = JSON.parse(body || 'null');
  return `${res.status} ${Array.isArray(parsed) ? `array of ${parsed.length}` : typeof parsed}`;
}

/** The first workspace's data as its own key reads it. */
async function ownerSnapshot(): Promise<string> {
  const urls = [
    '/links?showArchived=true', '/tags', '/folders', '/domains', '/domains?archived=true', '/customers',
    `/workspaces/${owner.workspaceId}`, '/webhooks', '/analytics?event=composite&interval=all', '/events?event=leads&interval=all', '/events?event=sales&interval=all',
  ];
  const out: unknown[] = [];
  for (const url of urls) out.push((await t.inject({ method: 'GET', url })).json());
  return JSON.stringify(out);
}

before(async () => {
  receiver = await startReceiver();
  t = await createTestApp({ env: { TRUST_PROXY: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' } });
  base = await t.listen();
  owner = await seed(t.headers, OWNER_MARK);
  doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
});
after(async () => {
  await t.close();
  await receiver.close();
});

test('every operation: another workspace\'s ids answer exactly like ids that do not exist', async () => {
  const before = await ownerSnapshot();
  const ops = operations(doc);
  assert.ok(ops.length >= 30, `only ${ops.length} operations documented`);
  let compared = 0;
  for (const op of ops) {
    // A fresh second workspace per operation: what one operation's variants create there (a
    // link with the first workspace's tenant id, say) must not change another's answers.
    other = await t.addWorkspace('enterprise');
    sentSoFar = '';
    const own = await seed(other.headers, 'mine');
    const baseline = buildCall(op, own, new Map());
    const ok = await send(baseline);
    // Resuming needs an interrupted import: the caller's own completed one is found and refused
    // for its state (409), which is the answer to compare the other workspace's and made-up ids with.
    const stateBound = op.name === 'POST /imports/{importId}/resume' && ok.status === 409;
    assert.ok(ok.status < 300 || stateBound, `${op.name}: the minimal request with the caller's own ids must succeed, got ${ok.status} ${ok.body.slice(0, 300)} (add what it needs to baselineExtras())`);
    assertNoLeak(ok, `${op.name} (own ids)`);

    const fields: { where: 'path' | 'query' | 'body'; name: string }[] = [
      ...op.params.map((p) => ({ where: p.in, name: p.name })),
      ...bodyFields(doc, op.body?.type === 'array' ? op.body.items : op.body).map((f) => ({ where: 'body' as const, name: f.path })),
    ];
    for (const field of fields) {
      const kind = kindOf(op, field.where, field.name);
      if (!kind || kind === 'opaque') continue;
      const label = `${op.name} ${field.where} ${field.name}`;
      const pair = kind === 'domainKey' || (kind === 'domain' && field.where === 'query' && op.params.some((p) => p.name === 'key'));
      const variant = (source: 'owner' | 'fake') => {
        const set = new Map<string, { where: 'path' | 'query' | 'body'; value: unknown }>();
        const fake = { domain: fabricated('domain'), key: fabricated('newKey'), value: fabricated(kind) };
        if (pair) {
          set.set('query:domain', { where: 'query', value: source === 'owner' ? owner.domain : fake.domain });
          set.set('query:key', { where: 'query', value: source === 'owner' ? owner.key : fake.key });
          return { set, values: source === 'owner' ? [owner.domain, owner.key] : [fake.domain, fake.key] };
        }
        const value = source === 'owner' ? valueOf(owner, kind) : fake.value;
        const schemaIsArray = field.where === 'body' && /Ids$|Names$/.test(field.name);
        set.set(`${field.where}:${field.name}`, { where: field.where, value: schemaIsArray ? [value] : value });
        return { set, values: [value] };
      };
      const mine = variant('owner');
      const theirs = variant('fake');
      const ownerCall = buildCall(op, own, mine.set);
      const ownerRes = await send(ownerCall);
      assertNoLeak(ownerRes, label);
      if (GLOBAL_NAMES.has(label)) {
        assert.equal(ownerRes.status, 409, `${label}: a name taken elsewhere is a conflict: ${ownerRes.body}`);
        continue;
      }
      const fakeRes = await send(buildCall(op, own, theirs.set));
      assert.equal(summary(ownerRes, mine.values), summary(fakeRes, theirs.values), `${label}: another workspace's value and a made-up one must be answered alike`);
      compared++;
    }
  }
  assert.ok(compared >= 60, `only ${compared} id-bearing fields compared`);
  assert.equal(await ownerSnapshot(), before, "the first workspace's data must be unchanged");
});
