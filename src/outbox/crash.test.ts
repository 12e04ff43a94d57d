/**
 * The crash test of "domain events after commit": the real process is killed with SIGKILL after
 * a link's creation committed and before its `link.created` event was delivered (the EVENTS_FILE
 * sink cannot write yet: a folder stands at its path, so every attempt fails and is retried).
 * Restarted on the same database with the path writable, it delivers the event, once; a further
 * restart delivers it not again. (Delivery rows are read for the file sink: the webhooks
 * subscriber records its own.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createLink, freePort, privateDatabase, startServer, type ServerProcess } from '../test-support/server-process.js';

async function until(condition: () => boolean | Promise<boolean>, what: string, output: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what}\n${output()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

test('kill -9 between the commit and the delivery: the restart delivers the event exactly once, a further restart nothing', async () => {
  const db = await privateDatabase();
  const port = await freePort();
  const key = `wm_${randomBytes(12).toString('hex')}`;
  const file = join(db.dir, 'events.ndjson');
  const env = { EVENTS_FILE: file, EVENTS_FILE_EVENTS: 'link.created' };
  const database = await db.open();
  const servers: ServerProcess[] = [];
  const lines = () => (existsSync(file) ? readFileSync(file, 'utf8').trimEnd().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id: string; data: { id: string } }) : []);
  try {
    mkdirSync(file); // not writable as a file: deliveries fail
    const first = await startServer(db.url, port, key, env);
    servers.push(first);
    const link = await createLink(port, key, { url: 'https://example.com/announced', key: 'announced' });
    const event = await database.db.selectFrom('outbox').selectAll().where('type', '=', 'link.created').executeTakeFirstOrThrow();
    assert.equal(JSON.parse(event.payload).id, link.id, 'committed with the link');
    await until(
      async () => !!(await database.db.selectFrom('outbox_deliveries').select('last_error').where('event_id', '=', event.id).where('last_error', 'is not', null).executeTakeFirst()),
      'a failed delivery attempt',
      first.output,
    );
    first.child.kill('SIGKILL');
    await first.exited;
    const undelivered = await database.db.selectFrom('outbox_deliveries').selectAll().where('subscriber', '=', 'file').where('event_id', '=', event.id).executeTakeFirstOrThrow();
    assert.equal(undelivered.delivered_at, null);

    rmdirSync(file);
    const second = await startServer(db.url, port, key, env);
    servers.push(second);
    await until(() => lines().length >= 1, 'the event in the file after the restart', second.output);
    second.child.kill('SIGTERM');
    assert.equal(await second.exited, 0, second.output());
    assert.deepEqual(lines().map((l) => [l.id, l.data.id]), [[event.id, link.id]]);
    const deliveryRow = () => database.db.selectFrom('outbox_deliveries').selectAll().where('subscriber', '=', 'file').where('event_id', '=', event.id).executeTakeFirst();
    const afterRestart = await deliveryRow();
    assert.ok(afterRestart && afterRestart.delivered_at !== null, 'recorded as delivered');

    // A further restart: the first event is not delivered again. A second link's event shows
    // that the restarted publisher has made its rounds (it delivers in order of creation).
    const third = await startServer(db.url, port, key, env);
    servers.push(third);
    const other = await createLink(port, key, { url: 'https://example.com/later', key: 'later' });
    await until(() => lines().length >= 2, 'the second event', third.output);
    third.child.kill('SIGTERM');
    assert.equal(await third.exited, 0, third.output());
    assert.deepEqual(lines().map((l) => l.data.id), [link.id, other.id], 'each event once');
    // Not handed to the sink again either (which would have skipped it by its id): the delivery
    // row is as the second process left it, or pruned with the event.
    const afterThird = await deliveryRow();
    if (afterThird) assert.deepEqual(afterThird, afterRestart);
  } finally {
    for (const s of servers) if (s.child.exitCode === null) s.child.kill('SIGKILL');
    await database.close();
    await db.dispose();
  }
});
