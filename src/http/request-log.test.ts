import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { OneLinePerRequest, loggedUrl } from './request-log.js';

test('one info line per request, with method, url, status and time', async () => {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const app = Fastify({ logger: { level: 'info', stream }, logController: new OneLinePerRequest() });
  app.get('/ok', async () => ({ ok: true }));
  await app.inject({ method: 'GET', url: '/ok?x=1' });
  await app.inject({ method: 'GET', url: `/missing?${'q'.repeat(2_000)}` });
  await app.close();
  const requests = lines.filter((l) => l.msg === 'request');
  assert.equal(lines.filter((l) => l.msg !== 'request' && l.level === 30 && l.reqId).length, 0, 'no other per-request line at info');
  assert.equal(requests.length, 2);
  assert.deepEqual([requests[0]!.method, requests[0]!.url, requests[0]!.status], ['GET', '/ok?x=1', 200]);
  assert.equal(typeof requests[0]!.ms, 'number');
  assert.ok(String(requests[1]!.url).length <= 501, 'long URLs are cut');
  assert.equal(requests[1]!.status, 404);
});

test('the value of a token parameter (setup and invitation links) is not logged', () => {
  assert.equal(loggedUrl('/setup?token=abcDEF_123-x'), '/setup?token=[redacted]');
  assert.equal(loggedUrl('/dashboard/invite?a=1&token=abc&b=2'), '/dashboard/invite?a=1&token=[redacted]&b=2');
  assert.equal(loggedUrl('/links?search=token'), '/links?search=token');
});

test('probes (routes marked config.probe: /health, /ready) are logged at debug, not info', async () => {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const app = Fastify({ logger: { level: 'debug', stream }, logController: new OneLinePerRequest() });
  app.get('/ready', { config: { probe: true } }, async () => ({ status: 'ready' }));
  app.get('/links', async () => []);
  await app.inject({ method: 'GET', url: '/ready' });
  await app.inject({ method: 'GET', url: '/links' });
  await app.close();
  const requests = lines.filter((l) => l.msg === 'request');
  assert.deepEqual(requests.map((l) => [l.url, l.level]), [['/ready', 20], ['/links', 30]]);
});
