/**
 * The real process: `node src/main.ts` with a temporary database and a known API key. A link made
 * with POST /links redirects at its `shortLink` (also with curl, which resolves *.localhost), and
 * SIGTERM in the middle of a load loses no click.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { Agent, request } from 'node:http';
import { randomBytes } from 'node:crypto';
import { TEST_ENGINE } from '../test-support/harness.js';
import { freePort, privateDatabase, startServer } from '../test-support/processes.js';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

test('SIGTERM during load: the process drains, flushes and exits 0 with every answered click stored', async () => {
  const db = await privateDatabase();
  const port = await freePort();
  const key = `wm_${randomBytes(12).toString('hex')}`;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { ...process.env, DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1', WAYMARK_API_KEY: key, TRUST_PROXY: 'true', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    const deadline = Date.now() + 60_000;
    while (!output.includes('Waymark is running')) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`server did not start:\n${output}`);
      await new Promise((r) => setTimeout(r, 50));
    }

    const created = await fetch(`http://localhost:${port}/links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'https://example.com/from-api', key: 'term' }),
    });
    assert.equal(created.status, 200, await created.clone().text());
    const { shortLink, id } = (await created.json()) as { shortLink: string; id: string };
    assert.equal(shortLink, `http://wm.localhost:${port}/term`);

    if (!spawnSync('curl', ['--version']).error) {
      const curl = spawnSync('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code} %{redirect_url}', shortLink], { encoding: 'utf8' });
      assert.equal(curl.stdout, '302 https://example.com/from-api', curl.stderr);
    }

    const agent = new Agent({ keepAlive: true, maxSockets: 12 });
    const target = new URL(shortLink);
    let answered = 0;
    let sent = 0;
    let stop = false;
    const one = (n: number) =>
      new Promise<void>((resolve) => {
        const req = request(
          { host: '127.0.0.1', port, path: target.pathname, agent, headers: { host: target.host, 'user-agent': CHROME, 'x-forwarded-for': `10.8.${(n >> 8) & 255}.${n & 255}` } },
          (res) => {
            res.resume();
            res.on('end', () => {
              if (res.statusCode === 302) answered++;
              resolve();
            });
          },
        );
        req.on('error', () => {
          stop = true;
          resolve();
        });
        req.end();
      });
    const loop = async () => {
      while (!stop && sent < 60_000) await one(sent++);
    };
    const load = Promise.all(Array.from({ length: 12 }, loop));
    while (answered < 500 && !stop) await new Promise((r) => setTimeout(r, 5));
    child.kill('SIGTERM');
    const code = await exited;
    stop = true;
    await load;
    agent.destroy();
    assert.equal(code, 0, output);
    assert.ok(answered >= 500, `answered ${answered}`);

    const database = await db.open();
    try {
      const events = await database.db.selectFrom('events').select((eb) => eb.fn.countAll<number>().as('n')).where('link_id', '=', id).executeTakeFirstOrThrow();
      const link = await database.db.selectFrom('links').select('clicks').where('id', '=', id).executeTakeFirstOrThrow();
      assert.equal(Number(events.n), answered, `every answered click is stored\n${output}`);
      assert.equal(Number(link.clicks), answered);
    } finally {
      await database.close();
    }
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    await db.dispose();
  }
});

test('kill -9 after clicks were written but not folded: the next start folds them, counters and analytics agree', async () => {
  const db = await privateDatabase();
  const port = await freePort();
  const key = `wm_${randomBytes(12).toString('hex')}`;
  // A fold interval longer than the test: the clicks are written, never folded, when the process dies.
  const first = await startServer(db.url, port, key, { CLICK_FOLD_INTERVAL_MS: '60000' });
  let second: Awaited<ReturnType<typeof startServer>> | undefined;
  const database = await db.open();
  try {
    const created = await fetch(`http://127.0.0.1:${port}/links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'https://example.com/crash', key: 'crash' }),
    });
    const { id, shortLink } = (await created.json()) as { id: string; shortLink: string };
    const host = new URL(shortLink).host;
    const CLICKS = 300;
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    const hitOnce = (n: number) =>
      new Promise<number>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path: '/crash', agent, headers: { host, 'user-agent': CHROME, 'x-forwarded-for': `10.9.${n >> 8}.${n & 255}` } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end();
      });
    const statuses = await Promise.all(Array.from({ length: CLICKS }, (_, n) => hitOnce(n)));
    agent.destroy();
    assert.ok(statuses.every((s) => s === 302));
    const stored = async () =>
      Number((await database.db.selectFrom('events').select((eb) => eb.fn.countAll<number>().as('n')).where('link_id', '=', id).executeTakeFirstOrThrow()).n);
    const clicksOfLink = async () => Number((await database.db.selectFrom('links').select('clicks').where('id', '=', id).executeTakeFirstOrThrow()).clicks);
    const deadline = Date.now() + 20_000;
    while ((await stored()) < CLICKS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.equal(await stored(), CLICKS, 'every click was flushed before the kill');
    first.child.kill('SIGKILL');
    await first.exited;
    // SQLite folds a second's clicks at a time: nothing was folded. PostgreSQL folds every batch.
    assert.equal(await clicksOfLink(), TEST_ENGINE === 'sqlite' ? 0 : CLICKS);

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
