import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { Dub } from 'dub';
import * as errors from 'dub/models/errors';
import { createTestApp, type TestApp } from '../test-support/harness.js';

let t: TestApp;
let dub: Dub;
let baseUrl: string;
before(async () => {
  t = await createTestApp();
  baseUrl = await t.listen();
  dub = new Dub({ token: t.key, serverURL: baseUrl });
});
after(() => t.close());

const LOGO = 'data:image/png;base64,iVBORw0KGgo=';
const ASSET_LINKS = '[{"relation":["delegate_permission/common.handle_all_urls"],"target":{"namespace":"android_app","package_name":"com.acme"}}]';
const AASA = '{"applinks":{"apps":[],"details":[]}}';

/** Every domain page of the SDK's paginated list, flattened. */
async function listAll(sdk: Dub, request: Parameters<Dub['domains']['list']>[0] = {}) {
  const out = [];
  for await (const page of await sdk.domains.list(request)) out.push(...page.result);
  return out;
}

test('SDK: create a domain with every setting; it is verified and primary', async () => {
  const ws = await t.addWorkspace();
  const sdk = new Dub({ token: ws.key, serverURL: baseUrl });
  const d = await sdk.domains.create({
    slug: ' Go.Acme.COM ',
    expiredUrl: 'https://acme.com/expired',
    notFoundUrl: 'acme.com/404',
    placeholder: 'https://acme.com/blog/post',
    logo: LOGO,
    assetLinks: ASSET_LINKS,
    appleAppSiteAssociation: AASA,
  });
  assert.match(d.id, /^dom_[0-9A-Z]{26}$/);
  assert.deepEqual(
    { ...d, id: 'x', createdAt: 'x', updatedAt: 'x' },
    {
      id: 'x',
      slug: 'go.acme.com',
      verified: true,
      primary: true,
      archived: false,
      placeholder: 'https://acme.com/blog/post',
      expiredUrl: 'https://acme.com/expired',
      notFoundUrl: 'https://acme.com/404',
      logo: LOGO,
      assetLinks: ASSET_LINKS,
      appleAppSiteAssociation: AASA,
      createdAt: 'x',
      updatedAt: 'x',
      registeredDomain: null,
    },
  );
  assert.equal(d.createdAt, d.updatedAt);
  // The raw body also carries the published `deepviewData`.
  const raw = await t.inject({ method: 'GET', url: '/domains', headers: ws.headers });
  assert.equal(raw.json()[0].deepviewData, null);
  // The workspace reports it.
  const wsBody = (await t.inject({ method: 'GET', url: `/workspaces/${ws.workspaceId}`, headers: ws.headers })).json();
  assert.deepEqual(wsBody.domains, [{ slug: 'go.acme.com', primary: true, verified: true }]);

  const second = await sdk.domains.create({ slug: 'links.acme.com' });
  assert.equal(second.primary, false);
  assert.equal(second.placeholder, null);
  assert.equal(second.assetLinks, null);
});

test('SDK: list (active by default, archived only on request), search and pages', async () => {
  const ws = await t.addWorkspace();
  const sdk = new Dub({ token: ws.key, serverURL: baseUrl });
  const slugs = ['a.list.test', 'b.list.test', 'c.list.test', 'other.example'];
  for (const slug of slugs) await sdk.domains.create({ slug });
  await sdk.domains.update('b.list.test', { archived: true });

  assert.deepEqual((await listAll(sdk)).map((d) => d.slug), ['a.list.test', 'c.list.test', 'other.example']);
  assert.deepEqual((await listAll(sdk, { archived: true })).map((d) => d.slug), ['b.list.test']);
  assert.deepEqual((await listAll(sdk, { search: 'LIST' })).map((d) => d.slug), ['a.list.test', 'c.list.test']);
  // The SDK follows pages while they are full.
  const pages = [];
  for await (const page of await sdk.domains.list({ pageSize: 2 })) pages.push(page.result.map((d) => d.slug));
  assert.deepEqual(pages, [['a.list.test', 'c.list.test'], ['other.example']]);
  const raw = await t.inject({ method: 'GET', url: '/domains?page=2&pageSize=1&archived=FALSE', headers: ws.headers });
  assert.deepEqual(raw.json().map((d: { slug: string }) => d.slug), ['c.list.test']);
  // Another workspace sees none of them.
  assert.ok(!(await listAll(dub)).some((d) => slugs.includes(d.slug)));
});

test('SDK: update settings, make primary, rename; delete answers the slug', async () => {
  const ws = await t.addWorkspace();
  const sdk = new Dub({ token: ws.key, serverURL: baseUrl });
  const first = await sdk.domains.create({ slug: 'one.update.test', placeholder: 'https://one.test/x' });
  const second = await sdk.domains.create({ slug: 'two.update.test' });
  assert.equal(first.primary, true);

  const updated = await sdk.domains.update('two.update.test', { expiredUrl: 'https://two.test/gone', logo: LOGO });
  assert.equal(updated.id, second.id);
  assert.equal(updated.expiredUrl, 'https://two.test/gone');
  assert.equal(updated.logo, LOGO);
  assert.equal(updated.primary, false);

  // `primary: true` is not in the SDK's update body; raw clients can send it.
  const primary = await t.inject({ method: 'PATCH', url: '/domains/two.update.test', payload: { primary: true }, headers: ws.headers });
  assert.equal(primary.statusCode, 200);
  assert.equal(primary.json().primary, true);
  const all = await listAll(sdk);
  assert.deepEqual(all.map((d) => [d.slug, d.primary]), [['one.update.test', false], ['two.update.test', true]]);

  const renamed = await sdk.domains.update('one.update.test', { slug: 'Uno.Update.Test', placeholder: null });
  assert.equal(renamed.id, first.id);
  assert.equal(renamed.slug, 'uno.update.test');
  assert.equal(renamed.placeholder, null);
  assert.equal(renamed.verified, true);
  const gone = await t.inject({ method: 'GET', url: '/domains/one.update.test', headers: ws.headers });
  assert.equal(gone.statusCode, 404);
  const got = await t.inject({ method: 'GET', url: '/domains/UNO.update.test', headers: ws.headers });
  assert.equal(got.json().id, first.id);

  assert.deepEqual(await sdk.domains.delete('uno.update.test'), { slug: 'uno.update.test' });
  assert.deepEqual((await listAll(sdk)).map((d) => d.slug), ['two.update.test']);
});

test('archived: false on create un-archives a domain of this workspace (201) and applies the settings', async () => {
  const ws = await t.addWorkspace();
  const sdk = new Dub({ token: ws.key, serverURL: baseUrl });
  const d = await sdk.domains.create({ slug: 'revive.test' });
  const archived = await sdk.domains.update('revive.test', { archived: true });
  assert.equal(archived.archived, true);
  // Archived and asked to stay archived: still a duplicate.
  const again = await t.inject({ method: 'POST', url: '/domains', payload: { slug: 'revive.test', archived: true }, headers: ws.headers });
  assert.equal(again.statusCode, 409);
  const revived = await sdk.domains.create({ slug: 'revive.test', notFoundUrl: 'https://revive.test/missing' });
  assert.equal(revived.id, d.id);
  assert.equal(revived.archived, false);
  assert.equal(revived.notFoundUrl, 'https://revive.test/missing');
  assert.equal(revived.createdAt, d.createdAt);
  // Not archived any more: a second create is 409.
  await assert.rejects(sdk.domains.create({ slug: 'revive.test' }), (e) => e instanceof errors.Conflict);
});

test('a slug is unique across the whole service: 409 "Domain is already in use."', async () => {
  await dub.domains.create({ slug: 'taken.example' });
  const ws = await t.addWorkspace();
  for (const slug of ['taken.example', 'TAKEN.example']) {
    const res = await t.inject({ method: 'POST', url: '/domains', payload: { slug }, headers: ws.headers });
    assert.equal(res.statusCode, 409);
    assert.deepEqual(res.json().error.code, 'conflict');
    assert.equal(res.json().error.message, 'Domain is already in use.');
  }
  // An archived domain of another workspace is not handed over either.
  await dub.domains.update('taken.example', { archived: true });
  const steal = await t.inject({ method: 'POST', url: '/domains', payload: { slug: 'taken.example', archived: false }, headers: ws.headers });
  assert.equal(steal.statusCode, 409);
  // Renaming onto a taken slug is 409 too.
  await t.inject({ method: 'POST', url: '/domains', payload: { slug: 'mine.example' }, headers: ws.headers });
  const rename = await t.inject({ method: 'PATCH', url: '/domains/mine.example', payload: { slug: 'taken.example' }, headers: ws.headers });
  assert.equal(rename.statusCode, 409);
  assert.equal(rename.json().error.message, 'Domain is already in use.');
});

test('missing and foreign domains are 404 on get, update and delete', async () => {
  const ws = await t.addWorkspace();
  await t.inject({ method: 'POST', url: '/domains', payload: { slug: 'foreign.example' }, headers: ws.headers });
  for (const slug of ['missing.example', 'foreign.example']) {
    for (const [method, payload] of [['GET'], ['PATCH', { placeholder: 'https://x.example/' }], ['DELETE']] as const) {
      const res = await t.inject({ method, url: `/domains/${slug}`, payload });
      assert.equal(res.statusCode, 404, `${method} ${slug}`);
      assert.equal(res.json().error.code, 'not_found');
      assert.equal(res.json().error.message, `Domain ${slug} not found.`);
    }
  }
  await assert.rejects(dub.domains.delete('foreign.example'), (e) => e instanceof errors.NotFound);
  assert.equal((await t.inject({ method: 'GET', url: '/domains/foreign.example', headers: ws.headers })).statusCode, 200);
});

test('validation: slug, URLs, placeholder, logo and deep-link files (422 naming the field)', async () => {
  const cases: [object, RegExp][] = [
    [{}, /^invalid_type: slug: slug is required$/],
    [{ slug: '   ' }, /^too_small: slug: slug is required$/],
    [{ slug: `${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.example.com` }, /^too_big: slug: /],
    [{ slug: 'not a domain' }, /^custom: slug: Invalid domain$/],
    [{ slug: 'localhost' }, /^custom: slug: Invalid domain$/],
    [{ slug: 'www.acme.com' }, /^custom: slug: Custom domain cannot start with www\.$/],
    [{ slug: 'ok.example', placeholder: 'p'.repeat(101) }, /^too_big: placeholder: /],
    [{ slug: 'ok.example', expiredUrl: `https://acme.com/${'x'.repeat(32000)}` }, /^too_big: expiredUrl: /],
    [{ slug: 'ok.example', notFoundUrl: `https://acme.com/${'x'.repeat(32000)}` }, /^too_big: notFoundUrl: /],
    [{ slug: 'ok.example', expiredUrl: 'javascript:alert(1)' }, /^custom: expiredUrl: Invalid URL: only http and https URLs are allowed\.$/],
    [{ slug: 'ok.example', notFoundUrl: 'data:text/html,<script>1</script>' }, /^custom: notFoundUrl: /],
    [{ slug: 'ok.example', notFoundUrl: '//evil.example/' }, /^custom: notFoundUrl: Invalid URL: only http and https URLs are allowed\.$/],
    [{ slug: 'ok.example', placeholder: 'javascript:alert(1)' }, /^custom: placeholder: Invalid URL: only http and https URLs are allowed\.$/],
    [{ slug: 'ok.example', placeholder: 'https://acme.com/a b' }, /^custom: placeholder: Invalid URL: whitespace, control characters/],
    [{ slug: 'ok.example', logo: 'https://acme.com/logo.png' }, /^invalid_format: logo: /],
    [{ slug: 'ok.example', logo: 'data:image/svg+xml;base64,PHN2Zz4=' }, /^invalid_format: logo: /],
    [{ slug: 'ok.example', assetLinks: 'not json' }, /^custom: assetLinks: Must be a JSON object or array\.$/],
    [{ slug: 'ok.example', appleAppSiteAssociation: '"text"' }, /^custom: appleAppSiteAssociation: /],
  ];
  for (const [payload, message] of cases) {
    const res = await t.inject({ method: 'POST', url: '/domains', payload });
    assert.equal(res.statusCode, 422, JSON.stringify(payload).slice(0, 80));
    assert.equal(res.json().error.code, 'unprocessable_entity');
    assert.match(res.json().error.message, message, JSON.stringify(payload).slice(0, 80));
  }
  // The limits themselves are accepted.
  const edge = await t.inject({
    method: 'POST',
    url: '/domains',
    payload: {
      slug: `${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.example`,
      placeholder: `https://acme.com/${'p'.repeat(100 - 'https://acme.com/'.length)}`,
      expiredUrl: `https://acme.com/${'x'.repeat(32000 - 'https://acme.com/'.length)}`,
      assetLinks: { not: 'a string' },
    },
  });
  assert.equal(edge.statusCode, 201, edge.body.slice(0, 200));
  assert.equal(edge.json().slug.length, 190);
  assert.equal(edge.json().assetLinks, '{"not":"a string"}');
  // The same rules apply on PATCH.
  const patch = await t.inject({ method: 'PATCH', url: `/domains/${edge.json().slug}`, payload: { expiredUrl: 'javascript:void(0)' } });
  assert.equal(patch.statusCode, 422);
  assert.match(patch.json().error.message, /^custom: expiredUrl: /);
  const www = await t.inject({ method: 'PATCH', url: `/domains/${edge.json().slug}`, payload: { slug: 'www.example.org' } });
  assert.equal(www.statusCode, 422);
  // The service's own host names cannot be added.
  const own = await t.inject({ method: 'POST', url: '/domains', payload: { slug: t.config.shortDomain.replace(/:\d+$/, '') } });
  assert.equal(own.statusCode, 422);
  assert.match(own.json().error.message, /^custom: slug: .*used by this service/);
  const page = await t.inject({ method: 'GET', url: '/domains?pageSize=51' });
  assert.equal(page.statusCode, 422);
  assert.equal(page.json().error.message, 'too_big: pageSize: Max page size is 50.');
  const bool = await t.inject({ method: 'GET', url: '/domains?archived=1' });
  assert.equal(bool.statusCode, 422);
  assert.match(bool.json().error.message, /^invalid_value: archived: /);
});

test('domainsLimit: the 4th domain on the free plan is 403 naming the limit', async () => {
  const free = await createTestApp({ plan: 'free' });
  try {
    for (const slug of ['a.free.test', 'b.free.test', 'c.free.test']) {
      assert.equal((await free.inject({ method: 'POST', url: '/domains', payload: { slug } })).statusCode, 201);
    }
    const res = await free.inject({ method: 'POST', url: '/domains', payload: { slug: 'd.free.test' } });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().error.code, 'forbidden');
    assert.equal(res.json().error.message, "You've reached your limit of 3 domains on the Free plan. Please upgrade for higher limits.");
    // Un-archiving an existing domain is not a new one and is allowed at the limit.
    await free.inject({ method: 'PATCH', url: '/domains/a.free.test', payload: { archived: true } });
    const revive = await free.inject({ method: 'POST', url: '/domains', payload: { slug: 'a.free.test' } });
    assert.equal(revive.statusCode, 201);
  } finally {
    await free.close();
  }
});

test('scopes: domains.read cannot write, links.read cannot read domains', async () => {
  const reader = await t.addWorkspace('enterprise', ['domains.read']);
  assert.equal((await t.inject({ method: 'GET', url: '/domains', headers: reader.headers })).statusCode, 200);
  const write = await t.inject({ method: 'POST', url: '/domains', payload: { slug: 'scope.example' }, headers: reader.headers });
  assert.equal(write.statusCode, 403);
  assert.match(write.json().error.message, /domains\.write/);
  const linksOnly = await t.addWorkspace('enterprise', ['links.read']);
  for (const [method, url] of [['GET', '/domains'], ['PATCH', '/domains/x.example'], ['DELETE', '/domains/x.example']] as const) {
    const res = await t.inject({ method, url, headers: linksOnly.headers, payload: method === 'PATCH' ? {} : undefined });
    assert.equal(res.statusCode, 403, `${method} ${url}`);
    assert.equal(res.json().error.code, 'forbidden');
  }
});
