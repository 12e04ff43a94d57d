/**
 * `webhooks.disable` (the dashboard's "Disable"): a disabled webhook gets no delivery for events
 * after it was disabled, and an update (the dashboard's "Enable", the API's PATCH) turns it back on.
 * Deliveries of one event are queued for every subscribed webhook at once, so "B received it and
 * A has no delivery row" shows A was skipped without waiting for something not to happen.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { startReceiver, type Receiver } from './testing.js';

let t: TestApp;
let a: Receiver;
let b: Receiver;
before(async () => {
  t = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_INTERVAL_MS: '20' } });
  a = await startReceiver();
  b = await startReceiver();
});
after(async () => {
  await t.close();
  await a.close();
  await b.close();
});

const created = (r: Receiver, key: string) => r.got.some((g) => JSON.parse(g.body).event === 'link.created' && JSON.parse(g.body).data.key === key);

test('a disabled webhook is skipped; enabling it again resumes deliveries', async () => {
  const hook = async (url: string) => (await t.inject({ method: 'POST', url: '/webhooks', payload: { name: 'h', url, triggers: ['link.created'] } })).json() as { id: string };
  const ha = await hook(a.url);
  await hook(b.url);
  const service = t.modules.webhooks.service;
  const disabled = await service.disable(t.workspaceId, ha.id);
  assert.notEqual(disabled.disabledAt, null);
  assert.equal((await service.disable(t.workspaceId, ha.id)).disabledAt, disabled.disabledAt, 'disabling twice keeps the first time');

  await t.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/one', key: 'one' } });
  await b.until((got) => created({ got } as Receiver, 'one'), 'link.created at B');
  assert.deepEqual(await service.deliveries(t.workspaceId, ha.id), []);

  await service.update(t.workspaceId, ha.id, {});
  await t.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/two', key: 'two' } });
  await a.until((got) => created({ got } as Receiver, 'two'), 'link.created at A');
  assert.equal(created(a, 'one'), false);

  await assert.rejects(service.disable((await t.addWorkspace()).workspaceId, ha.id), /not found/i);
});
