import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ACTIONS, can, isRole } from './roles.js';

test('owners may do everything', () => {
  for (const action of ACTIONS) assert.equal(can('owner', action), true, action);
});

test('members manage links, tags, folders and customers, not members, keys or settings', () => {
  const allowed = ACTIONS.filter((a) => can('member', a));
  assert.deepEqual(allowed, ['workspace.read', 'links.write', 'tags.write', 'folders.write', 'customers.write']);
});

test('viewers only read', () => {
  assert.deepEqual(ACTIONS.filter((a) => can('viewer', a)), ['workspace.read']);
});

test('an unknown role may do nothing', () => {
  assert.equal(isRole('admin'), false);
  for (const action of ACTIONS) assert.equal(can('admin' as never, action), false);
});
