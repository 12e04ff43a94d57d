/**
 * Outbound safety: without WEBHOOK_ALLOW_PRIVATE, receivers on loopback, private, link-local,
 * unique-local or metadata addresses are refused, whether named by an IP literal or by a name that
 * resolves to one (`localhost`: checked on the address connected to). A refusal is a failed
 * attempt with a clear error, and the receiver gets nothing.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { startReceiver, type Receiver } from './testing.js';
import { isPrivateAddress } from './send.js';

let t: TestApp;
let r: Receiver;
before(async () => {
  t = await createTestApp({ env: { WEBHOOK_POLL_INTERVAL_MS: '20', WEBHOOK_RETRY_DELAYS_MS: '60000' } });
  r = await startReceiver();
});
after(async () => {
  await t.close();
  await r.close();
});

test('private, loopback, link-local, unique-local and mapped addresses are private; public ones are not', () => {
  for (const a of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fd00:ec2::254', 'fe80::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1']) {
    assert.equal(isPrivateAddress(a), true, a);
  }
  for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8']) assert.equal(isPrivateAddress(a), false, a);
});

test('a receiver named localhost, or an IP literal on loopback or metadata, is refused and counted as a failure', async () => {
  const port = new URL(r.url).port;
  for (const url of [`http://localhost:${port}/hook`, `http://127.0.0.1:${port}/hook`, `http://[::1]:${port}/hook`, 'http://169.254.169.254/latest/meta-data']) {
    const hook = (await t.inject({ method: 'POST', url: '/webhooks', payload: { name: 'ssrf', url, triggers: ['link.created'] } })).json();
    assert.ok(hook.id, JSON.stringify(hook));
    const sent = await t.inject({ method: 'POST', url: `/webhooks/${hook.id}/test`, payload: { trigger: 'link.created' } });
    assert.equal(sent.statusCode, 200, sent.body);
    const deadline = Date.now() + 10_000;
    let delivery: { status: string; error: string | null; statusCode: number | null; attempt: number } | undefined;
    while (!delivery?.error) {
      assert.ok(Date.now() < deadline, `${url}: no failed attempt recorded`);
      await new Promise((res) => setTimeout(res, 20));
      [delivery] = (await t.inject({ method: 'GET', url: `/webhooks/${hook.id}/deliveries` })).json();
    }
    assert.match(delivery.error!, /^refused: .* private or reserved address/, url);
    assert.equal(delivery.status, 'pending', 'retried later, like any failure');
    assert.equal(delivery.statusCode, null);
    assert.equal((await t.inject({ method: 'GET', url: `/webhooks/${hook.id}` })).json().consecutiveFailures, 1);
  }
  assert.equal(r.got.length, 0, 'the receiver got nothing');
});
