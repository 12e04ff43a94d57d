import { test } from 'node:test';
import assert from 'node:assert/strict';
import { VERSION } from '../version.js';
import { createTestApp } from '../test-support/harness.js';

test('the app: /ready 200 while the database answers, 503 when it fails; /health 200 either way', async () => {
  const t = await createTestApp();
  try {
    const ready = await t.app.inject({ method: 'GET', url: '/ready' });
    assert.equal(ready.statusCode, 200);
    assert.deepEqual(ready.json(), { status: 'ready' });
    assert.equal(ready.headers['cache-control'], 'no-store');

    const ping = t.database.ping;
    t.database.ping = () => Promise.reject(new Error('connection refused'));
    try {
      const down = await t.app.inject({ method: 'GET', url: '/ready' });
      assert.equal(down.statusCode, 503);
      assert.deepEqual(down.json(), { status: 'unavailable', reason: 'The database does not answer.' });
      assert.deepEqual((await t.app.inject({ method: 'GET', url: '/health' })).json(), { status: 'ok', version: VERSION });
      assert.equal((await t.app.inject({ method: 'GET', url: '/health' })).statusCode, 200);
    } finally {
      t.database.ping = ping;
    }
    assert.equal((await t.app.inject({ method: 'GET', url: '/ready' })).statusCode, 200, 'back once it answers');
  } finally {
    await t.close();
  }
});
