/**
 * Connection reuse of the sends (send.ts, createSendAgents): several deliveries to one receiver
 * share connections; every NEW connection still goes through the private-address check; a pooled
 * socket only carries requests to its own host:port; an answer not read to its end (oversized,
 * aborted) destroys its socket instead of pooling it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSendAgents, send } from './send.js';

/** A receiver that counts the distinct client sockets it saw and the requests it answered. */
async function countingReceiver(answerBody = '') {
  const seen = { connections: 0, requests: 0, closed: 0 };
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen.requests++;
      res.statusCode = 200;
      res.end(answerBody);
    });
  });
  server.on('connection', (socket) => {
    seen.connections++;
    socket.on('close', () => seen.closed++);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    seen,
    port,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

const headers = { 'content-type': 'application/json' };

test('several deliveries to one receiver use fewer connections than deliveries', async () => {
  const r = await countingReceiver();
  const agents = createSendAgents(true);
  try {
    for (let i = 0; i < 6; i++) {
      const a = await send(`http://127.0.0.1:${r.port}/hook`, `{"n":${i}}`, headers, { allowPrivate: true, agents });
      assert.equal(a.error, null, a.error ?? '');
    }
    assert.equal(r.seen.requests, 6);
    assert.ok(r.seen.connections < 6, `${r.seen.connections} connections for 6 deliveries`);
  } finally {
    agents.destroy();
    await r.close();
  }
});

test('without WEBHOOK_ALLOW_PRIVATE, a pooled agent still refuses a name resolving to loopback, and IP literals first', async () => {
  const r = await countingReceiver();
  const agents = createSendAgents(false);
  try {
    for (let i = 0; i < 2; i++) {
      const named = await send(`http://localhost:${r.port}/hook`, '{}', headers, { allowPrivate: false, agents });
      assert.match(named.error ?? '', /^refused: localhost is a local name, always a private or reserved address/);
      const literal = await send(`http://127.0.0.1:${r.port}/hook`, '{}', headers, { allowPrivate: false, agents });
      assert.match(literal.error ?? '', /^refused: 127\.0\.0\.1 is the private or reserved address/);
      const tls = await send(`https://localhost:${r.port}/hook`, '{}', headers, { allowPrivate: false, agents });
      assert.match(tls.error ?? '', /^refused: localhost is a local name, always a private or reserved address/);
    }
    // The guard is bound to the agent: even a request that does not pass its own lookup is checked.
    const bare = await new Promise<string>((resolve) => {
      const req = request({ host: 'localhost', port: r.port, method: 'POST', agent: agents.http }, (res) => { res.resume(); resolve('answered'); });
      req.on('error', (err) => resolve(err.message));
      req.end('{}');
    });
    assert.match(bare, /^refused:/);
    assert.equal(r.seen.connections, 0, 'the receiver saw no connection');
  } finally {
    agents.destroy();
    await r.close();
  }
});

test('a pooled socket only carries requests to its own host and port', async () => {
  const a = await countingReceiver();
  const b = await countingReceiver();
  const agents = createSendAgents(true);
  try {
    assert.notEqual(agents.http.getName({ host: '127.0.0.1', port: a.port }), agents.http.getName({ host: '127.0.0.1', port: b.port }));
    assert.notEqual(agents.http.getName({ host: 'localhost', port: a.port }), agents.http.getName({ host: '127.0.0.1', port: a.port }));
    for (let i = 0; i < 4; i++) {
      for (const r of [a, b]) assert.equal((await send(`http://127.0.0.1:${r.port}/hook`, '{}', headers, { allowPrivate: true, agents })).error, null);
    }
    assert.equal(a.seen.requests, 4);
    assert.equal(b.seen.requests, 4);
    assert.ok(a.seen.connections < 4 && b.seen.connections < 4, JSON.stringify([a.seen, b.seen]));
  } finally {
    agents.destroy();
    await a.close();
    await b.close();
  }
});

test('an oversized answer destroys its socket instead of returning it to the pool', async () => {
  const r = await countingReceiver('x'.repeat(64 * 1024));
  const agents = createSendAgents(true);
  try {
    for (let i = 0; i < 3; i++) {
      const a = await send(`http://127.0.0.1:${r.port}/hook`, '{}', headers, { allowPrivate: true, agents });
      assert.equal(a.statusCode, 200);
    }
    assert.equal(r.seen.connections, 3, 'one new connection per send');
    assert.equal(Object.keys(agents.http.freeSockets).length, 0, 'nothing pooled');
  } finally {
    agents.destroy();
    await r.close();
  }
});

test('an aborted send (shutdown, same path as the timeout) destroys its socket', async () => {
  let held = 0;
  const server = createServer(() => { held++; });
  let connections = 0;
  let closed = 0;
  server.on('connection', (socket) => {
    connections++;
    socket.on('close', () => closed++);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const agents = createSendAgents(true);
  try {
    const abort = new AbortController();
    const pending = send(`http://127.0.0.1:${port}/hook`, '{}', headers, { allowPrivate: true, agents, signal: abort.signal });
    while (held === 0) await new Promise((res) => setTimeout(res, 5));
    abort.abort();
    const a = await pending;
    assert.notEqual(a.error, null);
    assert.equal(connections, 1);
    assert.equal(Object.keys(agents.http.freeSockets).length, 0, 'nothing pooled');
    // The receiver sees its end of the connection close (waited for, not timed).
    while (closed === 0) await new Promise((res) => setTimeout(res, 5));
    assert.equal(Object.keys(agents.http.freeSockets).length, 0, 'nothing pooled after the close');
  } finally {
    agents.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

test('a timed-out send (10 s) destroys its socket instead of returning it to the pool', async () => {
  let held = 0;
  let closed = 0;
  const server = createServer(() => { held++; });
  server.on('connection', (socket) => socket.on('close', () => closed++));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const agents = createSendAgents(true);
  try {
    const a = await send(`http://127.0.0.1:${port}/hook`, '{}', headers, { allowPrivate: true, agents });
    assert.equal(held, 1);
    assert.match(a.error ?? '', /timed out after 10000 ms/);
    while (closed === 0) await new Promise((res) => setTimeout(res, 5));
    assert.equal(Object.keys(agents.http.freeSockets).length, 0, 'nothing pooled');
  } finally {
    agents.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
