import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { createReadiness } from './readiness.js';
import { listenWhileStarting } from './starting-server.js';

function get(port: number, path: string, method = 'GET'): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('while starting: /health 200, /ready 503 with the step, the rest 503 service_unavailable; then the adopted app answers on the same port', async () => {
  const readiness = createReadiness();
  const starting = await listenWhileStarting({ port: 0, host: '127.0.0.1', docsUrl: 'http://docs.test', readiness });
  const { port } = starting.server.address() as { port: number };
  try {
    readiness.enter('migrations');
    assert.deepEqual(await get(port, '/health'), { status: 200, headers: (await get(port, '/health')).headers, body: '{"status":"ok"}' });
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
    assert.deepEqual(await get(port, '/links'), { status: 200, headers: (await get(port, '/links')).headers, body: 'app' });
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
