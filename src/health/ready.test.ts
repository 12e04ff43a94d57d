/**
 * `GET /ready` on the real process (issue 29): 503 through every step of a start, including the
 * replay of a spill file, and 200 only once every spilled click is stored; on PostgreSQL, 503
 * while the database cannot be reached and 200 again when it can (a TCP proxy in front of the
 * test server that the test closes and reopens: it runs on every PostgreSQL pass without a
 * second server to stop). `/health` answers 200 all along.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { TEST_ENGINE } from '../test-support/harness.js';
import { freePort, privateDatabase, spawnServer, startServer } from '../test-support/processes.js';
import { linkRow } from '../test-support/link-row.js';
import { createWorkspaceService } from '../workspaces/service.js';
import { createWorkspaceStore } from '../workspaces/store.js';
import { databaseIdentity, writeSpillFile } from '../redirect/click-spill.js';
import { newClickIdAt } from '../redirect/click-id.js';
import type { RawClick } from '../redirect/click-record.js';

/** Enough clicks that their replay lasts about a second on a quiet machine (~50 µs a click), while /ready is polled every 20 ms. */
const SPILLED = 20_000;

interface Probe {
  status: number;
  body: { status?: string; phase?: string };
}

async function probe(port: number, path: string): Promise<Probe | null> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(5_000) });
    return { status: res.status, body: (await res.json()) as Probe['body'] };
  } catch {
    return null; // not listening yet
  }
}

const until = async (what: string, check: () => Promise<boolean>, ms = 30_000) => {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

test('/ready is 503 through the start, spill replay included, and 200 once every spilled click is stored', { timeout: 120_000 }, async (t) => {
  const db = await privateDatabase();
  const key = `wm_${randomBytes(12).toString('hex')}`;
  const spillDir = join(db.dir, 'spill');
  const database = await db.open();
  try {
    const { workspace } = await createWorkspaceService(createWorkspaceStore(database.db), Date.now).ensureDefault(key);
    const now = Date.now();
    await database.db.insertInto('links').values(linkRow({ id: 'link_spilled', workspace_id: workspace.id, domain: 'go.ready.test', key: 'spilled', url: 'https://example.com/' }, now)).execute();
    const clicks: RawClick[] = Array.from({ length: SPILLED }, (_, i) => ({
      id: newClickIdAt(now - 60_000 + i),
      timestamp: now - 60_000 + i,
      linkId: 'link_spilled',
      workspaceId: workspace.id,
      domain: 'go.ready.test',
      key: 'spilled',
      url: 'https://example.com/',
      ip: `10.9.${(i >> 8) & 255}.${i & 255}`,
      ua: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
      referer: '',
      qr: false,
      geo: null,
    }));
    writeSpillFile(spillDir, databaseIdentity(database), clicks);
  } finally {
    await database.close();
  }

  const port = await freePort();
  const server = spawnServer(db.url, port, key, { CLICK_SPILL_DIR: spillDir });
  try {
    // Every change of /ready's answer, in order, until it is 200.
    const seen: string[] = [];
    let duringReplay: { health?: number; api?: Probe | null } = {};
    await until(
      '/ready to answer 200',
      async () => {
        if (server.child.exitCode !== null) throw new Error(`the server exited:\n${server.output()}`);
        const ready = await probe(port, '/ready');
        if (!ready) return false;
        const label = ready.status === 200 ? '200 ready' : `${ready.status} ${ready.body.status}${ready.body.phase ? `: ${ready.body.phase}` : ''}`;
        if (seen.at(-1) !== label) seen.push(label);
        if (ready.body.phase === 'spill replay' && duringReplay.health === undefined) {
          duringReplay = { health: (await probe(port, '/health'))?.status, api: await probe(port, '/links') };
        }
        return ready.status === 200;
      },
      90_000,
    );
    t.diagnostic(`/ready answered, in order: ${seen.join(' → ')}`);

    const steps = ['503 starting: migrations', '503 starting: event store', '503 starting: click writer', '503 starting: spill replay'];
    assert.ok(seen.includes('503 starting: spill replay'), `the replay was seen: ${seen.join(', ')}`);
    assert.deepEqual(seen.slice(0, -1), steps.filter((s) => seen.includes(s)), 'only start steps, in their order');
    assert.equal(seen.at(-1), '200 ready');
    assert.equal(duringReplay.health, 200, '/health answers during the start');
    assert.equal(duringReplay.api?.status, 503, 'the API is not served during the start');
    assert.equal((duringReplay.api?.body as { error?: { code: string } }).error?.code, 'service_unavailable');

    // Ready only after the replay: every spilled click is in the database.
    const check = await db.open();
    try {
      const { n } = await check.db.selectFrom('events').select(sql<number>`count(*)`.as('n')).where('link_id', '=', 'link_spilled').executeTakeFirstOrThrow();
      assert.equal(Number(n), SPILLED);
    } finally {
      await check.close();
    }
    assert.equal((await probe(port, '/health'))?.status, 200);

    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
  } finally {
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
    await db.dispose();
  }
});

/** A TCP proxy to `target` that the test can cut (every connection dropped, the port closed) and restore. */
async function tcpProxy(target: { host: string; port: number }, port: number) {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server = createServer((client) => {
        const upstream = connect(target.port, target.host);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => {
            client.destroy();
            upstream.destroy();
          });
        }
        client.pipe(upstream).pipe(client);
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
  await listen();
  return {
    async cut() {
      await new Promise<void>((resolve) => {
        server!.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
    },
    restore: listen,
  };
}

test('/ready is 503 while PostgreSQL cannot be reached and 200 again once it can; /health stays 200', { skip: TEST_ENGINE !== 'postgres' && 'PostgreSQL only: a SQLite file cannot become unreachable', timeout: 120_000 }, async (t) => {
  const db = await privateDatabase();
  const direct = new URL(db.url);
  const proxyPort = await freePort();
  const proxy = await tcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) }, proxyPort);
  const viaProxy = new URL(db.url);
  viaProxy.port = String(proxyPort);
  const key = `wm_${randomBytes(12).toString('hex')}`;
  const server = await startServer(viaProxy.toString(), await freePort(), key);
  try {
    assert.deepEqual(await probe(server.port, '/ready'), { status: 200, body: { status: 'ready' } });

    await proxy.cut();
    const cutAt = Date.now();
    let last: Probe | null = null;
    const alive = () => {
      if (server.child.exitCode !== null) throw new Error(`the server exited:\n${server.output()}`);
    };
    await until('/ready to answer 503', async () => (alive(), (last = await probe(server.port, '/ready'))?.status === 503), 30_000);
    t.diagnostic(`/ready answered 503 ${Date.now() - cutAt} ms after the database was cut off`);
    assert.deepEqual(last!.body, { status: 'unavailable', reason: 'The database does not answer.' });
    assert.deepEqual(await probe(server.port, '/health'), { status: 200, body: { status: 'ok' } });

    await proxy.restore();
    const restoredAt = Date.now();
    await until('/ready to answer 200 again', async () => (alive(), (await probe(server.port, '/ready'))?.status === 200), 30_000);
    t.diagnostic(`/ready answered 200 ${Date.now() - restoredAt} ms after the database was back`);
    assert.equal(server.child.exitCode, null, 'the process survived the outage');

    server.child.kill('SIGTERM');
    await server.exited;
  } finally {
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
    await proxy.cut();
    await db.dispose();
  }
});
