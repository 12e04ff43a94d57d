/**
 * The audit log's guarantees: an entry commits with its change and never without it, no secret
 * is stored, owners (and full-access keys) alone read it, each workspace reads only its own, the
 * list pages and filters, the CSV export, and retention.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { addUser, logIn, slugOf } from '../dashboard/testing.js';
import { CLI, record } from './record.js';

let t: TestApp;
before(async () => {
  t = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_INTERVAL_MS: '60000' } });
});
after(() => t.close());

const entries = (workspaceId = t.workspaceId) => t.ctx.database.db.selectFrom('audit_log').selectAll().where('workspace_id', '=', workspaceId).orderBy('id', 'desc').execute();

test('a rolled-back transaction leaves no entry; a committed one leaves exactly one', async () => {
  const before = (await entries()).length;
  const change = { workspaceId: t.workspaceId, action: 'workspace.update', targetIds: t.workspaceId, changes: { fields: ['name'] } };
  await assert.rejects(
    t.ctx.database.db.transaction().execute(async (trx) => {
      await trx.updateTable('workspaces').set({ name: 'Rolled back' }).where('id', '=', t.workspaceId).execute();
      await record(trx, CLI, change);
      throw new Error('the change fails after its entry');
    }),
    /the change fails/,
  );
  assert.equal((await entries()).length, before, 'no entry for the rolled-back change');
  await t.ctx.database.db.transaction().execute(async (trx) => {
    await trx.updateTable('workspaces').set({ name: 'Committed' }).where('id', '=', t.workspaceId).execute();
    await record(trx, CLI, change);
  });
  const after = await entries();
  assert.equal(after.length, before + 1);
  assert.equal(after[0]!.actor_type, 'cli');
  assert.equal((await t.ctx.database.db.selectFrom('workspaces').select('name').where('id', '=', t.workspaceId).executeTakeFirstOrThrow()).name, 'Committed');
  // Without a Who (background work) nothing is written.
  await t.ctx.database.db.transaction().execute((trx) => record(trx, undefined, change));
  assert.equal((await entries()).length, before + 1);
});

test('of two creations of one key at once, only the one that commits has an entry', async () => {
  const a = (await t.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/u1', key: 'taken-key' } })).json();
  assert.ok(a.id);
  const before = (await entries()).length;
  // Two creations of one key at once: the loser's insert fails in its transaction (409), after the checks.
  const results = await Promise.all([1, 2].map(() => t.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/u2', key: 'race-key' } })));
  const codes = results.map((r) => r.statusCode).sort();
  assert.deepEqual(codes, [200, 409]);
  const now = await entries();
  assert.equal(now.length, before + 1, 'one entry: the winner');
  const winner = results.find((r) => r.statusCode === 200)!.json().id as string;
  assert.ok(now.some((e) => e.action === 'link.create' && e.target === winner));
});

test('no secret is stored: webhook secrets, API key values, passwords', async () => {
  const secret = `whsec_${Buffer.from('do not store me, ever').toString('base64')}`;
  const second = `whsec_${Buffer.from('nor this one, ever!!!').toString('base64')}`;
  const made = await t.inject({ method: 'POST', url: '/webhooks', payload: { name: 'h', url: 'http://127.0.0.1:9/h', triggers: ['link.created'], secret } });
  assert.equal(made.statusCode, 200, made.body);
  const hook = made.json().id as string;
  assert.equal((await t.inject({ method: 'PATCH', url: `/webhooks/${hook}`, payload: { secret: second } })).statusCode, 200);
  await t.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/locked', password: 'link-password-secret' } });
  const owner = await addUser(t, 'owner');
  const browser = await logIn(t, owner);
  await browser.get(`/dashboard/w/${await slugOf(t)}/settings/keys`);
  const created = await browser.post(`/dashboard/w/${await slugOf(t)}/settings/keys`, { name: 'k', access: 'all' });
  const keyValue = /wm_[A-Za-z0-9_-]{20,}/.exec(created.body)?.[0];
  assert.ok(keyValue, 'the page shows the new key once');
  const text = JSON.stringify(await entries());
  for (const s of [secret, second, 'link-password-secret', keyValue, owner.password]) assert.ok(!text.includes(s), `${s.slice(0, 8)}… is not stored`);
  const update = (await entries()).find((e) => e.action === 'webhook.update')!;
  assert.deepEqual(JSON.parse(update.changes), { fields: ['secret'] }, 'the field name, not its value');
});

test('GET /audit-log: full-access keys only; pages with a cursor; filters', async () => {
  const restricted = await t.ctx.workspaces.createKey(t.workspaceId, { name: 'links only', scopes: ['links.write'] });
  const refused = await t.app.inject({ method: 'GET', url: '/audit-log', headers: { authorization: `Bearer ${restricted.key}` } });
  assert.equal(refused.statusCode, 403);
  assert.equal(refused.json().error.code, 'forbidden');

  const tagIds: string[] = [];
  for (let i = 0; i < 5; i++) tagIds.push((await t.inject({ method: 'POST', url: '/tags', payload: { name: `paged-${i}` } })).json().id);
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const res = await t.inject({ method: 'GET', url: `/audit-log?action=tag.create&limit=2${cursor ? `&cursor=${cursor}` : ''}` });
    assert.equal(res.statusCode, 200, res.body);
    const page = res.json() as { data: { id: string; action: string; target: { id: string } }[]; nextCursor: string | null };
    assert.ok(page.data.length <= 2);
    for (const e of page.data) {
      assert.equal(e.action, 'tag.create');
      seen.push(e.target.id);
    }
    cursor = page.nextCursor;
  } while (cursor);
  // Every entry once (ids made in one millisecond sort at random, so as a set; pages never overlap).
  assert.deepEqual([...seen].sort(), [...tagIds].sort(), 'every entry once');

  const byTarget = (await t.inject({ method: 'GET', url: `/audit-log?target=${tagIds[2]}` })).json();
  assert.deepEqual(byTarget.data.map((e: { action: string }) => e.action), ['tag.create']);
  const byType = (await t.inject({ method: 'GET', url: '/audit-log?action=tag' })).json();
  assert.ok(byType.data.every((e: { action: string }) => e.action.startsWith('tag.')));
  const keyId = (await t.ctx.workspaces.listKeys(t.workspaceId))[0]!.id;
  const byActor = (await t.inject({ method: 'GET', url: `/audit-log?actor=${keyId}&limit=100` })).json();
  assert.ok(byActor.data.length >= 5 && byActor.data.every((e: { actor: { id: string } }) => e.actor.id === keyId));
  const future = (await t.inject({ method: 'GET', url: `/audit-log?start=${new Date(Date.now() + 86_400_000).toISOString()}` })).json();
  assert.deepEqual(future.data, []);
  const bad = await t.inject({ method: 'GET', url: '/audit-log?action=%3Cscript%3E' });
  assert.equal(bad.statusCode, 422);

  // A bulk operation: one entry with the count and every id, found by any of its ids.
  const links = await Promise.all([1, 2, 3].map(async (i) => (await t.inject({ method: 'POST', url: '/links', payload: { url: `https://example.com/bulk${i}` } })).json().id as string));
  await t.inject({ method: 'DELETE', url: `/links/bulk?linkIds=${links.join(',')}` });
  const bulk = (await t.inject({ method: 'GET', url: `/audit-log?target=${links[1]}&action=links.bulk_delete` })).json().data;
  assert.equal(bulk.length, 1);
  assert.equal(bulk[0].changes.count, 3);
  assert.deepEqual([...bulk[0].target.ids].sort(), [...links].sort());
});

test("another workspace's entries are never listed (API and dashboard)", async () => {
  const other = await t.addWorkspace();
  const theirs = (await t.app.inject({ method: 'POST', url: '/tags', headers: other.headers, payload: { name: 'their-secret-tag' } })).json().id as string;
  const mine = (await t.inject({ method: 'GET', url: `/audit-log?target=${theirs}` })).json();
  assert.deepEqual(mine.data, []);
  const all = (await t.inject({ method: 'GET', url: '/audit-log?limit=100' })).json();
  assert.ok(all.data.every((e: { target: { ids: string[] } }) => !e.target.ids.includes(theirs)));
  const theirList = (await t.app.inject({ method: 'GET', url: '/audit-log', headers: other.headers })).json();
  assert.deepEqual(theirList.data.map((e: { target: { id: string } }) => e.target.id), [theirs]);

  const owner = await addUser(t, 'owner');
  const browser = await logIn(t, owner);
  const page = await browser.get(`/dashboard/w/${await slugOf(t)}/settings/audit?target=${theirs}`);
  assert.equal(page.statusCode, 200);
  assert.ok(!page.body.includes('their-secret-tag'));
  assert.ok(!(await browser.get(`/dashboard/w/${await slugOf(t)}/settings/audit?action=tag.create`)).body.includes(theirs));
  assert.match(page.body, /No entries match/);
  // Their page is not ours to open.
  assert.equal((await browser.get(`/dashboard/w/${await slugOf(t, other.workspaceId)}/settings/audit`)).statusCode, 404);
});

test('dashboard: owners read the page and download the CSV; members and viewers are refused', async () => {
  const slug = await slugOf(t);
  await t.inject({ method: 'POST', url: '/tags', payload: { name: '=HYPERLINK("http://evil.example")' } });
  const owner = await addUser(t, 'owner');
  const browser = await logIn(t, owner);
  const page = await browser.get(`/dashboard/w/${slug}/settings/audit?action=tag.create`);
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /tag\.create/);
  assert.match(page.body, /Audit log/);
  const csv = await browser.get(`/dashboard/w/${slug}/settings/audit.csv?action=tag.create`);
  assert.equal(csv.statusCode, 200);
  assert.match(String(csv.headers['content-type']), /text\/csv/);
  const lines = csv.body.trim().split('\n');
  assert.equal(lines[0], 'id,timestamp,actor_type,actor_id,ip,action,target_type,target_ids,changes');
  assert.ok(lines.length > 1 && lines.slice(1).every((l) => l.includes(',tag.create,')));
  for (const role of ['member', 'viewer'] as const) {
    const who = await logIn(t, await addUser(t, role));
    assert.equal((await who.get(`/dashboard/w/${slug}/settings/audit`)).statusCode, 403, role);
    assert.equal((await who.get(`/dashboard/w/${slug}/settings/audit.csv`)).statusCode, 403, role);
    assert.ok(!(await who.get(`/dashboard/w/${slug}/settings/general`)).body.includes('/settings/audit'), `${role}: no tab`);
  }
});

test('the CSV export neutralises formulas in every cell', async () => {
  // An entry whose cells would be formulas (written directly: the services never produce one).
  await t.ctx.database.db
    .insertInto('audit_log')
    .values({ id: 'aud_0000000000ZZZZZZZZZZZZZZZZ', workspace_id: t.workspaceId, at: Date.now(), actor_type: 'user', actor_id: '=cmd|calc', ip: '+1', action: 'tag.create', target_type: 'tag', target: '@x', target_ids: '["@x"]', changes: '{}' })
    .execute();
  const browser = await logIn(t, await addUser(t, 'owner'));
  const all = await browser.get(`/dashboard/w/${await slugOf(t)}/settings/audit.csv?action=tag.create`);
  assert.match(all.body, /'=cmd\|calc/);
  assert.match(all.body, /,'\+1,/);
  assert.ok(!/(^|,)=cmd/.test(all.body));
});

test('retention deletes entries older than AUDIT_RETENTION_DAYS, in the retention pass', async () => {
  const old = Date.now() - 400 * 86_400_000;
  await t.ctx.database.db
    .insertInto('audit_log')
    .values({ id: 'aud_0000000001AAAAAAAAAAAAAAAA', workspace_id: t.workspaceId, at: old, actor_type: 'cli', actor_id: null, ip: null, action: 'tag.create', target_type: 'tag', target: 'tag_old', target_ids: '["tag_old"]', changes: '{}' })
    .execute();
  const countBefore = (await entries()).length;
  assert.equal(t.config.auditRetentionDays, 365);
  await t.modules.retention.runNow();
  const left = await entries();
  assert.equal(left.length, countBefore - 1);
  assert.ok(!left.some((e) => e.id === 'aud_0000000001AAAAAAAAAAAAAAAA'));
});

test('exports are recorded: who downloaded which export, with its filters (API and dashboard)', async () => {
  const added = async (run: () => Promise<unknown>) => {
    const before = new Set((await entries()).map((e) => e.id));
    await run();
    return (await entries()).filter((e) => !before.has(e.id));
  };
  const keyId = (await t.ctx.workspaces.listKeys(t.workspaceId))[0]!.id;
  const viaKey = await added(async () => {
    const res = await t.inject({ method: 'GET', url: '/links/export?search=example' });
    assert.equal(res.statusCode, 200, res.body);
  });
  assert.deepEqual(viaKey.map((e) => [e.action, e.actor_type, e.actor_id]), [['export.links', 'api_key', keyId]]);
  assert.equal(JSON.parse(viaKey[0]!.changes).query.search, 'example');
  const analytics = await added(async () => assert.equal((await t.inject({ method: 'GET', url: '/analytics/export?groupBy=timeseries' })).statusCode, 200));
  assert.deepEqual(analytics.map((e) => e.action), ['export.analytics']);
  // A refused export (a bad filter) records nothing.
  assert.deepEqual(await added(async () => assert.notEqual((await t.inject({ method: 'GET', url: '/links/export?domain=%00' })).statusCode, 200)), []);

  const owner = await addUser(t, 'owner');
  const browser = await logIn(t, owner);
  const slug = await slugOf(t);
  const viaPage = await added(async () => assert.equal((await browser.get(`/dashboard/w/${slug}/links/export`)).statusCode, 200));
  assert.deepEqual(viaPage.map((e) => [e.action, e.actor_type, e.actor_id]), [['export.links', 'user', owner.id]]);
  const auditCsv = await added(async () => assert.equal((await browser.get(`/dashboard/w/${slug}/settings/audit.csv?action=tag`)).statusCode, 200));
  assert.deepEqual(auditCsv.map((e) => [e.action, JSON.parse(e.changes).query.action]), [['export.audit', 'tag']]);
});

test("a customer's erasure names who erased them", async () => {
  const id = `cus_${Date.now()}`;
  const at = Date.now();
  await t.ctx.database.db
    .insertInto('customers')
    .values({ id, workspace_id: t.workspaceId, name: 'C', email: null, avatar: null, country: null, processor_customer_id: null, external_id: `x${at}`, click_id: null, link_id: null, sales: 0, sale_amount: 0, first_sale_at: null, created_at: at, updated_at: at })
    .execute();
  const res = await t.inject({ method: 'DELETE', url: `/customers/${id}?deleteEvents=true` });
  assert.equal(res.statusCode, 200, res.body);
  const entry = (await entries()).find((e) => e.target === id)!;
  assert.equal(entry.action, 'customer.delete');
  assert.equal(entry.actor_type, 'api_key');
  assert.deepEqual(JSON.parse(entry.changes), { events: 'erased' });
});
