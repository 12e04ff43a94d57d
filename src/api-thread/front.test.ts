/**
 * The front itself (API_THREAD=1), over real HTTP: `app.inject()` would bypass it. A redirect is
 * answered on the main thread, everything else by the API thread with its status, headers and
 * body; the client's address reaches the API's audit log; an export streams through; a link
 * changed through the API redirects to its new destination at once; an API thread gone answers
 * 503 with the error body while redirects go on, and is started again on new ports; `close()`
 * finishes a request in flight and stores every click, and ends a restart in progress; on
 * PostgreSQL, the change relay's reconnect reloads the API thread's certificate allow list.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { loadConfig } from '../config.js';
import { openTestDatabase } from '../test-support/harness.js';
import { createRestartPolicy, startFront, type RestartPolicyOptions } from './front.js';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function call(port: number, options: { method?: string; path: string; host?: string; headers?: Record<string, string>; body?: unknown }): Promise<Answer> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method: options.method ?? 'GET', path: options.path, headers: { host: options.host ?? `localhost:${port}`, ...(payload ? { 'content-type': 'application/json' } : {}), ...options.headers } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

async function startTestFront(env: Record<string, string> = {}, restart?: RestartPolicyOptions) {
  const { database, dispose } = await openTestDatabase();
  const apiKey = `wm_${randomBytes(12).toString('hex')}`;
  const config = loadConfig(
    { PORT: '3999', BASE_URL: 'http://localhost:3999', LOG_LEVEL: 'silent', CLICK_FLUSH_INTERVAL_MS: '20', SECRETS_KEY: randomBytes(32).toString('hex'), WAYMARK_API_KEY: apiKey, ...env },
    { eventsUrl: 'sql', apiThread: true },
  );
  const front = await startFront({ config, database, logger: false, restart });
  await new Promise<void>((resolve) => front.server.listen(0, '127.0.0.1', resolve));
  const port = (front.server.address() as AddressInfo).port;
  const auth = { authorization: `Bearer ${apiKey}` };
  const createLink = async (body: Record<string, unknown>) => {
    const res = await call(port, { method: 'POST', path: '/links', headers: auth, body });
    assert.equal(res.status, 200, res.body);
    return JSON.parse(res.body) as { id: string; domain: string; key: string; url: string };
  };
  return { front, database, port, auth, createLink, workspaceId: front.boot.workspace.id, dispose };
}

describe('the front and the API thread', () => {
  let t: Awaited<ReturnType<typeof startTestFront>>;
  let closed = false;
  before(async () => {
    t = await startTestFront({ TRUST_PROXY: '1' });
  });
  after(async () => {
    if (!closed) await t.front.close();
    await t.database.close();
    await t.dispose();
  });

  test('memory(): a heap for each of the three threads; no DuckDB figures on the SQL event store', async () => {
    const m = await t.front.memory();
    for (const [name, heap] of [['main', m.main], ['api', m.api], ['log', m.log.heap]] as const) {
      assert.ok(heap, `${name} reported`);
      // Each thread's heap holds at least its loaded modules: megabytes, within what it reserved.
      assert.ok(heap.usedBytes > 1_000_000 && heap.usedBytes <= heap.totalBytes, `${name}: ${heap.usedBytes} of ${heap.totalBytes}`);
    }
    assert.equal(m.log.duckDb, undefined);
  });

  test('a redirect is answered on the main thread, counted by its redirect module', async () => {
    const link = await t.createLink({ url: 'https://example.com/front', key: 'front' });
    const before = t.front.redirect.stats().humanAnswers;
    const res = await call(t.port, { path: `/${link.key}`, host: link.domain, headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0' } });
    assert.equal(res.status, 302);
    assert.equal(res.headers.location, 'https://example.com/front');
    assert.equal(t.front.redirect.stats().humanAnswers, before + 1);
  });

  test('API requests come back with their status, headers and body, errors with the error body', async () => {
    const link = await t.createLink({ url: 'https://example.com/proxied', key: 'proxied' });
    const got = await call(t.port, { path: `/links/${link.id}`, headers: t.auth });
    assert.equal(got.status, 200);
    assert.match(String(got.headers['content-type']), /^application\/json/);
    assert.deepEqual(JSON.parse(got.body), link);
    const missing = await call(t.port, { path: '/links/link_missing', headers: t.auth });
    assert.equal(missing.status, 404);
    assert.equal(JSON.parse(missing.body).error.code, 'not_found');
    const refused = await call(t.port, { method: 'POST', path: '/links', headers: t.auth, body: { url: 'ftp://example.com/x' } });
    assert.equal(refused.status, 422);
    assert.equal(JSON.parse(refused.body).error.code, 'unprocessable_entity');
    const unauthorised = await call(t.port, { path: '/links' });
    assert.equal(unauthorised.status, 401);
    assert.equal(JSON.parse(unauthorised.body).error.code, 'unauthorized');
    const health = await call(t.port, { path: '/health' });
    assert.equal(health.status, 200);
    assert.equal(JSON.parse(health.body).status, 'ok');
  });

  test("the client's address reaches the API thread under TRUST_PROXY", async () => {
    const viaProxy = await t.createLink({ url: 'https://example.com/a1', key: 'addr-1' });
    const res = await call(t.port, { method: 'POST', path: '/links', headers: { ...t.auth, 'x-forwarded-for': '198.51.100.7' }, body: { url: 'https://example.com/a2', key: 'addr-2' } });
    assert.equal(res.status, 200, res.body);
    const proxied = JSON.parse(res.body) as { id: string };
    const ipOf = async (target: string) => (await t.database.db.selectFrom('audit_log').select('ip').where('target', '=', target).executeTakeFirstOrThrow()).ip;
    // TRUST_PROXY=1: the one proxy's entry; without one, the socket's peer (not the front's socket).
    assert.equal(await ipOf(proxied.id), '198.51.100.7');
    assert.equal(await ipOf(viaProxy.id), '127.0.0.1');
  });

  test('an export streams through the front', async () => {
    const links = Array.from({ length: 100 }, (_, i) => ({ url: `https://example.com/e/${i}`, key: `exp-${i}` }));
    const bulk = await call(t.port, { method: 'POST', path: '/links/bulk', headers: t.auth, body: links });
    assert.equal(bulk.status, 200, bulk.body);
    const res = await call(t.port, { path: '/links/export?format=csv', headers: t.auth });
    assert.equal(res.status, 200, res.body);
    // Streamed: no length known up front.
    assert.equal(res.headers['content-length'], undefined);
    assert.equal(res.headers['transfer-encoding'], 'chunked');
    const keys = new Set(res.body.split('\n').map((line) => line.match(/,(exp-\d+),/)?.[1]).filter(Boolean));
    assert.equal(keys.size, 100);
  });

  test('a link changed through the API redirects to its new destination at once', async () => {
    const link = await t.createLink({ url: 'https://example.com/v0', key: 'moving' });
    assert.equal((await call(t.port, { path: '/moving', host: link.domain })).headers.location, 'https://example.com/v0');
    for (let i = 1; i <= 10; i++) {
      const patched = await call(t.port, { method: 'PATCH', path: `/links/${link.id}`, headers: t.auth, body: { url: `https://example.com/v${i}` } });
      assert.equal(patched.status, 200, patched.body);
      assert.equal((await call(t.port, { path: '/moving', host: link.domain })).headers.location, `https://example.com/v${i}`);
    }
    const deleted = await call(t.port, { method: 'DELETE', path: `/links/${link.id}`, headers: t.auth });
    assert.equal(deleted.status, 200);
    assert.equal((await call(t.port, { path: '/moving', host: link.domain })).status, 404);
  });

  test('close(): a request in flight is finished, new connections are refused, every click is stored', async () => {
    const link = await t.createLink({ url: 'https://example.com/drain', key: 'drain' });
    const CLICKS = 40;
    for (let i = 0; i < CLICKS; i++) {
      const res = await call(t.port, { path: '/drain', host: link.domain, headers: { 'x-forwarded-for': `10.1.0.${i + 1}`, 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0' } });
      assert.equal(res.status, 302);
    }
    // A create whose body is only half sent when the shutdown begins.
    const body = JSON.stringify({ url: 'https://example.com/late', key: 'late' });
    const inFlight = new Promise<Answer>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: t.port, method: 'POST', path: '/links', headers: { ...t.auth, host: `localhost:${t.port}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      });
      req.on('error', reject);
      req.write(body.slice(0, 10));
      setTimeout(() => req.end(body.slice(10)), 300);
    });
    await new Promise((r) => setTimeout(r, 100));
    closed = true;
    const closing = t.front.close();
    const late = await inFlight;
    assert.equal(late.status, 200, late.body);
    assert.equal(JSON.parse(late.body).key, 'late');
    await closing;
    await assert.rejects(call(t.port, { path: '/health' }), /ECONNREFUSED/);
    const stored = await t.database.db.selectFrom('events').select((eb) => eb.fn.countAll<number>().as('n')).where('link_id', '=', link.id).executeTakeFirstOrThrow();
    assert.equal(Number(stored.n), CLICKS);
  });
});

test('an API thread that stopped: API requests answer 503 with the error body, redirects go on; close() during the pause', async () => {
  // A socket folder a killed process left behind is removed by the next start.
  let dead = 4_000_000;
  while (alive(dead)) dead++;
  const stale = mkdtempSync(join(tmpdir(), `waymark-api-${dead}-`));
  // A pause longer than the test: the thread stays down until close() ends it.
  const t = await startTestFront({}, { firstMs: 600_000 });
  assert.equal(existsSync(stale), false);
  let closed = false;
  try {
    const link = await t.createLink({ url: 'https://example.com/alive', key: 'alive' });
    await t.front.worker.terminate();
    assert.equal(t.front.apiRunning(), false);
    const res = await call(t.port, { path: '/links', headers: t.auth });
    assert.equal(res.status, 503);
    const body = JSON.parse(res.body);
    assert.equal(body.error.code, 'service_unavailable');
    assert.equal(typeof body.error.doc_url, 'string');
    assert.ok(!/at .*\.(ts|js)/.test(res.body), 'no stack trace');
    const ready = await call(t.port, { path: '/ready' });
    assert.equal(ready.status, 503);
    assert.equal(JSON.parse(ready.body).status, 'unavailable');
    const health = await call(t.port, { path: '/health' });
    assert.equal(health.status, 200);
    assert.equal(JSON.parse(health.body).api, 'restarting');
    const redirect = await call(t.port, { path: '/alive', host: link.domain });
    assert.equal(redirect.status, 302);
    assert.equal(redirect.headers.location, 'https://example.com/alive');
    // Shutdown while a restart is pending: it is called off and close() ends.
    closed = true;
    await t.front.close();
    await assert.rejects(call(t.port, { path: '/health' }), /ECONNREFUSED/);
  } finally {
    if (!closed) await t.front.close();
    await t.database.close();
    await t.dispose();
  }
});

test('a crashed API thread is restarted: the API answers again, a PATCH reaches the redirect at once', async () => {
  const t = await startTestFront();
  try {
    const link = await t.createLink({ url: 'https://example.com/r0', key: 'restarted' });
    const first = t.front.worker;
    // Redirects are answered throughout the crash and the restart.
    let redirecting = true;
    const statuses = new Set<number>();
    const redirects = (async () => {
      while (redirecting) statuses.add((await call(t.port, { path: '/restarted', host: link.domain })).status);
    })();
    await first.terminate();
    await t.front.apiStarted();
    redirecting = false;
    await redirects;
    assert.deepEqual([...statuses], [302]);
    assert.notEqual(t.front.worker, first);
    assert.equal(t.front.apiRunning(), true);
    const got = await call(t.port, { path: `/links/${link.id}`, headers: t.auth });
    assert.equal(got.status, 200, got.body);
    assert.equal(JSON.parse(got.body).key, 'restarted');
    assert.equal((await call(t.port, { path: '/ready' })).status, 200);
    // The new thread's link-change port is attached: the next redirect sees the change.
    const patched = await call(t.port, { method: 'PATCH', path: `/links/${link.id}`, headers: t.auth, body: { url: 'https://example.com/r1' } });
    assert.equal(patched.status, 200, patched.body);
    assert.equal((await call(t.port, { path: '/restarted', host: link.domain })).headers.location, 'https://example.com/r1');
    // And its event-log port: the API reads the clicks the redirect stored.
    await t.front.redirect.flushClicks();
    const counted = await call(t.port, { path: `/analytics?event=clicks&linkId=${link.id}`, headers: t.auth });
    assert.equal(counted.status, 200, counted.body);
    assert.ok(JSON.parse(counted.body).clicks >= 1, counted.body);
  } finally {
    await t.front.close();
    await t.database.close();
    await t.dispose();
  }
});

test('PostgreSQL: the change relay reconnecting reloads the API thread\'s certificate allow list (what it missed)', { skip: !/^postgres/.test(process.env.DATABASE_URL ?? '') && 'needs DATABASE_URL (PostgreSQL)' }, async () => {
  const t = await startTestFront({ DOMAIN_VERIFICATION: 'off' });
  try {
    const allow = async () => (await call(t.port, { path: '/tls/allow?domain=missed.front.test' })).status;
    // Stored without an announcement, as while the listener was away.
    const now = Date.now();
    await t.database.db
      .insertInto('domains')
      .values({ id: 'dom_missed_front', workspace_id: t.workspaceId, slug: 'missed.front.test', verified: 1, primary: 0, archived: 0, placeholder: null, expired_url: null, not_found_url: null, logo: null, asset_links: null, apple_app_site_association: null, created_at: now, updated_at: now })
      .execute();
    assert.equal(await allow(), 404, 'not announced: the API thread\'s list does not know it');
    // The relay's LISTEN connection is cut; it reconnects after 200 ms.
    const cut = await t.database.db.executeQuery<{ pid: number }>(
      sql`select pg_terminate_backend(pid) as pid from pg_stat_activity where query = ${`listen "waymark_changes_${t.database.pgSchema}"`}`.compile(t.database.db),
    );
    assert.equal(cut.rows.length, 1, 'one listener');
    const deadline = Date.now() + 5_000;
    let status = await allow();
    while (status !== 200 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      status = await allow();
    }
    assert.equal(status, 200, 'reloaded after the reconnect');
  } finally {
    await t.front.close();
    await t.database.close();
    await t.dispose();
  }
});

test('close() while a restarted API thread is still starting ends cleanly', async () => {
  const t = await startTestFront({}, { firstMs: 1 });
  const first = t.front.worker;
  await first.terminate();
  while (t.front.worker === first) await new Promise((r) => setTimeout(r, 5));
  await t.front.close();
  assert.equal(t.front.apiRunning(), false);
  await assert.rejects(call(t.port, { path: '/health' }), /ECONNREFUSED/);
  await t.database.close();
  await t.dispose();
});

test('the restart pauses: 100 ms doubling to 5 s, counted again after a thread ran a minute', () => {
  const policy = createRestartPolicy();
  assert.deepEqual([1, 2, 3, 4, 5, 6, 7, 8].map(() => policy.next(50)), [100, 200, 400, 800, 1600, 3200, 5000, 5000]);
  assert.equal(policy.next(60_000), 100);
  assert.equal(policy.next(10), 200);
});
