/**
 * kill -9 with a webhook delivery in flight: the real process is killed while the receiver holds
 * the request without answering. Restarted on the same database, the process sends the delivery
 * again once the dead process's lease expires, with the same event id and body, and records it
 * delivered; a further restart sends nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { freePort, privateDatabase, startServer, type RunningServer } from '../test-support/processes.js';
import { createLink } from '../test-support/server-process.js';
import { startReceiver } from './testing.js';

test('kill -9 while a delivery is in flight: the restart delivers it with the same event id, once', async () => {
  const db = await privateDatabase();
  const port = await freePort();
  const key = `wm_${randomBytes(12).toString('hex')}`;
  const receiver = await startReceiver();
  const env = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_INTERVAL_MS: '50', WEBHOOK_LEASE_MS: '1500' };
  const database = await db.open();
  const servers: RunningServer[] = [];
  try {
    const first = await startServer(db.url, port, key, env);
    servers.push(first);
    const res = await fetch(`http://127.0.0.1:${port}/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'crash', url: receiver.url, triggers: ['link.created'] }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    const hook = (await res.json()) as { id: string };
    // The first process's request is never answered: it is in flight when the process dies.
    receiver.answer = () => new Promise<number>(() => {});
    await createLink(port, key, { url: 'https://example.com/crash', key: 'crash' });
    await receiver.until((got) => got.length >= 1, 'a first attempt');
    const row = await database.db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', hook.id).executeTakeFirstOrThrow();
    assert.ok(row.next_attempt_at !== null && row.next_attempt_at > Date.now(), 'claimed: leased to the first process');
    first.child.kill('SIGKILL');
    await first.exited;
    const pending = await database.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow();
    assert.equal(pending.delivered_at, null, 'not delivered before the kill');

    receiver.answer = () => 204;
    const before = receiver.got.length;
    const second = await startServer(db.url, port, key, env);
    servers.push(second);
    await receiver.until((got) => got.slice(before).length >= 1, 'the delivery after the restart', 20_000);
    const deadline = Date.now() + 10_000;
    while ((await database.db.selectFrom('webhook_deliveries').select('delivered_at').where('id', '=', row.id).executeTakeFirstOrThrow()).delivered_at === null) {
      assert.ok(Date.now() < deadline, 'recorded as delivered');
      await new Promise((r) => setTimeout(r, 25));
    }
    second.child.kill('SIGTERM');
    assert.equal(await second.exited, 0, second.output());
    const ids = new Set(receiver.got.map((g) => g.headers['webhook-id']));
    assert.deepEqual([...ids], [row.event_id], 'one event id on every attempt, before and after the kill');
    assert.equal(new Set(receiver.got.map((g) => g.body)).size, 1, 'the same body');

    const sent = receiver.got.length;
    const third = await startServer(db.url, port, key, env);
    servers.push(third);
    await new Promise((r) => setTimeout(r, 500));
    third.child.kill('SIGTERM');
    assert.equal(await third.exited, 0, third.output());
    assert.equal(receiver.got.length, sent, 'a delivered event is not sent again');
  } finally {
    for (const s of servers) if (s.child.exitCode === null) s.child.kill('SIGKILL');
    await receiver.close();
    await database.close();
    await db.dispose();
  }
});
