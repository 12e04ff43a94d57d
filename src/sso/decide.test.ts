import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decideSignIn, identityOf, planMemberships, rolesFromClaim, type Identity } from './decide.js';

const ann: Identity = { issuer: 'https://id.example.com', subject: 'ann', email: 'Ann@Example.com', emailVerified: true, name: 'Ann' };
const settings = { allowedDomains: ['example.com'] };
const none = { linkedUserId: null, userByEmail: null };

test('decideSignIn: a linked identity is its user; an unknown one of an allowed domain is created, named by the token or the address', () => {
  assert.deepEqual(decideSignIn(ann, { linkedUserId: 'user_1', userByEmail: { id: 'user_2' } }, settings), { kind: 'known', userId: 'user_1' });
  assert.deepEqual(decideSignIn(ann, none, settings), { kind: 'create', email: 'Ann@Example.com', name: 'Ann' });
  assert.deepEqual(decideSignIn({ ...ann, name: null, emailVerified: false }, none, settings), { kind: 'create', email: 'Ann@Example.com', name: 'Ann' });
});

test('decideSignIn: an existing user is linked only when the provider verified the address', () => {
  assert.deepEqual(decideSignIn(ann, { linkedUserId: null, userByEmail: { id: 'user_2' } }, settings), { kind: 'link', userId: 'user_2' });
  const refused = decideSignIn({ ...ann, emailVerified: false }, { linkedUserId: null, userByEmail: { id: 'user_2' } }, settings);
  assert.equal(refused.kind, 'refuse');
  assert.equal(refused.kind === 'refuse' && refused.reason, 'unverified');
});

test('decideSignIn: another email domain, or none, is refused, even for a linked identity', () => {
  for (const email of ['bob@other.test', 'eve@example.com.evil.test', 'eve@sub.example.com']) {
    const d = decideSignIn({ ...ann, email }, { linkedUserId: 'user_1', userByEmail: null }, settings);
    assert.equal(d.kind === 'refuse' && d.reason, 'domain', email);
  }
  for (const email of [null, '', 'no-at-sign']) {
    const d = decideSignIn({ ...ann, email }, none, settings);
    assert.equal(d.kind === 'refuse' && d.reason, 'no_email');
  }
});

test('rolesFromClaim: waymark:<slug>:<role> values from a list or a string, others ignored, the highest role per slug; null when none', () => {
  assert.deepEqual(rolesFromClaim(['waymark:acme:member', 'staff', 'waymark:acme:owner', 'waymark:web:viewer', 'waymark:x:admin', 42]), new Map([['acme', 'owner'], ['web', 'viewer']]));
  assert.deepEqual(rolesFromClaim('waymark:Acme:Member waymark:web:viewer'), new Map([['acme', 'member'], ['web', 'viewer']]));
  assert.equal(rolesFromClaim(['staff']), null);
  assert.equal(rolesFromClaim(undefined), null);
  assert.equal(rolesFromClaim({ acme: 'owner' }), null);
});

test('planMemberships: adds, changes and removes what the claim does not name; nothing when equal', () => {
  const current = new Map([['ws_a', 'viewer'], ['ws_b', 'member'], ['ws_c', 'owner']] as const);
  const wanted = new Map([['ws_a', 'owner'], ['ws_b', 'member'], ['ws_d', 'viewer']] as const);
  assert.deepEqual(planMemberships(current, wanted), [
    { workspaceId: 'ws_a', from: 'viewer', to: 'owner' },
    { workspaceId: 'ws_d', from: null, to: 'viewer' },
    { workspaceId: 'ws_c', from: 'owner', to: null },
  ]);
  assert.deepEqual(planMemberships(wanted, wanted), []);
});

test('identityOf: email_verified decides; Entra ID\'s xms_edov stands in only when email_verified is absent', () => {
  const base = { iss: 'https://id.example', sub: 's1', email: 'ann@example.com', name: 'Ann' };
  assert.deepEqual(identityOf({ ...base, email_verified: true }), { issuer: 'https://id.example', subject: 's1', email: 'ann@example.com', emailVerified: true, name: 'Ann' });
  assert.equal(identityOf({ ...base, email_verified: 'true' }).emailVerified, false, 'only the boolean');
  assert.equal(identityOf(base).emailVerified, false);
  assert.equal(identityOf({ ...base, xms_edov: true }).emailVerified, true);
  assert.equal(identityOf({ ...base, email_verified: false, xms_edov: true }).emailVerified, false, 'the provider said no');
  assert.deepEqual(identityOf({ iss: 'i', sub: 's', email: 42, name: null }), { issuer: 'i', subject: 's', email: null, emailVerified: false, name: null });
});
