import { test } from 'node:test';
import assert from 'node:assert/strict';
import { VERSION } from '../version.js';
import { createReadiness } from './readiness.js';
import { listenWhileStarting } from './starting-server.js';

/** fetch keeps its connection: the one opened while starting is reused once the app answers. */
async function get(port: number, path: string, method = 'GET') {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { method });
  return { status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() };
}

test('while starting: /health 200, /ready 503 with the step, the rest 503 service_unavailable; then the adopted app answers on the same port', async () => {
  const readiness = createReadiness();
  const starting = await listenWhileStarting({ port: 0, host: '127.0.0.1', docsUrl: 'http://docs.test', readiness });
  const { port } = starting.server.address() as { port: number };
  try {
    readiness.enter('migrations');
    const health = await get(port, '/health');
    assert.deepEqual([health.status, health.body], [200, JSON.stringify({ status: 'ok', version: VERSION })]);
    const ready = await get(port, '/ready?verbose=1');
    assert.equal(ready.status, 503);
    assert.deepEqual(JSON.parse(ready.body), { status: 'starting', phase: 'migrations' });
    assert.equal(ready.headers['cache-control'], 'no-store');

    for (const [method, path] of [['GET', '/links'], ['POST', '/health'], ['GET', '/abc']] as const) {
      const other = await get(port, path, method);
      assert.equal(other.status, 503, `${method} ${path}`);
      assert.deepEqual(JSON.parse(other.body), {
        error: { code: 'service_unavailable', message: 'Waymark is starting; try again in a few seconds.', doc_url: 'http://docs.test/api-reference/errors#service-unavailable' },
      });
      assert.equal(other.headers['retry-after'], '5');
    }

    // The app adopts the server; its listen() only reports the address; open() hands requests over.
    const server = starting.adopt((_req, res) => res.end('app'));
    assert.equal(server, starting.server);
    await new Promise<void>((resolve) => server.listen({ port: 1, host: '127.0.0.1' }, resolve));
    assert.equal((server.address() as { port: number }).port, port, 'still on its port');
    assert.equal((await get(port, '/links')).status, 503, 'not before open()');
    starting.open();
    const served = await get(port, '/links');
    assert.deepEqual([served.status, served.body], [200, 'app']);
  } finally {
    await new Promise((r) => starting.server.close(r));
  }
});

test('a port in use stops the start with the listen error', async () => {
  const first = await listenWhileStarting({ port: 0, host: '127.0.0.1', docsUrl: 'http://docs.test', readiness: createReadiness() });
  const { port } = first.server.address() as { port: number };
  try {
    await assert.rejects(listenWhileStarting({ port, host: '127.0.0.1', docsUrl: 'http://docs.test', readiness: createReadiness() }), /EADDRINUSE/);
  } finally {
    await new Promise((r) => first.server.close(r));
  }
});
