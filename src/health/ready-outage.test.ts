/**
 * `GET /ready` on the real process while PostgreSQL cannot be reached (issue 29): 503, and 200
 * again once it can; `/health` stays 200 and the process survives. The outage is a TCP proxy in
 * front of the test's database that the test cuts (every connection dropped, the port closed)
 * and restores: it runs on every PostgreSQL pass, without a second server to stop and start.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { VERSION } from '../version.js';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { getJson, waitFor, type JsonAnswer } from '../test-support/http-probe.js';
import { TEST_ENGINE } from '../test-support/harness.js';
import { freePort, privateDatabase, startServer, type RunningServer } from '../test-support/processes.js';

type Probe = JsonAnswer<{ status?: string; phase?: string; reason?: string }>;
const probe = (port: number, path: string) => getJson<Probe['body']>(port, path);

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
  let server: RunningServer | undefined;
  try {
    const running = (server = await startServer(viaProxy.toString(), await freePort(), key));
    assert.deepEqual(await probe(running.port, '/ready'), { status: 200, body: { status: 'ready' } });

    await proxy.cut();
    const cutAt = Date.now();
    let last: Probe | null = null;
    const alive = () => {
      if (running.child.exitCode !== null) throw new Error(`the server exited:\n${running.output()}`);
    };
    await waitFor('/ready to answer 503', async () => (alive(), (last = await probe(running.port, '/ready'))?.status === 503), 30_000);
    t.diagnostic(`/ready answered 503 ${Date.now() - cutAt} ms after the database was cut off`);
    assert.deepEqual(last!.body, { status: 'unavailable', reason: 'The database does not answer.' });
    assert.deepEqual(await probe(running.port, '/health'), { status: 200, body: { status: 'ok', version: VERSION } });

    await proxy.restore();
    const restoredAt = Date.now();
    await waitFor('/ready to answer 200 again', async () => (alive(), (await probe(running.port, '/ready'))?.status === 200), 30_000);
    t.diagnostic(`/ready answered 200 ${Date.now() - restoredAt} ms after the database was back`);
    assert.equal(running.child.exitCode, null, 'the process survived the outage');

    running.child.kill('SIGTERM');
    await running.exited;
  } finally {
    if (server && server.child.exitCode === null) server.child.kill('SIGKILL');
    await proxy.cut();
    await db.dispose();
  }
});
