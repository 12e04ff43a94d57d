import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import type { Change } from '../db/change-bus.js';
import { buildShortLink } from '../links/response.js';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { createDomainsModule, createDomainVerifier } from './module.js';
import { CreateDomainBody, UpdateDomainBody } from './schema.js';
import type { DnsResolver } from './verification.js';

let t: TestApp;
const changes: Change[] = [];
before(async () => {
  t = await createTestApp();
  t.ctx.bus.subscribe((c) => changes.push(c));
});
after(() => t.close());

/** Inserts a bare link row (the links module is not needed to test what domains do to links). */
async function insertLink(workspaceId: string, domain: string, key: string, extra: Record<string, unknown> = {}) {
  const now = Date.now();
  const id = `link_${domain.replace(/\W/g, '')}_${key.replace(/\W/g, '')}`;
  await t.ctx.database.db
    .insertInto('links')
    .values({
      id, workspace_id: workspaceId, domain, key, key_lower: key.toLowerCase(), url: 'https://example.com/',
      short_link: buildShortLink(t.config, domain, key), created_at: now, updated_at: now, ...extra,
    } as never)
    .execute();
  return id;
}

async function linksOf(domainOrId: { domain?: string; ids?: string[] }) {
  let q = t.ctx.database.db.selectFrom('links').select(['id', 'domain', 'key', 'short_link', 'workspace_id']);
  if (domainOrId.domain) q = q.where('domain', '=', domainOrId.domain);
  if (domainOrId.ids) q = q.where('id', 'in', domainOrId.ids);
  return q.orderBy('id').execute();
}

test('renaming a domain moves its links and rewrites their short links; both names are announced', async () => {
  await t.inject({ method: 'POST', url: '/domains', payload: { slug: 'old.rename.test' } });
  const ids = [
    await insertLink(t.workspaceId, 'old.rename.test', 'promo'),
    await insertLink(t.workspaceId, 'old.rename.test', 'deep/path'),
    await insertLink(t.workspaceId, 'old.rename.test', '_root'),
  ];
  const untouched = await insertLink(t.workspaceId, 'other.rename.test', 'promo');
  changes.length = 0;

  const res = await t.inject({ method: 'PATCH', url: '/domains/old.rename.test', payload: { slug: 'new.rename.test' } });
  assert.equal(res.statusCode, 200);
  assert.deepEqual(changes, [
    { type: 'domain', domain: 'old.rename.test' },
    { type: 'domain', domain: 'new.rename.test' },
  ]);
  const moved = await linksOf({ ids });
  for (const link of moved) {
    assert.equal(link.domain, 'new.rename.test');
    assert.equal(link.short_link, buildShortLink(t.config, 'new.rename.test', link.key));
  }
  assert.deepEqual(moved.map((l) => l.short_link).sort(), [
    'http://new.rename.test',
    'http://new.rename.test/deep/path',
    'http://new.rename.test/promo',
  ]);
  assert.deepEqual(await linksOf({ domain: 'old.rename.test' }), []);
  assert.equal((await linksOf({ ids: [untouched] }))[0]!.domain, 'other.rename.test');
});

test('a settings update announces the domain so redirect caches drop it', async () => {
  await t.inject({ method: 'POST', url: '/domains', payload: { slug: 'cache.test' } });
  changes.length = 0;
  await t.inject({ method: 'PATCH', url: '/domains/cache.test', payload: { notFoundUrl: 'https://cache.test/404' } });
  assert.deepEqual(changes, [{ type: 'domain', domain: 'cache.test' }]);
});

test('deleting a domain deletes its links and their tags, lowers totalLinks, and is announced', async () => {
  const ws = await t.addWorkspace();
  await t.inject({ method: 'POST', url: '/domains', payload: { slug: 'doomed.test' }, headers: ws.headers });
  await t.inject({ method: 'POST', url: '/domains', payload: { slug: 'kept.test' }, headers: ws.headers });
  const tag = (await t.inject({ method: 'POST', url: '/tags', payload: { name: 'x' }, headers: ws.headers })).json();
  const doomed = [await insertLink(ws.workspaceId, 'doomed.test', 'a'), await insertLink(ws.workspaceId, 'doomed.test', 'b')];
  const kept = await insertLink(ws.workspaceId, 'kept.test', 'a');
  const db = t.ctx.database.db;
  await db
    .insertInto('link_tags')
    .values([...doomed, kept].map((link_id) => ({ link_id, tag_id: tag.id, workspace_id: ws.workspaceId, position: 0 })))
    .execute();
  await db.updateTable('workspaces').set({ total_links: 3 }).where('id', '=', ws.workspaceId).execute();
  changes.length = 0;

  const res = await t.inject({ method: 'DELETE', url: '/domains/Doomed.test', headers: ws.headers });
  assert.equal(res.statusCode, 200);
  assert.deepEqual(res.json(), { slug: 'doomed.test' });
  assert.deepEqual(changes, [{ type: 'domain', domain: 'doomed.test' }]);
  assert.deepEqual(await linksOf({ domain: 'doomed.test' }), []);
  assert.equal((await linksOf({ ids: [kept] })).length, 1);
  const tagRows = await db.selectFrom('link_tags').select('link_id').where('workspace_id', '=', ws.workspaceId).execute();
  assert.deepEqual(tagRows.map((r) => r.link_id), [kept]);
  const wsBody = (await t.inject({ method: 'GET', url: `/workspaces/${ws.workspaceId}`, headers: ws.headers })).json();
  assert.equal(wsBody.totalLinks, 1);
  assert.deepEqual(wsBody.domains.map((d: { slug: string }) => d.slug), ['kept.test']);
  // The tag itself stays.
  assert.equal((await t.inject({ method: 'GET', url: '/tags', headers: ws.headers })).json().length, 1);
});

test('after the primary domain is deleted, the next domain added becomes primary', async () => {
  const ws = await t.addWorkspace();
  await t.inject({ method: 'POST', url: '/domains', payload: { slug: 'p1.primary.test' }, headers: ws.headers });
  const p2 = (await t.inject({ method: 'POST', url: '/domains', payload: { slug: 'p2.primary.test' }, headers: ws.headers })).json();
  assert.equal(p2.primary, false);
  await t.inject({ method: 'DELETE', url: '/domains/p1.primary.test', headers: ws.headers });
  const p3 = (await t.inject({ method: 'POST', url: '/domains', payload: { slug: 'p3.primary.test' }, headers: ws.headers })).json();
  assert.equal(p3.primary, true);
  assert.equal(await t.modules.domains.primaryDomainSlug(ws.workspaceId), 'p3.primary.test');
  assert.deepEqual(await t.modules.domains.listWorkspaceDomainSlugs(ws.workspaceId), ['p2.primary.test', 'p3.primary.test']);
  assert.equal((await t.modules.domains.findDomain(ws.workspaceId, 'P3.primary.test'))?.primary, 1);
  assert.equal(await t.modules.domains.findDomain(t.workspaceId, 'p3.primary.test'), undefined);
});

test('concurrent creates of one slug by two workspaces: exactly one wins', async () => {
  const a = await t.addWorkspace();
  const b = await t.addWorkspace();
  const results = await Promise.all(
    [a, b, a, b].map((ws) => t.inject({ method: 'POST', url: '/domains', payload: { slug: 'race.test' }, headers: ws.headers })),
  );
  assert.deepEqual(results.map((r) => r.statusCode).sort(), [201, 409, 409, 409]);
});

/** A resolver whose answers the test changes between calls. */
function mutableResolver(table: Record<string, { cname?: string[]; a?: string[] }>): DnsResolver {
  const answer = (v: string[] | undefined) => (v ? Promise.resolve(v) : Promise.reject(Object.assign(new Error('ENODATA'), { code: 'ENODATA' })));
  return {
    resolveCname: (h) => answer(table[h]?.cname),
    resolve4: (h) => answer(table[h]?.a),
    resolve6: () => answer(undefined),
  };
}

test('dns mode: unverified until the CNAME points at the target; verifyDomain re-checks and stores it', async () => {
  const table: Record<string, { cname?: string[]; a?: string[] }> = { 'edge.waymark.example': { a: ['203.0.113.10'] } };
  const dns = createDomainsModule(
    { ...t.ctx, config: { ...t.ctx.config, domainVerification: 'dns', domainDnsTarget: 'edge.waymark.example' } },
    { resolver: mutableResolver(table) },
  );
  const ws = await t.ctx.workspaces.findWorkspace(t.workspaceId);
  const created = await dns.service.create(ws!, CreateDomainBody.parse({ slug: 'dns.acme.test' }));
  assert.equal(created.verified, false);

  const before = await dns.verifyDomain('dns.acme.test');
  assert.deepEqual(before, {
    slug: 'dns.acme.test',
    workspaceId: t.workspaceId,
    verified: false,
    reason: 'No CNAME, A or AAAA record found; point it at edge.waymark.example.',
  });

  table['dns.acme.test'] = { cname: ['edge.waymark.example.'], a: ['203.0.113.10'] };
  changes.length = 0;
  const after = await dns.verifyDomain('DNS.acme.test');
  assert.equal(after.verified, true);
  assert.deepEqual(changes, [{ type: 'domain', domain: 'dns.acme.test' }]);
  const listed = (await t.inject({ method: 'GET', url: '/domains?search=dns.acme' })).json();
  assert.equal(listed[0].verified, true);

  // Records that move away un-verify it on the next check.
  table['dns.acme.test'] = { a: ['192.0.2.1'] };
  assert.equal((await dns.verifyDomain('dns.acme.test')).verified, false);
  assert.equal((await t.inject({ method: 'GET', url: '/domains/dns.acme.test' })).json().verified, false);
  // The operator can override.
  const forced = await dns.verifyDomain('dns.acme.test', { force: true });
  assert.equal(forced.verified, true);
  assert.equal((await t.inject({ method: 'GET', url: '/domains/dns.acme.test' })).json().verified, true);

  // A rename re-checks the new name.
  table['moved.acme.test'] = { a: ['203.0.113.10'] };
  const renamed = await dns.service.update(t.workspaceId, 'dns.acme.test', UpdateDomainBody.parse({ slug: 'moved.acme.test' }));
  assert.equal(renamed.verified, true);
  await assert.rejects(dns.verifyDomain('unknown.acme.test'), /Domain unknown\.acme\.test not found\./);
});

test('off mode (default): verifyDomain marks a domain verified without DNS', async () => {
  await t.inject({ method: 'POST', url: '/domains', payload: { slug: 'off.acme.test' } });
  await t.ctx.database.db.updateTable('domains').set({ verified: 0 }).where('slug', '=', 'off.acme.test').execute();
  const v = await t.modules.domains.verifyDomain('off.acme.test');
  assert.equal(v.verified, true);
  assert.equal((await t.inject({ method: 'GET', url: '/domains/off.acme.test' })).json().verified, true);
});

test('createDomainVerifier works on a bare database, as the CLI uses it', async () => {
  await t.inject({ method: 'POST', url: '/domains', payload: { slug: 'cli.acme.test' } });
  const verify = createDomainVerifier({
    config: { ...t.config, domainVerification: 'dns', domainDnsTarget: '203.0.113.10' },
    database: t.ctx.database,
    resolver: mutableResolver({ 'cli.acme.test': { a: ['203.0.113.10'] } }),
  });
  const v = await verify('cli.acme.test');
  assert.equal(v.verified, true);
  assert.match(v.reason, /Addresses 203\.0\.113\.10 belong to 203\.0\.113\.10/);
});
