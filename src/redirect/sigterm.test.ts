/**
 * The real process: `node src/main.ts` with a temporary database and a known API key. A link made
 * with POST /links redirects at its `shortLink` (also with curl, which resolves *.localhost), and
 * SIGTERM in the middle of a load loses no click. Slow databases and kill -9 under load: crash.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { TEST_ENGINE } from '../test-support/harness.js';
import { createLink, freePort, privateDatabase, startClickLoad, startServer, type ServerProcess } from '../test-support/server-process.js';

for (const apiThread of ['0', '1']) test(`SIGTERM during load (API_THREAD=${apiThread}): the process drains, flushes and exits 0 with every answered click stored`, async () => {
  const db = await privateDatabase();
  const port = await freePort();
  const key = `wm_${randomBytes(12).toString('hex')}`;
  const server = await startServer(db.url, port, key, { API_THREAD: apiThread, LOG_LEVEL: 'info' });
  try {
    const link = await createLink(port, key, { url: 'https://example.com/from-api', key: 'term' });
    assert.equal(link.shortLink, `http://wm.localhost:${port}/term`);

    if (!spawnSync('curl', ['--version']).error) {
      const curl = spawnSync('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code} %{redirect_url}', link.shortLink], { encoding: 'utf8' });
      assert.equal(curl.stdout, '302 https://example.com/from-api', curl.stderr);
    }

    const load = startClickLoad({ port, host: link.host, path: link.path, ipPrefix: '10.8' });
    while (load.answered.size < 500) await new Promise((r) => setTimeout(r, 5));
    server.child.kill('SIGTERM');
    const code = await server.exited;
    await load.stop();
    assert.equal(code, 0, server.output());
    // Operators' log shippers read the JSON log on stdout: the shutdown is in it, in either mode.
    const logged = server.stdout().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { msg?: string; signal?: string });
    assert.ok(logged.some((l) => l.msg === 'shutting down' && l.signal === 'SIGTERM'), `no shutdown line on stdout:\n${server.stdout()}`);
    const answered = load.answered.size;
    assert.ok(answered >= 500, `answered ${answered}`);

    const database = await db.open();
    try {
      const events = await database.db.selectFrom('events').select((eb) => eb.fn.countAll<number>().as('n')).where('link_id', '=', link.id).executeTakeFirstOrThrow();
      const row = await database.db.selectFrom('links').select('clicks').where('id', '=', link.id).executeTakeFirstOrThrow();
      assert.equal(Number(events.n), answered, `every answered click is stored\n${server.output()}`);
      assert.equal(Number(row.clicks), answered);
    } finally {
      await database.close();
    }
  } finally {
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
    await db.dispose();
  }
});

test('kill -9 after clicks were stored (SQL store: counted with them): after the next start, counters and analytics agree', async () => {
  const db = await privateDatabase();
  const port = await freePort();
  const key = `wm_${randomBytes(12).toString('hex')}`;
  // A fold interval longer than the test: a store that folded apart from its appends would not have counted them.
  const first = await startServer(db.url, port, key, { CLICK_FOLD_INTERVAL_MS: '60000' });
  let second: ServerProcess | undefined;
  const database = await db.open();
  try {
    const { id, host, path } = await createLink(port, key, { url: 'https://example.com/crash', key: 'crash' });
    const CLICKS = 300;
    const load = startClickLoad({ port, host, path, ipPrefix: '10.9', connections: 8, max: CLICKS });
    await load.done;
    assert.equal(load.answered.size, CLICKS);
    const stored = async () =>
      Number((await database.db.selectFrom('events').select((eb) => eb.fn.countAll<number>().as('n')).where('link_id', '=', id).executeTakeFirstOrThrow()).n);
    const clicksOfLink = async () => Number((await database.db.selectFrom('links').select('clicks').where('id', '=', id).executeTakeFirstOrThrow()).clicks);
    const deadline = Date.now() + 20_000;
    while ((await stored()) < CLICKS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.equal(await stored(), CLICKS, 'every click was flushed before the kill');
    first.child.kill('SIGKILL');
    await first.exited;
    // The SQL store counts each batch in the transaction that stores it (click-log.ts, `inline`),
    // on SQLite as on PostgreSQL: the counters hold every stored click already.
    assert.equal(await clicksOfLink(), CLICKS);

    second = await startServer(db.url, port, key, { CLICK_FOLD_INTERVAL_MS: '100' });
    const until = Date.now() + 20_000;
    while ((await clicksOfLink()) < CLICKS && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    assert.equal(await clicksOfLink(), CLICKS, `the restart folded the clicks the crash left\n${second.output()}`);
    const analytics = await fetch(`http://127.0.0.1:${port}/analytics?linkId=${id}&interval=24h&groupBy=count`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(((await analytics.json()) as { clicks: number }).clicks, CLICKS);
    second.child.kill('SIGTERM');
    assert.equal(await second.exited, 0, second.output());
    assert.equal(await clicksOfLink(), CLICKS, 'counted once');
    assert.equal(await stored(), CLICKS);
  } finally {
    await database.close();
    if (first.child.exitCode === null) first.child.kill('SIGKILL');
    if (second && second.child.exitCode === null) second.child.kill('SIGKILL');
    await db.dispose();
  }
});
