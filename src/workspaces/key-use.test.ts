/** An API key's "last used": written at most once a minute per key, off the request's path. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as tick } from 'node:timers/promises';
import { createWorkspaceService, KEY_USE_RECORD_MS } from './service.js';
import type { WorkspaceStore } from './store.js';
import { createTestApp } from '../test-support/harness.js';
import { addUser, logIn, slugOf } from '../dashboard/testing.js';

test('a burst of requests writes the key’s use once; a minute later once more', async () => {
  let clock = Date.UTC(2026, 10, 27, 12, 0, 0);
  const writes: number[] = [];
  const key = { id: 'key_1', workspace_id: 'ws_1', revoked_at: null, scopes: null, last_used_at: null as number | null };
  const store = {
    findKeyByHash: async () => ({ key: { ...key }, workspace: { id: 'ws_1' } }),
    touchKey: async (_id: string, now: number) => {
      writes.push(now);
      key.last_used_at = now;
      return true;
    },
  } as unknown as WorkspaceStore;
  const service = createWorkspaceService(store, () => clock);
  for (let i = 0; i < 20; i++) await service.authenticate('wm_any');
  assert.deepEqual(writes, [clock], 'one write for 20 requests');
  clock += KEY_USE_RECORD_MS - 1;
  await service.authenticate('wm_any');
  assert.equal(writes.length, 1, 'not within the minute');
  clock += 1;
  await service.authenticate('wm_any');
  assert.deepEqual(writes.length, 2, 'a minute later');
  // Another process wrote it meanwhile (the row says so): no write.
  key.last_used_at = clock + 30_000;
  clock += KEY_USE_RECORD_MS;
  await service.authenticate('wm_any');
  assert.equal(writes.length, 2);
});

test('a failed write does not fail the request', async () => {
  const store = {
    findKeyByHash: async () => ({ key: { id: 'key_1', revoked_at: null, scopes: null, last_used_at: null }, workspace: { id: 'ws_1' } }),
    touchKey: async () => {
      throw new Error('database closed');
    },
  } as unknown as WorkspaceStore;
  const auth = await createWorkspaceService(store).authenticate('wm_any');
  assert.equal(auth.keyId, 'key_1');
  await tick();
});

test('the keys page shows when a key was last used (after an API call), "never" before', async () => {
  const t = await createTestApp();
  try {
    const owner = await logIn(t, await addUser(t, 'owner'));
    const url = `/dashboard/w/${await slugOf(t)}/settings/keys`;
    const before = await owner.get(url);
    assert.match(before.body, /never/);
    assert.equal((await t.app.inject({ method: 'GET', url: '/links', headers: t.headers })).statusCode, 200);
    // The write is not awaited by the request: wait for the row (bounded by the test's timeout, not a timer).
    while (!(await t.database.db.selectFrom('api_keys').select('last_used_at').where('last_used_at', 'is not', null).executeTakeFirst())) await tick();
    const after = await owner.get(url);
    assert.match(after.body, /<time datetime="\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z">\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC<\/time>/);
  } finally {
    await t.close();
  }
});
