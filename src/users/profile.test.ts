/**
 * A person's name and email (users/profile.ts), on the engine under test (SQLite, or PostgreSQL
 * with DATABASE_URL), with mail to a real SMTP receiver: the name without a password; the email
 * only with the password (403 otherwise, nothing changed), validated, unique without regard to
 * case (409), its other sessions ended, a notice at the old address naming the new one, and one
 * `user.update` entry in each of the person's workspaces (never a password).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestApp } from '../test-support/harness.js';
import { useMailTestApp } from '../test-support/mail-app.js';
import { ApiError } from '../http/errors.js';
import { addUser } from '../dashboard/testing.js';
import type { Who } from '../audit/record.js';
import { mayChangeEmail, type EmailChangeProof } from './profile.js';
import { hashToken } from './tokens.js';

let t: TestApp;
const smtp = useMailTestApp((app) => (t = app));

const refusal = async (work: Promise<unknown>): Promise<ApiError> => {
  const err = await work.then(() => undefined, (e: unknown) => e);
  assert.ok(err instanceof ApiError, `refused with an ApiError, got ${String(err)}`);
  return err;
};
const whoIs = (id: string): Who => ({ actor: { type: 'user', id }, ip: '198.51.100.4' });
const PASSWORD: EmailChangeProof = { passwordCorrect: true, recentlyReauthenticated: false };
const entriesFor = (userId: string) => t.database.db.selectFrom('audit_log').selectAll().where('target', '=', userId).where('action', '=', 'user.update').execute();

test('mayChangeEmail: the password or a fresh single sign-on, nothing else', () => {
  assert.equal(mayChangeEmail({ passwordCorrect: true, recentlyReauthenticated: false }), true);
  assert.equal(mayChangeEmail({ passwordCorrect: false, recentlyReauthenticated: true }), true);
  assert.equal(mayChangeEmail({ passwordCorrect: false, recentlyReauthenticated: false }), false);
});

test('the name changes without a password, recorded in each of the workspaces the person belongs to', async () => {
  const ann = await addUser(t, 'member', t.workspaceId, 'Ann');
  const other = await t.addWorkspace();
  await t.modules.users.service.addMembership(ann.id, other.workspaceId, 'viewer');
  await t.modules.users.profile.rename(ann.id, '  Ann Lee ', whoIs(ann.id));
  assert.equal((await t.modules.users.service.findById(ann.id))!.name, 'Ann Lee');
  const entries = await entriesFor(ann.id);
  assert.deepEqual(entries.map((e) => e.workspace_id).sort(), [t.workspaceId, other.workspaceId].sort());
  for (const e of entries) {
    assert.equal(e.actor_id, ann.id);
    assert.deepEqual(JSON.parse(e.changes), { name: { from: 'Ann', to: 'Ann Lee' } });
  }
  await t.modules.users.profile.rename(ann.id, 'Ann Lee', whoIs(ann.id));
  assert.equal((await entriesFor(ann.id)).length, 2, 'an unchanged name records nothing');
  const empty = await refusal(t.modules.users.profile.rename(ann.id, '   ', whoIs(ann.id)));
  assert.equal(empty.status, 422);
  assert.equal(empty.field, 'name');
  assert.equal((await refusal(t.modules.users.profile.rename(ann.id, 'x'.repeat(101), whoIs(ann.id)))).field, 'name');
});

test('the email: refused without the password, then changed with it; other sessions end, the old address is told', async () => {
  const bo = await addUser(t, 'member', t.workspaceId, 'Bo');
  const oldEmail = bo.email;
  const here = await t.modules.users.sessions.start(bo.id);
  const elsewhere = await t.modules.users.sessions.start(bo.id);
  const profile = t.modules.users.profile;

  const wrong = await refusal(profile.changeEmail(bo.id, 'bo@new.example', { passwordCorrect: false, recentlyReauthenticated: false }, hashToken(here.token), whoIs(bo.id)));
  assert.equal(wrong.status, 403);
  assert.equal(wrong.field, 'current');
  assert.equal((await t.modules.users.service.findById(bo.id))!.email, oldEmail, 'nothing changed');
  assert.ok(await t.modules.users.sessions.resolve(elsewhere.token), 'no session ended');

  const invalid = await refusal(profile.changeEmail(bo.id, 'not an address', PASSWORD, hashToken(here.token), whoIs(bo.id)));
  assert.equal(invalid.status, 422);
  assert.equal(invalid.field, 'email');

  const unusedResets = () => t.database.db.selectFrom('password_resets').select('token_hash').where('user_id', '=', bo.id).where('used_at', 'is', null).execute();
  await t.modules.users.passwordResets.request(oldEmail);
  assert.equal((await unusedResets()).length, 1, 'a reset link went to the old address');

  const { sessionsEnded } = await profile.changeEmail(bo.id, '  Bo@New.Example ', PASSWORD, hashToken(here.token), whoIs(bo.id));
  assert.deepEqual(await unusedResets(), [], 'the old address\'s reset link no longer works');
  assert.equal(sessionsEnded, 1);
  const row = (await t.modules.users.service.findById(bo.id))!;
  assert.equal(row.email, 'Bo@New.Example');
  assert.equal(row.email_key, 'bo@new.example');
  assert.ok(await t.modules.users.service.checkPassword('BO@new.example', bo.password), 'the new address logs in');
  assert.equal(await t.modules.users.service.checkPassword(oldEmail, bo.password), null, 'the old one no longer does');
  assert.ok(await t.modules.users.sessions.resolve(here.token), 'the session that changed it stays');
  assert.equal(await t.modules.users.sessions.resolve(elsewhere.token), null, 'the other one ended');

  const [entry, ...more] = await entriesFor(bo.id);
  assert.equal(more.length, 0);
  assert.equal(entry!.workspace_id, t.workspaceId);
  assert.deepEqual(JSON.parse(entry!.changes), { email: { from: oldEmail, to: 'Bo@New.Example' } });
  assert.ok(!entry!.changes.includes(bo.password));

  const notice = await smtp.mailTo(oldEmail, 30_000, 'Your Waymark email address was changed');
  assert.deepEqual(notice.to, [oldEmail]);
  assert.equal(notice.subject, 'Your Waymark email address was changed');
  assert.match(notice.text, /changed from \S+ to Bo@New\.Example/);
  assert.ok(!smtp.inbox.some((m) => m.to.includes('Bo@New.Example')), 'nothing is sent to the new address');
});

test('an address another account has, in any case, is 409 at email', async () => {
  const cy = await addUser(t, 'viewer');
  const dee = await addUser(t, 'viewer');
  const s = await t.modules.users.sessions.start(cy.id);
  const taken = await refusal(t.modules.users.profile.changeEmail(cy.id, dee.email.toUpperCase(), PASSWORD, hashToken(s.token), whoIs(cy.id)));
  assert.equal(taken.status, 409);
  assert.equal(taken.field, 'email');
  assert.equal((await t.modules.users.service.findById(cy.id))!.email, cy.email);
  assert.equal((await entriesFor(cy.id)).length, 0);
});

test('two accounts moving to one new address at once: one gets it, the other 409 (never a server error)', async () => {
  const [a, b] = [await addUser(t, 'viewer'), await addUser(t, 'viewer')];
  const target = `race-${Date.now()}@example.com`;
  const move = async (u: { id: string }) => t.modules.users.profile.changeEmail(u.id, target, PASSWORD, hashToken((await t.modules.users.sessions.start(u.id)).token), whoIs(u.id));
  const results = await Promise.allSettled([move(a), move(b)]);
  assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
  const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
  assert.ok(lost.reason instanceof ApiError, String(lost.reason));
  assert.equal(lost.reason.status, 409);
});
