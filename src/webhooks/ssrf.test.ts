/**
 * Outbound safety of webhooks (src/outbound/): without WEBHOOK_ALLOW_PRIVATE, a receiver URL that
 * is not a public address is refused when it is saved (422, create and update), whatever its
 * spelling; one that turns private after it was saved (a name re-pointed at 127.0.0.1: DNS
 * rebinding, or a row saved before this check) is refused when sent, as a failure for good: no
 * retry, and the receiver gets nothing.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { newId } from '../ids.js';
import { startReceiver, type Receiver } from './testing.js';

let t: TestApp;
let r: Receiver;
before(async () => {
  t = await createTestApp({ env: { WEBHOOK_POLL_INTERVAL_MS: '20', WEBHOOK_RETRY_DELAYS_MS: '50,50,50' } });
  r = await startReceiver();
});
after(async () => {
  await t.close();
  await r.close();
});

test('a receiver on a private, loopback or metadata address is refused at save time with 422, in every IPv6 transition form', async () => {
  const port = new URL(r.url).port;
  const refused = [
    `http://localhost:${port}/hook`, `http://127.0.0.1:${port}/hook`, `http://[::1]:${port}/hook`, 'http://169.254.169.254/latest/meta-data',
    'http://[::7f00:1]/', 'http://[2002:7f00:1::]/', 'http://[64:ff9b::7f00:1]/', 'http://[64:ff9b:1::a00:1]/', 'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/',
    'http://2130706433/', 'http://[::ffff:a9fe:a9fe]/', 'https://10.0.0.1/',
  ];
  for (const url of refused) {
    const res = await t.inject({ method: 'POST', url: '/webhooks', payload: { name: 'ssrf', url, triggers: ['link.created'] } });
    assert.equal(res.statusCode, 422, `${url}: ${res.body}`);
    assert.equal(res.json().error.code, 'unprocessable_entity');
    assert.match(res.json().error.message, /^url: refused: .* private or reserved address/, url);
  }
  assert.deepEqual((await t.inject({ method: 'GET', url: '/webhooks' })).json(), [], 'nothing saved');

  // A public address is accepted (saved only: nothing is sent to it here), and an update to a private one refused.
  const ok = await t.inject({ method: 'POST', url: '/webhooks', payload: { name: 'public', url: 'https://93.184.216.34/hook', triggers: ['lead.created'] } });
  assert.equal(ok.statusCode, 200, ok.body);
  const patched = await t.inject({ method: 'PATCH', url: `/webhooks/${ok.json().id}`, payload: { url: 'http://[2002:7f00:1::]/' } });
  assert.equal(patched.statusCode, 422, patched.body);
  assert.equal((await t.inject({ method: 'GET', url: `/webhooks/${ok.json().id}` })).json().url, 'https://93.184.216.34/hook');
  await t.inject({ method: 'DELETE', url: `/webhooks/${ok.json().id}` });
});

test('every spelling of localhost and of a loopback address is refused at save time (create and update), before any DNS', async () => {
  const refused = [
    'http://localhost.:9/', 'http://LOCALHOST..:9/', 'http://LocalHost./hook', 'http://foo.localhost/', 'http://a.b.localhost.:8080/', 'http://ip6-localhost/',
    'http://printer.local/', 'http://db.internal/', 'http://127.1/', 'http://0x7f.1/', 'http://0177.0.0.1/', 'http://2130706433./', 'http://0.0.0.0/', 'http://0/',
    'http://[::]/', 'http://[::ffff:127.0.0.1]/', 'http://[0:0:0:0:0:0:0:1]/',
  ];
  for (const url of refused) {
    const res = await t.inject({ method: 'POST', url: '/webhooks', payload: { name: 'spelling', url, triggers: ['link.created'] } });
    assert.equal(res.statusCode, 422, `${url}: ${res.body}`);
    assert.equal(res.json().error.code, 'unprocessable_entity');
    assert.match(res.json().error.message, /^url: refused: .* is (a local name, always a private or reserved address|the private or reserved address)/, url);
  }
  assert.deepEqual((await t.inject({ method: 'GET', url: '/webhooks' })).json(), [], 'nothing saved');
  const ok = await t.inject({ method: 'POST', url: '/webhooks', payload: { name: 'public', url: 'https://93.184.216.34/hook', triggers: ['lead.created'] } });
  assert.equal(ok.statusCode, 200, ok.body);
  const patched = await t.inject({ method: 'PATCH', url: `/webhooks/${ok.json().id}`, payload: { url: 'http://localhost.:9/' } });
  assert.equal(patched.statusCode, 422, patched.body);
  assert.match(patched.json().error.message, /^url: refused: localhost\. is a local name/);
  assert.equal((await t.inject({ method: 'GET', url: `/webhooks/${ok.json().id}` })).json().url, 'https://93.184.216.34/hook');
  await t.inject({ method: 'DELETE', url: `/webhooks/${ok.json().id}` });
});

test('a receiver refused when sent fails for good: one attempt, no retry, nothing reaches it', async () => {
  const port = new URL(r.url).port;
  for (const url of [`http://localhost:${port}/hook`, `http://[::ffff:127.0.0.1]:${port}/hook`, `http://[::7f00:1]:${port}/hook`]) {
    // Saved before the address turned private (or before this check existed): written directly.
    const id = newId('wh', Date.now());
    await t.ctx.database.db.insertInto('webhooks').values({
      id, workspace_id: t.workspaceId, name: 'rebound', url, secret: 'whsec_MDEyMzQ1Njc4OWFiY2RlZg==', triggers: JSON.stringify(['link.created']),
      link_scope: null, link_ids: '[]', folder_ids: '[]', disabled_at: null, consecutive_failures: 0, created_at: Date.now(), updated_at: Date.now(),
    }).execute();
    await t.modules.webhooks.service.update(t.workspaceId, id, {}).catch(() => undefined);
    const sent = await t.inject({ method: 'POST', url: `/webhooks/${id}/test`, payload: { trigger: 'link.created' } });
    assert.equal(sent.statusCode, 200, sent.body);
    const deadline = Date.now() + 60_000;
    let delivery: { status: string; error: string | null; statusCode: number | null; attempt: number; nextRetryAt: string | null } | undefined;
    while (delivery?.status !== 'failed') {
      assert.ok(Date.now() < deadline, `${url}: not failed: ${JSON.stringify(delivery)}`);
      await new Promise((res) => setTimeout(res, 20));
      [delivery] = (await t.inject({ method: 'GET', url: `/webhooks/${id}/deliveries` })).json();
    }
    assert.match(delivery.error!, /^refused: .* private or reserved address/, url);
    assert.equal(delivery.attempt, 1);
    assert.equal(delivery.nextRetryAt, null);
    assert.equal(delivery.statusCode, null);
    assert.equal((await t.inject({ method: 'GET', url: `/webhooks/${id}` })).json().consecutiveFailures, 1);
    // The retry delays are 50 ms: a retry would have happened by now.
    await new Promise((res) => setTimeout(res, 300));
    assert.equal((await t.inject({ method: 'GET', url: `/webhooks/${id}/deliveries` })).json()[0].attempt, 1, 'not retried');
  }
  assert.equal(r.got.length, 0, 'the receiver got nothing');
});
