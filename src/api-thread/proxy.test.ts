/**
 * What the front tells the API thread about a request (proxy.ts `forwardedHeaders`) and how the
 * API thread reads the client's address from it (http/client-address.ts `behindFront`): under each
 * TRUST_PROXY setting, the address the API sees is the one the redirect (on the front) sees.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { forwardedHeaders } from './proxy.js';
import { behindFront, clientAddressRule, parseTrustProxy } from '../http/client-address.js';

const requestFrom = (peer: string, headers: Record<string, string>) => ({ socket: { remoteAddress: peer }, headers }) as unknown as IncomingMessage;

const cases: { trust: string; peer: string; headers: Record<string, string> }[] = [
  { trust: 'false', peer: '203.0.113.9', headers: {} },
  { trust: 'false', peer: '203.0.113.9', headers: { 'x-forwarded-for': '6.6.6.6' } },
  { trust: '1', peer: '10.0.0.2', headers: { 'x-forwarded-for': '6.6.6.6, 198.51.100.7' } },
  { trust: '2', peer: '10.0.0.2', headers: { 'x-forwarded-for': '6.6.6.6, 198.51.100.7, 10.0.0.3' } },
  { trust: '10.0.0.0/8', peer: '10.0.0.2', headers: { 'x-forwarded-for': '198.51.100.7, 10.0.0.3' } },
  { trust: '10.0.0.0/8', peer: '203.0.113.9', headers: { 'x-forwarded-for': '198.51.100.7' } },
  { trust: 'true', peer: '10.0.0.2', headers: { 'x-forwarded-for': '198.51.100.7, 10.0.0.3' } },
];

for (const c of cases) {
  test(`TRUST_PROXY=${c.trust}, peer ${c.peer}, X-Forwarded-For ${c.headers['x-forwarded-for'] ?? '(none)'}: the API thread sees the front's client`, () => {
    const rule = clientAddressRule(parseTrustProxy(c.trust));
    const atFront = rule.of(c.peer, c.headers['x-forwarded-for']);
    const sent = forwardedHeaders(requestFrom(c.peer, c.headers), rule.fastifyTrust);
    // The API thread's peer is the front, over its private socket (read as loopback).
    assert.equal(behindFront(rule).of('127.0.0.1', String(sent['x-forwarded-for'])), atFront);
  });
}

test('forwarding headers: the scheme is the front\'s unless a trusted proxy said it; hop-by-hop headers stay behind', () => {
  const untrusted = forwardedHeaders(requestFrom('203.0.113.9', { host: 'a.example', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example', connection: 'keep-alive', 'keep-alive': 'timeout=5', 'x-other': 'kept' }), false);
  assert.equal(untrusted['x-forwarded-proto'], 'http');
  assert.equal(untrusted['x-forwarded-host'], undefined);
  assert.equal(untrusted.connection, undefined);
  assert.equal(untrusted['keep-alive'], undefined);
  assert.equal(untrusted['x-other'], 'kept');
  assert.equal(untrusted.host, 'a.example');
  const trusted = forwardedHeaders(requestFrom('10.0.0.2', { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'go.example' }), clientAddressRule(parseTrustProxy('1')).fastifyTrust);
  assert.equal(trusted['x-forwarded-proto'], 'https');
  assert.equal(trusted['x-forwarded-host'], 'go.example');
});
