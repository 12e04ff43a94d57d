/**
 * Two workspaces on one service: the second workspace's key sees none of the first's data, on
 * any route, and gets 404 (never 401/403 revealing existence) for the first's resources.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp, type TestWorkspace } from '../src/test-support/harness.js';
import { newClickId } from '../src/ids.js';

let t: TestApp;
let other: TestWorkspace;
const owned: Record<string, string> = {};

before(async () => {
  t = await createTestApp();
  other = await t.addWorkspace('enterprise');
  const tag = await t.inject({ method: 'POST', url: '/tags', payload: { name: 'secret-tag' } });
  assert.equal(tag.statusCode, 201, tag.body);
  owned.tag = tag.json().id;
  const folder = await t.inject({ method: 'POST', url: '/folders', payload: { name: 'secret-folder' } });
  assert.equal(folder.statusCode, 201, folder.body);
  owned.folder = folder.json().id;
  const domain = await t.inject({ method: 'POST', url: '/domains', payload: { slug: 'secret.example' } });
  assert.equal(domain.statusCode, 201, domain.body);
  owned.domain = domain.json().slug;
  const link = await t.inject({
    method: 'POST',
    url: '/links',
    payload: { url: 'https://example.com/secret', domain: 'secret.example', key: 'hidden', externalId: 'ext-secret', tagIds: [owned.tag], trackConversion: true },
  });
  assert.equal(link.statusCode, 200, link.body);
  owned.link = link.json().id;

  // A click, a lead and a sale in the first workspace.
  const clickId = newClickId();
  const now = Date.now();
  await t.ctx.events.append([
    {
      workspace_id: t.workspaceId, timestamp: now - 5_000, id: clickId, kind: 'click', click_id: clickId, link_id: owned.link,
      domain: 'secret.example', key: 'hidden', url: 'https://example.com/secret', country: 'DE', city: 'Berlin', region: 'DE-BE',
      continent: 'EU', device: 'Desktop', browser: 'Chrome', os: 'Linux', referer: '(direct)', referer_url: '(direct)',
      trigger: 'link', ip: '203.0.113.9', ua: 'Mozilla/5.0', amount: 0,
    },
  ]);
  const lead = await t.inject({ method: 'POST', url: '/track/lead', payload: { clickId, eventName: 'Sign up', customerExternalId: 'cust-secret', mode: 'wait' } });
  assert.equal(lead.statusCode, 200, lead.body);
  const sale = await t.inject({ method: 'POST', url: '/track/sale', payload: { customerExternalId: 'cust-secret', amount: 5000, invoiceId: 'inv-secret' } });
  assert.equal(sale.statusCode, 200, sale.body);
  const customers = await t.inject({ method: 'GET', url: '/customers' });
  owned.customer = customers.json()[0].id;
});
after(() => t.close());

const asOther = (method: 'GET' | 'PATCH' | 'DELETE' | 'POST' | 'PUT', url: string, payload?: object) =>
  t.app.inject({ method, url, headers: other.headers, ...(payload ? { payload } : {}) });

test("another workspace's resources are 404 on every read, update and delete", async () => {
  const cases: [string, Awaited<ReturnType<typeof asOther>>][] = [
    ['GET link', await asOther('GET', `/links/${owned.link}`)],
    ['GET link by ext_', await asOther('GET', `/links/ext_ext-secret`)],
    ['GET link info', await asOther('GET', `/links/info?linkId=${owned.link}`)],
    ['GET link info by domain/key', await asOther('GET', `/links/info?domain=secret.example&key=hidden`)],
    ['PATCH link', await asOther('PATCH', `/links/${owned.link}`, { url: 'https://evil.example/' })],
    ['DELETE link', await asOther('DELETE', `/links/${owned.link}`)],
    ['PATCH tag', await asOther('PATCH', `/tags/${owned.tag}`, { name: 'pwned' })],
    ['DELETE tag', await asOther('DELETE', `/tags/${owned.tag}`)],
    ['PATCH folder', await asOther('PATCH', `/folders/${owned.folder}`, { name: 'pwned' })],
    ['DELETE folder', await asOther('DELETE', `/folders/${owned.folder}`)],
    ['PATCH domain', await asOther('PATCH', `/domains/${owned.domain}`, { placeholder: 'https://pwned.example/' })],
    ['DELETE domain', await asOther('DELETE', `/domains/${owned.domain}`)],
    ['GET customer', await asOther('GET', `/customers/${owned.customer}`)],
    ['GET customer by ext_', await asOther('GET', `/customers/ext_cust-secret`)],
    ['PATCH customer', await asOther('PATCH', `/customers/${owned.customer}`, { name: 'pwned' })],
    ['DELETE customer', await asOther('DELETE', `/customers/${owned.customer}`)],
    ['GET workspace', await asOther('GET', `/workspaces/${t.workspaceId}`)],
    ['PATCH workspace', await asOther('PATCH', `/workspaces/${t.workspaceId}`, { name: 'pwned' })],
  ];
  for (const [name, res] of cases) {
    assert.equal(res.statusCode, 404, `${name}: ${res.statusCode} ${res.body}`);
    assert.equal(res.json().error.code, 'not_found', name);
    // Only what the caller sent may be echoed (e.g. the slug); nothing of the stored resource.
    assert.doesNotMatch(res.body, /example\.com\/secret|secret-tag|secret-folder|inv-secret/, `${name} must not reveal the other workspace's data`);
  }
  // Nothing changed for the owner.
  const link = await t.inject({ method: 'GET', url: `/links/${owned.link}` });
  assert.equal(link.json().url, 'https://example.com/secret');
  assert.equal((await t.inject({ method: 'GET', url: '/tags' })).json()[0].name, 'secret-tag');
});

test("lists, counts, analytics and events of another workspace contain none of the first's data", async () => {
  const lists = ['/links?showArchived=true', '/links?search=secret', '/tags', '/folders', '/domains', '/domains?archived=true', '/customers'];
  for (const url of lists) {
    const res = await asOther('GET', url);
    assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
    assert.deepEqual(res.json(), [], url);
  }
  assert.equal((await asOther('GET', '/links/count')).json(), 0);
  const count = await asOther('GET', '/analytics?event=composite&interval=all');
  assert.equal(count.statusCode, 200, count.body);
  assert.deepEqual(count.json(), { clicks: 0, leads: 0, sales: 0, saleAmount: 0 });
  const events = await asOther('GET', '/events?event=clicks&interval=all');
  assert.equal(events.statusCode, 200, events.body);
  assert.deepEqual(events.json(), []);
  // The owner sees its own numbers (the isolation is not an empty database).
  const mine = await t.inject({ method: 'GET', url: '/analytics?event=composite&interval=all' });
  assert.deepEqual(mine.json(), { clicks: 1, leads: 1, sales: 1, saleAmount: 5000 });
});

test("another workspace cannot use the first's tag, folder, domain or click", async () => {
  const withTag = await asOther('POST', '/links', { url: 'https://example.com/x', tagIds: [owned.tag] });
  assert.equal(withTag.statusCode, 422, withTag.body);
  const withFolder = await asOther('POST', '/links', { url: 'https://example.com/x', folderId: owned.folder });
  assert.equal(withFolder.statusCode, 404, withFolder.body);
  const withDomain = await asOther('POST', '/links', { url: 'https://example.com/x', domain: owned.domain });
  assert.equal(withDomain.statusCode, 403, withDomain.body);
  const sameDomain = await asOther('POST', '/domains', { slug: owned.domain });
  assert.equal(sameDomain.statusCode, 409, sameDomain.body);
  const events = await t.inject({ method: 'GET', url: '/events?event=clicks&interval=all' });
  const clickId = events.json()[0].click.id;
  const lead = await asOther('POST', '/track/lead', { clickId, eventName: 'Sign up', customerExternalId: 'thief', mode: 'wait' });
  assert.equal(lead.statusCode, 404, lead.body);
});
