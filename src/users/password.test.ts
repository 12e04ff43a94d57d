import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hashPassword, mayGetPasswordByReset, NO_PASSWORD, passwordAccessOf, scryptRuns, verifyPassword } from './password.js';

test('a hash verifies its password only, and two hashes of one password differ (salted)', async () => {
  const a = await hashPassword('correct horse battery');
  const b = await hashPassword('correct horse battery');
  assert.notEqual(a, b);
  assert.match(a, /^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
  assert.equal(await verifyPassword(a, 'correct horse battery'), true);
  assert.equal(await verifyPassword(a, 'correct horse batterY'), false);
});

test('an unknown account (no hash) still runs scrypt and fails', async () => {
  const before = scryptRuns.count;
  assert.equal(await verifyPassword(null, 'whatever'), false);
  assert.equal(scryptRuns.count, before + 1);
  assert.equal(await verifyPassword('garbage', 'whatever'), false);
  assert.equal(scryptRuns.count, before + 2);
});

test('passwordAccessOf / mayGetPasswordByReset: an SSO account (no password) gets one by reset only when an owner allowed it', async () => {
  const own = { password_hash: await hashPassword('correct horse battery'), password_allowed_at: null };
  assert.equal(passwordAccessOf(own), 'password');
  assert.equal(mayGetPasswordByReset(own), true);
  const ssoOnly = { password_hash: NO_PASSWORD, password_allowed_at: null };
  assert.equal(passwordAccessOf(ssoOnly), 'sso_only');
  assert.equal(mayGetPasswordByReset(ssoOnly), false);
  for (const allowed of [{ ...ssoOnly, password_allowed_at: 1 }, { ...own, password_allowed_at: 1 }]) {
    assert.equal(passwordAccessOf(allowed), 'allowed');
    assert.equal(mayGetPasswordByReset(allowed), true);
  }
});
