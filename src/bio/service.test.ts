/** Bio page rules over the real store: validation at each field, domains and links of the workspace only, unique handles and roots. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { insertDomain, insertLink } from '../redirect/testing.js';
import { validateBioInput } from './schema.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
  await insertDomain(t.database.db, t.workspaceId, { slug: 'svc.test' });
});
after(() => t.close());

test('validateBioInput: each refusal names its field in plain words', () => {
  const r = validateBioInput({ domain: '', handle: '-bad-', title: 'x'.repeat(81), bio: 'y'.repeat(281), avatar: 'http://img.example/a.png', theme: 'neon', social_x: 'javascript:alert(1)' });
  assert.equal(r.ok, false);
  if (r.ok) return;
  assert.deepEqual(Object.keys(r.errors).sort(), ['avatar', 'bio', 'domain', 'handle', 'social_x', 'theme', 'title']);
  assert.match(r.errors.avatar!, /https/);
  assert.match(r.errors.social_x!, /http:\/\/ or https:\/\//);
  assert.equal(validateBioInput({ domain: 'a', handle: 'x'.repeat(31), title: 't' }).ok, false);
  const ok = validateBioInput({ domain: 'A.test', handle: 'Ada_L', title: ' Ada ', links: 'l1, l2 l1', social_github: 'https://github.com/ada' });
  assert.ok(ok.ok);
  if (ok.ok) {
    assert.equal(ok.value.domain, 'a.test');
    assert.equal(ok.value.title, 'Ada');
    assert.deepEqual(ok.value.linkIds, ['l1', 'l2']);
    assert.equal(ok.value.theme, 'light');
    assert.deepEqual(ok.value.socials, { github: 'https://github.com/ada' });
  }
});

test('save: links and domains of this workspace only; handles unique per domain; one root a domain', async () => {
  const bio = t.modules.bio.service;
  const mine = await insertLink(t.database.db, t.workspaceId, { domain: 'svc.test', key: 'mine', url: 'https://example.com/' });
  const other = await t.addWorkspace();
  await insertDomain(t.database.db, other.workspaceId, { slug: 'other-svc.test' });
  const theirs = await insertLink(t.database.db, other.workspaceId, { domain: 'other-svc.test', key: 'theirs', url: 'https://example.com/' });

  const foreignLink = await bio.save(t.workspaceId, null, { domain: 'svc.test', handle: 'ada', title: 'Ada', links: [mine.id, theirs.id] });
  assert.deepEqual(foreignLink, { ok: false, errors: { links: 'Choose links of this workspace only.' } });
  const foreignDomain = await bio.save(t.workspaceId, null, { domain: 'other-svc.test', handle: 'ada', title: 'Ada' });
  assert.equal(foreignDomain.ok, false);
  const sharedRoot = await bio.save(t.workspaceId, null, { domain: t.config.shortDomain, handle: 'ada', title: 'Ada', atRoot: 'on' });
  assert.equal(sharedRoot.ok, false);

  const saved = await bio.save(t.workspaceId, null, { domain: 'svc.test', handle: 'Ada', title: 'Ada', links: [mine.id], atRoot: 'on' });
  assert.ok(saved.ok);
  if (!saved.ok) return;
  assert.deepEqual(saved.page.linkIds, [mine.id]);
  assert.equal(saved.page.atRoot, true);

  const dup = await bio.save(t.workspaceId, null, { domain: 'svc.test', handle: 'ADA', title: 'Again' });
  assert.deepEqual(dup, { ok: false, errors: { handle: 'The handle @ADA is taken on svc.test.' } });
  const secondRoot = await bio.save(t.workspaceId, null, { domain: 'svc.test', handle: 'bob', title: 'Bob', atRoot: 'on' });
  assert.deepEqual(secondRoot, { ok: false, errors: { domain: 'Another page is already the root of svc.test.' } });

  const updated = await bio.save(t.workspaceId, saved.page.id, { domain: 'svc.test', handle: 'ada', title: 'Ada L.', theme: 'dark' });
  assert.ok(updated.ok);
  const read = await bio.get(t.workspaceId, saved.page.id);
  assert.equal(read.title, 'Ada L.');
  assert.equal(read.theme, 'dark');
  assert.equal(read.atRoot, false);
  assert.deepEqual(read.linkIds, []);

  // Another workspace sees none of it.
  await assert.rejects(bio.get(other.workspaceId, saved.page.id), { status: 404 });
  await assert.rejects(bio.save(other.workspaceId, saved.page.id, { domain: 'other-svc.test', handle: 'x', title: 'x' }), { status: 404 });
  await assert.rejects(bio.delete(other.workspaceId, saved.page.id), { status: 404 });
  assert.deepEqual(await bio.list(other.workspaceId), []);
  await bio.delete(t.workspaceId, saved.page.id);
  assert.deepEqual(await bio.list(t.workspaceId), []);
});
