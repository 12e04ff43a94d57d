/**
 * UTM templates' store and rules, on the engine under test (SQLite, or PostgreSQL with
 * DATABASE_URL): values validated as a link's UTM fields, names unique per workspace without
 * regard to case, the per-workspace cap, and each workspace's templates kept apart.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { ApiError } from '../http/errors.js';
import { MAX_UTM_TEMPLATES } from './schema.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const refusal = async (work: Promise<unknown>): Promise<ApiError> => {
  const err = await work.then(() => undefined, (e: unknown) => e);
  assert.ok(err instanceof ApiError, `refused with an ApiError, got ${String(err)}`);
  return err;
};

test('a template is saved trimmed, listed by name and read back with every column', async () => {
  const s = t.modules.utmTemplates.service;
  const ws = (await t.addWorkspace()).workspaceId;
  const news = await s.create(ws, { name: '  Newsletter ', utm_source: ' newsletter ', utm_medium: 'email', utm_campaign: '' }, 'user_1');
  await s.create(ws, { name: 'ads', utm_source: 'google', utm_medium: 'cpc', utm_term: 'shoes', utm_content: 'banner' }, null);
  assert.equal(news.name, 'Newsletter');
  assert.deepEqual(news.values, { utm_source: 'newsletter', utm_medium: 'email', utm_campaign: '', utm_term: '', utm_content: '' });
  assert.deepEqual((await s.list(ws)).map((x) => x.name), ['ads', 'Newsletter']);
  assert.deepEqual((await s.get(ws, news.id)).values, news.values);
  const row = await t.database.db.selectFrom('utm_templates').selectAll().where('id', '=', news.id).executeTakeFirstOrThrow();
  assert.equal(row.utm_campaign, null, 'an empty value is stored as null');
  assert.equal(row.created_by, 'user_1');
});

test("values follow the link's UTM limits; a name is required, unique without regard to case", async () => {
  const s = t.modules.utmTemplates.service;
  const ws = (await t.addWorkspace()).workspaceId;
  const tooLong = await refusal(s.create(ws, { name: 'long', utm_source: 'x'.repeat(191) }, null));
  assert.equal(tooLong.status, 422);
  assert.equal(tooLong.field, 'utm_source');
  await s.create(ws, { name: 'max', utm_campaign: 'y'.repeat(190) }, null);
  assert.equal((await refusal(s.create(ws, { name: 'empty', utm_source: '  ' }, null))).field, 'utm');
  assert.equal((await refusal(s.create(ws, { name: ' ', utm_source: 'a' }, null))).field, 'name');
  assert.equal((await refusal(s.create(ws, { name: 'n'.repeat(101), utm_source: 'a' }, null))).field, 'name');
  const dup = await refusal(s.create(ws, { name: 'MAX', utm_source: 'a' }, null));
  assert.equal(dup.status, 409);
  assert.deepEqual((await s.list(ws)).map((x) => x.name), ['max']);
});

test("another workspace's template is never listed, read or deleted; the same name is free there", async () => {
  const s = t.modules.utmTemplates.service;
  const a = (await t.addWorkspace()).workspaceId;
  const b = (await t.addWorkspace()).workspaceId;
  const mine = await s.create(a, { name: 'Spring', utm_campaign: 'spring' }, null);
  await s.create(b, { name: 'spring', utm_campaign: 'other' }, null);
  assert.deepEqual((await s.list(a)).map((x) => x.values.utm_campaign), ['spring']);
  assert.deepEqual((await s.list(b)).map((x) => x.values.utm_campaign), ['other']);
  assert.equal((await refusal(s.get(b, mine.id))).status, 404);
  assert.equal((await refusal(s.delete(b, mine.id))).status, 404);
  assert.equal((await s.list(a)).length, 1, 'still there after the other workspace tried to delete it');
  await s.delete(a, mine.id);
  assert.deepEqual(await s.list(a), []);
  assert.equal((await refusal(s.delete(a, mine.id))).status, 404);
});

test(`a workspace keeps at most ${MAX_UTM_TEMPLATES} templates`, async () => {
  const s = t.modules.utmTemplates.service;
  const ws = (await t.addWorkspace()).workspaceId;
  for (let i = 0; i < MAX_UTM_TEMPLATES; i++) await s.create(ws, { name: `t${i}`, utm_source: `s${i}` }, null);
  const full = await refusal(s.create(ws, { name: 'one more', utm_source: 'x' }, null));
  assert.equal(full.status, 403);
  assert.equal((await s.list(ws)).length, MAX_UTM_TEMPLATES);
});
