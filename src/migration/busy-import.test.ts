/**
 * A busy SQLite file is a wait, never a failed import. The target is a real server process taking
 * clicks on its own link the whole time; the import (`npx waymark import api --events`, a process
 * of its own) writes into the same file. In the middle of the import another connection holds the
 * write lock for 16 s, longer than three of SQLite's busy timeouts (5 s), as a long checkpoint or a slow disk would:
 * the import's write is refused with SQLITE_BUSY, waits and runs again, and both the import and the
 * server finish with every click and every copied item counted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { randomBytes } from 'node:crypto';
import { createTestApp, TEST_ENGINE } from '../test-support/harness.js';
import { createLink, freePort, holdWriteLock, privateDatabase, startClickLoad, startServer, type WriteLock } from '../test-support/server-process.js';
import { hit } from '../redirect/testing.js';
import { entryArgs } from '../test-support/entry.js';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
/** Longer than three tries of the busy timeout (the import tried three times before it waited). */
const LOCK_MS = 16_000;

test('an import and a server under click load on one SQLite file both finish while another connection holds the lock past the busy timeout', { skip: TEST_ENGINE !== 'sqlite' && 'SQLITE_BUSY is SQLite\'s', timeout: 240_000 }, async () => {
  const source = await createTestApp({ env: { TRUST_PROXY: 'true' } });
  const db = await privateDatabase();
  const port = await freePort();
  const key = `wm_${randomBytes(12).toString('hex')}`;
  const server = await startServer(db.url, port, key);
  let lock: WriteLock | undefined;
  const proxy = createServer();
  try {
    const sourceBase = await source.listen();
    const inject = async (url: string, payload: object) => {
      const res = await source.inject({ method: 'POST', url, payload });
      assert.ok(res.statusCode < 300, res.body);
      return res.json();
    };
    await inject('/domains', { slug: 'go.busy.test' });
    const tag = await inject('/tags', { name: 'Busy' });
    for (const k of ['one', 'two', 'three']) await inject('/links', { domain: 'go.busy.test', key: k, url: `https://shop.example/${k}`, tagIds: [tag.id] });
    for (let i = 0; i < 6; i++) {
      const res = await hit(sourceBase, `/${['one', 'two', 'three'][i % 3]}`, { host: 'go.busy.test', headers: { 'user-agent': CHROME, 'x-forwarded-for': `198.51.100.${i + 1}` } });
      assert.equal(res.status, 302);
    }
    await source.modules.redirect.flushClicks();

    // The source as the import sees it, through a proxy that takes the target's write lock when the
    // tags are asked for (the domains are written by then), and lets it go LOCK_MS later.
    let lockedAt = 0;
    proxy.on('request', async (req, res) => {
      if (req.url!.startsWith('/tags') && !lockedAt) {
        lock = await holdWriteLock(db.url);
        lockedAt = Date.now();
        setTimeout(() => void lock?.release().then(() => (lock = undefined)), LOCK_MS);
      }
      const answer = await fetch(`${sourceBase}${req.url}`, { headers: { authorization: String(req.headers.authorization) } });
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(await answer.text());
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const proxyBase = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;

    const own = await createLink(port, key, { url: 'https://example.com/own', key: 'own' });
    const load = startClickLoad({ port, host: own.host, path: own.path, ipPrefix: '10.9', connections: 2, max: 100_000 });

    const database = await db.open();
    const workspace = await database.db.selectFrom('workspaces').select('id').executeTakeFirstOrThrow();
    await database.close();
    const child = spawn(process.execPath, [...entryArgs('src/cli/index.ts'), 'import', 'api', '--from', proxyBase, '--token', source.key, '--workspace', workspace.id, '--events'], {
      env: { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'silent', EVENTS_URL: 'sql' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    const finishedAt = Date.now();
    await load.stop();

    assert.equal(code, 0, `${out}\n${err}`);
    assert.ok(lockedAt > 0, 'the lock was taken during the import');
    assert.ok(finishedAt - lockedAt >= LOCK_MS - 100, `the import finished after the lock was released (${finishedAt - lockedAt} ms)`);
    // It waited (how many busy timeouts fit in LOCK_MS depends on how fast a loaded machine ran the
    // import up to the lock), and finished only after the lock went, above.
    assert.ok((err.match(/import: database busy: waiting \d+ ms/g) ?? []).length >= 1, err);
    assert.ok(out.includes('tags: 1 copied, 0 already there, 0 rejected'), out);
    assert.ok(out.includes('links: 3 copied, 0 already there, 0 rejected'), out);
    assert.ok(out.includes('clicks: 6 copied, 0 already there, 0 rejected'), out);

    // The server went on: every click it answered during the import is counted.
    assert.ok(load.answered.size > 0);
    const info = async () => {
      const res = await fetch(`http://127.0.0.1:${port}/links/info?domain=${encodeURIComponent(own.host)}&key=own`, { headers: { authorization: `Bearer ${key}` } });
      return (await res.json()) as { clicks: number };
    };
    for (let i = 0; i < 300 && (await info()).clicks < load.answered.size; i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal((await info()).clicks, load.answered.size, 'the server counted every click it answered');
    const copied = await fetch(`http://127.0.0.1:${port}/analytics?event=clicks&interval=all&domain=go.busy.test&key=one`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(((await copied.json()) as { clicks: number }).clicks, 2);
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0, server.output());
  } finally {
    await lock?.release();
    proxy.close();
    if (server.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    await source.close();
    await db.dispose();
  }
});
