/**
 * Workspaces made from the dashboard, on the engine under test (SQLite, or PostgreSQL with
 * DATABASE_URL): the creator is the owner in the same transaction, with one audit entry in the new
 * workspace; the API's name and slug rules; a taken slug is 409 at `slug`; the WORKSPACE_CREATION
 * rule and the per-user cap, also for two creations at once.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { ApiError } from '../http/errors.js';
import { addUser } from '../dashboard/testing.js';
import { createOwnedWorkspace, creationRefusal, type CreationRule } from './creation.js';
import type { Who } from '../audit/record.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const uniq = () => randomBytes(4).toString('hex');
const refusal = async (work: Promise<unknown>): Promise<ApiError> => {
  const err = await work.then(() => undefined, (e: unknown) => e);
  assert.ok(err instanceof ApiError, `refused with an ApiError, got ${String(err)}`);
  return err;
};
const OWNERS: CreationRule = { policy: 'owners', limit: 20 };

async function create(userId: string, input: { name?: string; slug?: string }, rule = OWNERS) {
  const deps = { workspaces: t.ctx.workspaces, ownershipStep: t.modules.users.service.ownershipStep };
  const who: Who = { actor: { type: 'user', id: userId }, ip: '203.0.113.9' };
  return createOwnedWorkspace(deps, rule, userId, await t.modules.users.service.workspacesOf(userId), input, who);
}

test('the rule (pure): owners by default, anyone, none, and the cap', () => {
  assert.equal(creationRefusal(OWNERS, [{ role: 'owner' }, { role: 'viewer' }]), null);
  assert.match(creationRefusal(OWNERS, [{ role: 'member' }, { role: 'viewer' }])!, /Only owners/);
  assert.match(creationRefusal(OWNERS, [])!, /Only owners/);
  assert.equal(creationRefusal({ policy: 'anyone', limit: 20 }, []), null);
  assert.match(creationRefusal({ policy: 'none', limit: 20 }, [{ role: 'owner' }])!, /operator/);
  assert.match(creationRefusal({ policy: 'anyone', limit: 2 }, [{ role: 'owner' }, { role: 'owner' }, { role: 'member' }])!, /own 2 workspaces/);
});

test('the creator owns the new workspace, and its log has one workspace.create by them', async () => {
  const ann = await addUser(t, 'owner');
  const slug = `acme-${uniq()}`;
  const ws = await create(ann.id, { name: '  Acme Inc  ', slug: slug.toUpperCase() });
  assert.equal(ws.name, 'Acme Inc');
  assert.equal(ws.slug, slug, 'the slug is kept lower-case');
  assert.equal(await t.modules.users.service.roleOf(ann.id, ws.id), 'owner');
  assert.deepEqual((await t.modules.users.service.membersOf(ws.id)).map((m) => m.userId), [ann.id]);
  const entries = await t.database.db.selectFrom('audit_log').selectAll().where('workspace_id', '=', ws.id).execute();
  assert.equal(entries.length, 1);
  assert.equal(entries[0]!.action, 'workspace.create');
  assert.equal(entries[0]!.actor_type, 'user');
  assert.equal(entries[0]!.actor_id, ann.id);
  assert.equal(entries[0]!.ip, '203.0.113.9');
  assert.deepEqual(JSON.parse(entries[0]!.changes), { name: 'Acme Inc', slug, plan: 'enterprise' });
});

test("an empty slug is the name's free suggestion; the API's name and slug rules refuse at their field", async () => {
  const ann = await addUser(t, 'owner');
  const name = `Zeta ${uniq()}`;
  const first = await create(ann.id, { name, slug: '' });
  assert.equal(first.slug, name.toLowerCase().replace(' ', '-'));
  const second = await create(ann.id, { name, slug: '' });
  assert.equal(second.slug, `${first.slug}-2`);

  const noName = await refusal(create(ann.id, { name: ' ', slug: `ok-${uniq()}` }));
  assert.equal(noName.status, 422);
  assert.equal(noName.field, 'name');
  const longName = await refusal(create(ann.id, { name: 'x'.repeat(33), slug: `ok-${uniq()}` }));
  assert.equal(longName.field, 'name', 'names are at most 32 characters, as PATCH /workspaces says');
  for (const slug of ['ab', 'has space', 'emoji-☃', 'x'.repeat(49)]) {
    const bad = await refusal(create(ann.id, { name: 'Fine', slug }));
    assert.equal(bad.status, 422, slug);
    assert.equal(bad.field, 'slug', slug);
  }
  const reserved = await refusal(create(ann.id, { name: 'Fine', slug: 'API' }));
  assert.equal(reserved.status, 422);
  assert.equal(reserved.field, 'slug');
  assert.match(reserved.message, /reserved/);
});

test('a taken slug is 409 at slug and leaves nothing behind', async () => {
  const ann = await addUser(t, 'owner');
  const slug = `taken-${uniq()}`;
  await create(ann.id, { name: 'One', slug });
  const before = await t.modules.users.service.workspacesOf(ann.id);
  const taken = await refusal(create(ann.id, { name: 'Two', slug }));
  assert.equal(taken.status, 409);
  assert.equal(taken.field, 'slug');
  assert.deepEqual(await t.modules.users.service.workspacesOf(ann.id), before);
});

test('who may: a viewer is refused under "owners", allowed under "anyone"; nobody under "none"', async () => {
  const vic = await addUser(t, 'viewer');
  const err = await refusal(create(vic.id, { name: 'Mine', slug: `mine-${uniq()}` }));
  assert.equal(err.status, 403);
  const ws = await create(vic.id, { name: 'Mine', slug: `mine-${uniq()}` }, { policy: 'anyone', limit: 20 });
  assert.equal(await t.modules.users.service.roleOf(vic.id, ws.id), 'owner');
  assert.equal((await refusal(create(vic.id, { name: 'More', slug: `more-${uniq()}` }, { policy: 'none', limit: 20 }))).status, 403);
});

test('the cap counts every owned workspace, checked in the transaction: two at once at the limit make one', async () => {
  const bo = await addUser(t, 'owner'); // owns the harness's workspace: 1
  const rule: CreationRule = { policy: 'owners', limit: 3 };
  await create(bo.id, { name: 'Two', slug: `two-${uniq()}` }, rule);
  // Both see 2 owned before they start; the locked count in the transaction lets only one pass.
  const results = await Promise.allSettled([create(bo.id, { name: 'Three', slug: `three-${uniq()}` }, rule), create(bo.id, { name: 'Four', slug: `four-${uniq()}` }, rule)]);
  const refused = results.filter((r) => r.status === 'rejected');
  assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1, JSON.stringify(refused.map((r) => String((r as PromiseRejectedResult).reason))));
  assert.ok((refused[0] as PromiseRejectedResult).reason instanceof ApiError);
  assert.equal(((refused[0] as PromiseRejectedResult).reason as ApiError).status, 403);
  const owned = (await t.modules.users.service.workspacesOf(bo.id)).filter((w) => w.role === 'owner');
  assert.equal(owned.length, 3);
  const refusedAgain = await refusal(create(bo.id, { name: 'Five', slug: `five-${uniq()}` }, rule));
  assert.equal(refusedAgain.status, 403);
  assert.match(refusedAgain.message, /3/);
});

test('two creations of one slug at once: one workspace, the other 409 at slug (never a server error)', async () => {
  const ann = await addUser(t, 'owner');
  const slug = `race-${uniq()}`;
  const results = await Promise.allSettled([create(ann.id, { name: 'A', slug }), create(ann.id, { name: 'B', slug })]);
  assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
  const lost = (results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason;
  assert.ok(lost instanceof ApiError, String(lost));
  assert.equal(lost.status, 409);
  assert.equal(lost.field, 'slug');
  assert.equal((await t.modules.users.service.workspacesOf(ann.id)).filter((w) => w.slug === slug).length, 1);
});
