/**
 * `import api --events` into an installation whose server is running and recording clicks of its
 * own meanwhile (a real process, real redirects): the copied links' figures equal the source's,
 * and stay equal after the server restarts (its start counts what it finds uncounted: copied
 * clicks must not be counted a second time). The server recorded clicks before the source's too.
 * The import opens the installation's event log beside the server's (the SQL store: several
 * processes may write it) and its clicks are counted in the batch's own transaction. Runs on the
 * engine under test.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createTestApp, TEST_ENGINE } from '../test-support/harness.js';
import { hit } from '../redirect/testing.js';
import { createLink, freePort, privateDatabase, startClickLoad, startServer } from '../test-support/server-process.js';
import { runCli } from '../cli/index.js';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

async function json(port: number, key: string, path: string): Promise<unknown> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(res.status, 200, await res.clone().text());
  return res.json();
}

/**
 * `busy`: the server takes clicks of its own during the whole import; without, it is idle.
 */
async function importIntoLiveServer(busy: boolean): Promise<void> {
  const source = await createTestApp({ env: { TRUST_PROXY: 'true' } });
  const db = await privateDatabase();
  const port = await freePort();
  const key = `wm_${randomBytes(12).toString('hex')}`;
  let server = await startServer(db.url, port, key);
  try {
    const base = await source.listen();
    // The target has recorded clicks before the source's.
    const own = await createLink(port, key, { url: 'https://example.com/own', key: 'own' });
    const early = startClickLoad({ port, host: own.host, path: own.path, ipPrefix: '10.6', connections: 2, max: 40 });
    await early.done;
    // Wait until the target has counted its own clicks, so its own link's figures are settled.
    const ownPath = `/links/info?domain=${encodeURIComponent(own.host)}&key=${encodeURIComponent(own.path.slice(1))}`;
    for (let i = 0; i < 300; i++) {
      if (((await json(port, key, ownPath)) as { clicks: number }).clicks >= early.answered.size) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal((await source.inject({ method: 'POST', url: '/domains', payload: { slug: 'go.live.test' } })).statusCode, 201);
    const created = await source.inject({ method: 'POST', url: '/links', payload: { domain: 'go.live.test', key: 'moved', url: 'https://shop.example/moved', trackConversion: true } });
    assert.equal(created.statusCode, 200, created.body);
    const clicks: string[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await hit(base, '/moved', { host: 'go.live.test', headers: { 'user-agent': CHROME, 'x-forwarded-for': `198.51.100.${i + 1}` } });
      clicks.push(new URL(res.location!).searchParams.get('waymark_id')!);
    }
    await source.modules.redirect.flushClicks();
    const lead = await source.inject({ method: 'POST', url: '/track/lead', payload: { clickId: clicks[3], eventName: 'Sign up', customerExternalId: 'c1', mode: 'wait' } });
    assert.equal(lead.statusCode, 200, lead.body);
    const sale = await source.inject({ method: 'POST', url: '/track/sale', payload: { customerExternalId: 'c1', amount: 4200 } });
    assert.equal(sale.statusCode, 200, sale.body);
    await source.modules.redirect.flushClicks();

    const load = busy ? startClickLoad({ port, host: own.host, path: own.path, ipPrefix: '10.7', connections: 2, max: 100_000 }) : undefined;
    const database = await db.open();
    const workspace = await database.db.selectFrom('workspaces').select('id').executeTakeFirstOrThrow();
    await database.close();
    const out: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = (() => true) as typeof process.stderr.write;
    let code: number;
    try {
      code = await runCli(['import', 'api', '--from', base, '--token', source.key, '--workspace', workspace.id, '--events'], (l) => out.push(l), { DATABASE_URL: db.url, LOG_LEVEL: 'silent', EVENTS_URL: process.env.EVENTS_URL ?? 'sql' });
    } finally {
      process.stderr.write = write;
    }
    assert.equal(code, 0, out.join('\n'));
    assert.ok(out.includes('clicks: 12 copied, 0 already there, 0 rejected'), out.join('\n'));
    if (load) {
      await load.stop();
      assert.ok(load.answered.size > 0);
    }

    const want = await source.inject({ method: 'GET', url: '/analytics?event=composite&interval=all&domain=go.live.test&key=moved' });
    const wantLink = (await source.inject({ method: 'GET', url: '/links/info?domain=go.live.test&key=moved' })).json() as Record<string, unknown>;
    const figures = async () => {
      const link = (await json(port, key, '/links/info?domain=go.live.test&key=moved')) as Record<string, unknown>;
      return {
        analytics: await json(port, key, '/analytics?event=composite&interval=all&domain=go.live.test&key=moved'),
        counters: [link.clicks, link.leads, link.sales, link.saleAmount, link.conversions, link.lastClicked],
      };
    };
    const expected = { analytics: want.json(), counters: [wantLink.clicks, wantLink.leads, wantLink.sales, wantLink.saleAmount, wantLink.conversions, wantLink.lastClicked] };
    assert.deepEqual(expected.counters.slice(0, 5), [12, 1, 1, 4200, 1]);
    // A graceful stop folds everything, then a start recovers what it finds unfolded.
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0, server.output());
    server = await startServer(db.url, port, key);
    assert.deepEqual(await figures(), expected);
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0, server.output());
    server = await startServer(db.url, port, key);
    assert.deepEqual(await figures(), expected, 'a second start counts nothing again');
  } finally {
    if (server.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    await source.close();
    await db.dispose();
  }
}

test('import into a running server that records clicks meanwhile: figures equal, also after restarts', () => importIntoLiveServer(true));

test('import into a running idle server: a restart counts the copied clicks not again', () => importIntoLiveServer(false));

test('import api --events into a running server on the default store (DuckDB): refused with the reason, nothing written', { skip: TEST_ENGINE !== 'sqlite' && 'DuckDB is the default store beside a SQLite file' }, async () => {
  const db = await privateDatabase();
  const port = await freePort();
  const key = `wm_${randomBytes(12).toString('hex')}`;
  const server = await startServer(db.url, port, key, { EVENTS_URL: 'duckdb' });
  try {
    const database = await db.open();
    const workspace = await database.db.selectFrom('workspaces').select('id').executeTakeFirstOrThrow();
    await database.close();
    const errors: string[] = [];
    const error = console.error;
    const write = process.stderr.write;
    console.error = (line: unknown) => void errors.push(String(line));
    process.stderr.write = (() => true) as typeof process.stderr.write;
    let code: number;
    try {
      // The source is never reached: the event file is refused before anything is read or copied.
      code = await runCli(['import', 'api', '--from', 'http://127.0.0.1:9', '--token', 'x', '--workspace', workspace.id, '--events'], () => undefined, { DATABASE_URL: db.url, LOG_LEVEL: 'silent', EVENTS_URL: 'duckdb' });
    } catch (err) {
      errors.push(String((err as Error).message));
      code = 1;
    } finally {
      console.error = error;
      process.stderr.write = write;
    }
    assert.equal(code, 1);
    assert.ok(errors.some((l) => /in use by another process/.test(l)), errors.join('\n'));
    // Nothing was copied, and the server still serves with its file.
    const links = await fetch(`http://127.0.0.1:${port}/links`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(links.status, 200);
    assert.deepEqual(await links.json(), []);
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
    await db.dispose();
  }
});
