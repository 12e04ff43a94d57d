import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Dub } from 'dub';
import * as errors from 'dub/models/errors';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { insertClick, insertLink } from '../test-support/conversions.js';
import { newId } from '../ids.js';
import type { CustomerRow } from './schema.js';

let t: TestApp;
let dub: Dub;
const base = Date.UTC(2025, 0, 1);

after(() => t.close());

/** Inserts a customer with a chosen creation time (minutes after `base`). */
async function addCustomer(fields: Partial<CustomerRow> & { external_id: string; minute: number }, workspaceId = t.workspaceId) {
  const { minute, ...rest } = fields;
  const at = base + minute * 60_000;
  const row: CustomerRow = {
    id: newId('cus', at),
    workspace_id: workspaceId,
    name: `Name ${fields.external_id}`,
    email: null,
    avatar: null,
    country: null,
    processor_customer_id: null,
    click_id: null,
    link_id: null,
    sales: 0,
    sale_amount: 0,
    first_sale_at: null,
    created_at: at,
    updated_at: at,
    ...rest,
  };
  await t.ctx.database.db.insertInto('customers').values(row).execute();
  return row;
}

let alice: CustomerRow;
let bob: CustomerRow;
let carol: CustomerRow;
let linkId: string;

before(async () => {
  t = await createTestApp();
  dub = new Dub({ token: t.key, serverURL: await t.listen() });
  const link = await insertLink(t, { program_id: 'prog_1' });
  linkId = link.id;
  alice = await addCustomer({ external_id: 'alice', minute: 1, name: 'Alice Liddell', email: 'alice@example.com', country: 'GB', sale_amount: 500, sales: 1, first_sale_at: base, link_id: link.id });
  bob = await addCustomer({ external_id: 'bob', minute: 2, name: 'Bob Builder', email: 'bob@builders.test', country: 'US', sale_amount: 9000, sales: 3, first_sale_at: base + 1 });
  carol = await addCustomer({ external_id: 'carol', minute: 3, name: 'Carol Danvers', email: null, country: 'US' });
});

test('GET /customers lists newest first with every SDK field', async () => {
  const page = await dub.customers.list();
  const ours = page.result.filter((c) => ['alice', 'bob', 'carol'].includes(c.externalId));
  assert.deepEqual(ours.map((c) => c.externalId), ['carol', 'bob', 'alice']);
  const a = ours[2]!;
  assert.equal(a.id, alice.id);
  assert.equal(a.name, 'Alice Liddell');
  assert.equal(a.email, 'alice@example.com');
  assert.equal(a.country, 'GB');
  assert.equal(a.sales, 1);
  assert.equal(a.saleAmount, 500);
  assert.equal(a.createdAt, new Date(base + 60_000).toISOString());
  assert.equal(a.firstSaleAt, new Date(base).toISOString());
  assert.equal(a.link, undefined);
});

test('filters: email wins over externalId, externalId over search; search by @ is exact email', async () => {
  const q = async (query: Record<string, string>) => {
    const res = await t.inject({ method: 'GET', url: `/customers?${new URLSearchParams(query)}` });
    assert.equal(res.statusCode, 200, res.body);
    return (res.json() as { externalId: string }[]).map((c) => c.externalId);
  };
  assert.deepEqual(await q({ email: 'bob@builders.test', externalId: 'alice', search: 'carol' }), ['bob']);
  assert.deepEqual(await q({ externalId: 'alice', search: 'carol' }), ['alice']);
  assert.deepEqual(await q({ search: 'DANVERS' }), ['carol']);
  assert.deepEqual(await q({ search: 'builders' }), ['bob']);
  assert.deepEqual(await q({ search: 'alice@example.com' }), ['alice']);
  assert.deepEqual(await q({ search: 'alice@example' }), []);
  assert.deepEqual(await q({ country: 'us' }), ['carol', 'bob']);
  assert.deepEqual(await q({ linkId }), ['alice']);
  assert.deepEqual(await q({ programId: 'prog_1' }), ['alice']);
  assert.deepEqual(await q({ search: '100%_' }), []);
});

test('sortBy saleAmount / firstSaleAt and sortOrder; pagination with page and pageSize', async () => {
  const q = async (query: Record<string, string>) =>
    ((await t.inject({ method: 'GET', url: `/customers?${new URLSearchParams(query)}` })).json() as { externalId: string }[]).map((c) => c.externalId);
  assert.deepEqual(await q({ sortBy: 'saleAmount' }), ['bob', 'alice', 'carol']);
  assert.deepEqual(await q({ sortBy: 'saleAmount', sortOrder: 'asc' }), ['carol', 'alice', 'bob']);
  // Customers without a first sale come last in both directions.
  assert.deepEqual(await q({ sortBy: 'firstSaleAt', sortOrder: 'asc' }), ['alice', 'bob', 'carol']);
  assert.deepEqual(await q({ sortBy: 'firstSaleAt', sortOrder: 'desc' }), ['bob', 'alice', 'carol']);
  assert.deepEqual(await q({ pageSize: '2' }), ['carol', 'bob']);
  assert.deepEqual(await q({ pageSize: '2', page: '2' }), ['alice']);
  assert.deepEqual(await q({ pageSize: '2', page: '3' }), []);
});

test('cursor pagination with startingAfter / endingBefore (the SDK iterator)', async () => {
  const q = async (query: Record<string, string>) =>
    ((await t.inject({ method: 'GET', url: `/customers?${new URLSearchParams(query)}` })).json() as { externalId: string }[]).map((c) => c.externalId);
  assert.deepEqual(await q({ startingAfter: carol.id, pageSize: '1' }), ['bob']);
  assert.deepEqual(await q({ startingAfter: bob.id }), ['alice']);
  assert.deepEqual(await q({ endingBefore: alice.id }), ['carol', 'bob']);
  assert.deepEqual(await q({ endingBefore: alice.id, pageSize: '1' }), ['bob']);
  assert.deepEqual(await q({ startingAfter: alice.id, sortOrder: 'asc' }), ['bob', 'carol']);

  const seen: string[] = [];
  for await (const page of await dub.customers.list({ pageSize: 1 })) {
    seen.push(...page.result.map((c) => c.externalId));
  }
  assert.deepEqual(seen, ['carol', 'bob', 'alice']);

  const bad = await t.inject({ method: 'GET', url: '/customers?startingAfter=cus_nope' });
  assert.equal(bad.statusCode, 422);
  const both = await t.inject({ method: 'GET', url: `/customers?startingAfter=${bob.id}&endingBefore=${bob.id}` });
  assert.equal(both.statusCode, 422);
});

test('pageSize above 100 and unknown sort fields are 422 naming the parameter', async () => {
  const big = await t.inject({ method: 'GET', url: '/customers?pageSize=101' });
  assert.equal(big.statusCode, 422);
  assert.match(big.json().error.message, /^too_big: pageSize: Max page size is 100\.$/);
  const sort = await t.inject({ method: 'GET', url: '/customers?sortBy=name' });
  assert.equal(sort.statusCode, 422);
  assert.match(sort.json().error.message, /sortBy/);
  const flag = await t.inject({ method: 'GET', url: '/customers?includeExpandedFields=1' });
  assert.equal(flag.statusCode, 422);
  assert.match(flag.json().error.message, /includeExpandedFields/);
});

test('GET /customers/{id} by id and by ext_<externalId>; expanded fields add link, programId, partner, discount', async () => {
  const byId = await dub.customers.get({ id: alice.id });
  assert.equal(byId.externalId, 'alice');
  assert.equal(byId.link, undefined);
  const byExt = await dub.customers.get({ id: 'ext_alice' });
  assert.equal(byExt.id, alice.id);

  const expanded = await dub.customers.get({ id: alice.id, includeExpandedFields: true });
  const link = await t.ctx.database.db.selectFrom('links').selectAll().where('id', '=', linkId).executeTakeFirstOrThrow();
  assert.deepEqual(expanded.link, { id: link.id, domain: link.domain, key: link.key, shortLink: link.short_link, url: link.url, programId: 'prog_1' });
  assert.equal(expanded.programId, 'prog_1');
  assert.equal(expanded.partner, null);
  assert.equal(expanded.discount, null);

  const noLink = await dub.customers.get({ id: 'ext_carol', includeExpandedFields: true });
  assert.equal(noLink.link, null);
  assert.equal(noLink.programId, null);

  const listed = await dub.customers.list({ externalId: 'alice', includeExpandedFields: true });
  assert.equal(listed.result[0]!.link?.id, linkId);
});

test('a customer created by a lead is listed with its attribution link', async () => {
  const link = await insertLink(t);
  const click = await insertClick(t, link);
  await dub.track.lead({ clickId: click.click_id, eventName: 'Sign up', customerExternalId: 'from-lead', customerEmail: 'lead@example.com', mode: 'wait' });
  const c = await dub.customers.get({ id: 'ext_from-lead', includeExpandedFields: true });
  assert.equal(c.email, 'lead@example.com');
  assert.equal(c.name, 'lead@example.com'); // no name given: the email is shown
  assert.equal(c.country, 'DE');
  assert.equal(c.link?.id, link.id);
});

test('PATCH /customers/{id} updates fields; externalId conflicts are 409; name falls back to email', async () => {
  const c = await addCustomer({ external_id: 'patch-me', minute: 10 });
  const updated = await dub.customers.update({
    id: 'ext_patch-me',
    requestBody: { name: 'Patched Name', email: 'patched@example.com', avatar: 'https://example.com/a.png', stripeCustomerId: 'cus_proc_1', country: 'fr' },
  });
  assert.equal(updated.id, c.id);
  assert.equal(updated.name, 'Patched Name');
  assert.equal(updated.email, 'patched@example.com');
  assert.equal(updated.avatar, 'https://example.com/a.png');
  assert.equal(updated.stripeCustomerId, 'cus_proc_1');
  assert.equal(updated.country, 'FR');

  const renamed = await dub.customers.update({ id: c.id, requestBody: { externalId: 'patched-ext' } });
  assert.equal(renamed.externalId, 'patched-ext');
  assert.equal((await dub.customers.get({ id: 'ext_patched-ext' })).id, c.id);

  const nullName = await t.inject({ method: 'PATCH', url: `/customers/${c.id}`, payload: { name: null } });
  assert.equal(nullName.json().name, 'patched@example.com');
  const proc = await t.inject({ method: 'PATCH', url: `/customers/${c.id}`, payload: { processorCustomerId: 'cus_proc_2' } });
  assert.equal(proc.json().processorCustomerId, 'cus_proc_2');

  await assert.rejects(
    () => dub.customers.update({ id: c.id, requestBody: { externalId: 'alice' } }),
    (err) => err instanceof errors.Conflict,
  );
  const badEmail = await t.inject({ method: 'PATCH', url: `/customers/${c.id}`, payload: { email: 'nope' } });
  assert.equal(badEmail.statusCode, 422);
  assert.match(badEmail.json().error.message, /^invalid_format: email: /);
});

test('DELETE /customers/{id} returns {id}; the customer is gone', async () => {
  const c = await addCustomer({ external_id: 'delete-me', minute: 11 });
  const res = await dub.customers.delete('ext_delete-me');
  assert.deepEqual(res, { id: c.id });
  await assert.rejects(() => dub.customers.get({ id: c.id }), (err) => err instanceof errors.NotFound);
});

test("another workspace's customer is 404 on get, patch and delete, and absent from lists", async () => {
  const other = await t.addWorkspace();
  const theirs = await addCustomer({ external_id: 'theirs', minute: 12 }, other.workspaceId);
  for (const id of [theirs.id, 'ext_theirs']) {
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const res = await t.inject({ method, url: `/customers/${id}`, ...(method === 'PATCH' ? { payload: { name: 'x' } } : {}) });
      assert.equal(res.statusCode, 404, `${method} ${id}`);
      assert.equal(res.json().error.code, 'not_found');
      assert.match(res.json().error.message, /ext_/);
    }
  }
  const list = (await t.inject({ method: 'GET', url: '/customers?externalId=theirs' })).json();
  assert.deepEqual(list, []);
  const still = await t.ctx.database.db.selectFrom('customers').select('name').where('id', '=', theirs.id).executeTakeFirstOrThrow();
  assert.equal(still.name, 'Name theirs');
  // The owner sees it.
  const own = await t.app.inject({ method: 'GET', url: `/customers/${theirs.id}`, headers: other.headers });
  assert.equal(own.statusCode, 200);
});

test('customers need a business plan or higher; any key scope is enough', async () => {
  const pro = await t.addWorkspace('pro');
  const res = await t.app.inject({ method: 'GET', url: '/customers', headers: pro.headers });
  assert.equal(res.statusCode, 403);
  const scoped = await t.addWorkspace('business', ['tags.read']);
  const ok = await t.app.inject({ method: 'GET', url: '/customers', headers: scoped.headers });
  assert.equal(ok.statusCode, 200);
});
