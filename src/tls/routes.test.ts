/**
 * `GET /tls/allow` on the whole app: which names get 200 (issue 29: verified, unverified, deleted,
 * unknown, API host, default domain, IDN in punycode and Unicode), that every refusal is the same
 * answer, and its per-address limit.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { createDomainsModule } from '../domains/module.js';
import { CreateDomainBody } from '../domains/schema.js';
import type { DnsResolver } from '../domains/verification.js';

const ENV = { BASE_URL: 'https://api.waymark.test', API_HOSTS: 'admin.waymark.test', SHORT_DOMAIN: 'go.waymark.test', TRUST_PROXY: 'true' };

/** Asks as a TLS terminator does; `domain` is sent percent-encoded, as Caddy sends it. */
const ask = (t: TestApp, domain: string, from = '127.0.0.1') =>
  t.app.inject({ method: 'GET', url: `/tls/allow?domain=${encodeURIComponent(domain)}`, headers: { 'x-forwarded-for': from } });

/** A resolver answering from a table the test changes (no real DNS). */
function tableResolver(table: Record<string, { cname?: string[]; a?: string[] }>): DnsResolver {
  const answer = (v: string[] | undefined) => (v ? Promise.resolve(v) : Promise.reject(Object.assign(new Error('ENODATA'), { code: 'ENODATA' })));
  return { resolveCname: (h) => answer(table[h]?.cname), resolve4: (h) => answer(table[h]?.a), resolve6: () => answer(undefined) };
}

let off: TestApp;
before(async () => {
  off = await createTestApp({ env: ENV });
});
after(() => off.close());

test('DOMAIN_VERIFICATION=off: the API hosts, the default short domain and every workspace domain; not unknown or deleted ones', async () => {
  for (const host of ['api.waymark.test', 'admin.waymark.test', 'go.waymark.test']) assert.equal((await ask(off, host)).statusCode, 200, host);
  const allowed = await ask(off, 'api.waymark.test');
  assert.equal(allowed.body, '', 'a 200 carries nothing');

  assert.equal((await ask(off, 'shop.acme.test')).statusCode, 404, 'unknown');
  assert.equal((await off.inject({ method: 'POST', url: '/domains', payload: { slug: 'shop.acme.test' } })).statusCode, 201);
  await off.modules.tls.list.settled();
  assert.equal((await ask(off, 'shop.acme.test')).statusCode, 200, 'added (verified at once in off mode)');
  assert.equal((await ask(off, 'SHOP.Acme.test:443')).statusCode, 200, 'any case, with a port');

  // An imported domain is stored unverified; off mode allows every workspace domain all the same.
  await off.ctx.database.db.updateTable('domains').set({ verified: 0 }).where('slug', '=', 'shop.acme.test').execute();
  off.ctx.bus.publish({ type: 'domain', domain: 'shop.acme.test' });
  await off.modules.tls.list.settled();
  assert.equal((await ask(off, 'shop.acme.test')).statusCode, 200, 'unverified, off mode');

  assert.equal((await off.inject({ method: 'DELETE', url: '/domains/shop.acme.test' })).statusCode, 200);
  await off.modules.tls.list.settled();
  assert.equal((await ask(off, 'shop.acme.test')).statusCode, 404, 'deleted');

  // Loopback names and addresses reach the API but get no certificate.
  for (const host of ['localhost', '127.0.0.1', '[::1]']) assert.equal((await ask(off, host)).statusCode, 404, host);
});

test('IDN: a domain added in Unicode is allowed asked in punycode or in Unicode, any case', async () => {
  assert.equal((await off.inject({ method: 'POST', url: '/domains', payload: { slug: 'bücher.example' } })).statusCode, 201);
  await off.modules.tls.list.settled();
  for (const host of ['xn--bcher-kva.example', 'bücher.example', 'BÜCHER.example', 'XN--BCHER-KVA.EXAMPLE:443', 'bücher.example.']) {
    assert.equal((await ask(off, host)).statusCode, 200, host);
  }
  assert.equal((await ask(off, 'bucher.example')).statusCode, 404, 'another name');
  assert.equal((await off.inject({ method: 'POST', url: '/domains', payload: { slug: 'xn--mnchen-3ya.example' } })).statusCode, 201);
  await off.modules.tls.list.settled();
  assert.equal((await ask(off, 'münchen.example')).statusCode, 200, 'added in punycode, asked in Unicode');
});

test('every refusal is the same answer: unknown, deleted, malformed, missing, an address', async () => {
  const refusals = [
    await ask(off, 'never.acme.test'),
    await ask(off, 'shop.acme.test'), // deleted above
    await ask(off, 'exa mple.test'),
    await ask(off, '203.0.113.7'),
    await off.app.inject({ method: 'GET', url: '/tls/allow' }),
    await off.app.inject({ method: 'GET', url: '/tls/allow?domain=a.test&domain=b.test' }),
  ];
  for (const r of refusals) {
    assert.equal(r.statusCode, 404);
    assert.equal(r.body, refusals[0]!.body);
  }
  assert.deepEqual(refusals[0]!.json().error.code, 'not_found');
});

test('a change another process made reaches the list through the bus (what the PostgreSQL relay delivers)', async () => {
  const ws = await off.ctx.workspaces.findWorkspace(off.workspaceId);
  const now = Date.now();
  await off.ctx.database.db
    .insertInto('domains')
    .values({ id: 'dom_elsewhere', workspace_id: ws!.id, slug: 'elsewhere.acme.test', verified: 1, primary: 0, archived: 0, placeholder: null, expired_url: null, not_found_url: null, logo: null, asset_links: null, apple_app_site_association: null, created_at: now, updated_at: now })
    .execute();
  assert.equal((await ask(off, 'elsewhere.acme.test')).statusCode, 404, 'not announced yet');
  off.ctx.bus.deliver({ type: 'domain', domain: 'elsewhere.acme.test' });
  await off.modules.tls.list.settled();
  assert.equal((await ask(off, 'elsewhere.acme.test')).statusCode, 200);
});

test('a resync (the relay reconnected: announcements may have been missed) reloads the whole list', async () => {
  const now = Date.now();
  await off.ctx.database.db
    .insertInto('domains')
    .values({ id: 'dom_missed', workspace_id: off.workspaceId, slug: 'missed.acme.test', verified: 1, primary: 0, archived: 0, placeholder: null, expired_url: null, not_found_url: null, logo: null, asset_links: null, apple_app_site_association: null, created_at: now, updated_at: now })
    .execute();
  await off.ctx.database.db.deleteFrom('domains').where('slug', '=', 'elsewhere.acme.test').execute();
  assert.equal((await ask(off, 'missed.acme.test')).statusCode, 404, 'its announcement was missed');
  assert.equal((await ask(off, 'elsewhere.acme.test')).statusCode, 200, 'its deletion was missed');
  off.ctx.bus.resync();
  await off.modules.tls.list.settled();
  assert.equal((await ask(off, 'missed.acme.test')).statusCode, 200, 'added');
  assert.equal((await ask(off, 'elsewhere.acme.test')).statusCode, 404, 'deleted');
});

test('DOMAIN_VERIFICATION=dns: only verified domains; verification and un-verification take effect', async () => {
  const t = await createTestApp({ env: { ...ENV, DOMAIN_VERIFICATION: 'dns', DOMAIN_DNS_TARGET: 'edge.waymark.test' } });
  try {
    const table: Record<string, { cname?: string[]; a?: string[] }> = {};
    // The same context (and change bus) as the app, with DNS answers from the table.
    const domains = createDomainsModule(t.ctx, { resolver: tableResolver(table) });
    const ws = (await t.ctx.workspaces.findWorkspace(t.workspaceId))!;
    await domains.service.create(ws, CreateDomainBody.parse({ slug: 'pending.acme.test' }));
    await t.modules.tls.list.settled();
    assert.equal((await ask(t, 'pending.acme.test')).statusCode, 404, 'unverified');

    table['pending.acme.test'] = { cname: ['edge.waymark.test.'] };
    assert.equal((await domains.verifyDomain('pending.acme.test')).verified, true);
    await t.modules.tls.list.settled();
    assert.equal((await ask(t, 'pending.acme.test')).statusCode, 200, 'verified');

    table['pending.acme.test'] = { a: ['192.0.2.1'] };
    assert.equal((await domains.verifyDomain('pending.acme.test')).verified, false);
    await t.modules.tls.list.settled();
    assert.equal((await ask(t, 'pending.acme.test')).statusCode, 404, 'records moved away: unverified again');

    // The fixed names need no verification.
    for (const host of ['api.waymark.test', 'go.waymark.test']) assert.equal((await ask(t, host)).statusCode, 200, host);
  } finally {
    await t.close();
  }
});

test('limited per client address: past TLS_ALLOW_RATE_LIMIT_PER_MINUTE, 429; other addresses unaffected', async () => {
  const t = await createTestApp({ env: ENV, config: { tlsAllowRateLimitPerMinute: 3 } });
  try {
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await ask(t, i % 2 ? 'go.waymark.test' : 'unknown.acme.test', '198.51.100.4')).statusCode);
    assert.deepEqual(statuses, [404, 200, 404, 429], 'allowed and refused names count alike');
    const refused = await ask(t, 'go.waymark.test', '198.51.100.4');
    assert.equal(refused.json().error.code, 'rate_limit_exceeded');
    assert.match(refused.json().error.message, /3 certificate questions per minute from this address/);
    assert.equal((await ask(t, 'go.waymark.test', '198.51.100.5')).statusCode, 200);
  } finally {
    await t.close();
  }
});
