import { test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { addressKey, clientAddressPlugin, clientAddressRule, normaliseIp, parseTrustProxy, type TrustProxy } from './client-address.js';

test('IPv4 counts per address, IPv6 per /64', () => {
  assert.equal(addressKey('203.0.113.7'), '203.0.113.7');
  assert.equal(addressKey('::ffff:203.0.113.7'), '203.0.113.7');
  assert.equal(addressKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
  assert.equal(addressKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff'), '2001:db8:1:2::/64', 'the same /64, written in full');
  assert.equal(addressKey('2001:db8::1'), '2001:db8:0:0::/64');
  assert.equal(addressKey('::1'), '0:0:0:0::/64');
  assert.equal(addressKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
  assert.equal(addressKey('64:ff9b::192.0.2.1'), '64:ff9b:0:0::/64');
  assert.notEqual(addressKey('2001:db8:1:2::1'), addressKey('2001:db8:1:3::1'));
  assert.equal(normaliseIp('::ffff:10.1.2.3'), '10.1.2.3');
  assert.equal(normaliseIp('2001:db8::1'), '2001:db8::1');
});

test('TRUST_PROXY: false, true, a number of proxies, or their addresses', () => {
  for (const off of [undefined, '', 'false', '0', 'no', 'off', 'FALSE']) assert.deepEqual(parseTrustProxy(off), { kind: 'none' });
  for (const on of ['true', 'yes', 'on']) assert.deepEqual(parseTrustProxy(on), { kind: 'all' });
  assert.deepEqual(parseTrustProxy('1'), { kind: 'hops', hops: 1 });
  assert.deepEqual(parseTrustProxy(' 2 '), { kind: 'hops', hops: 2 });
  assert.deepEqual(parseTrustProxy('10.0.0.0/8, loopback,2001:db8::/32'), { kind: 'addresses', addresses: ['10.0.0.0/8', 'loopback', '2001:db8::/32'] });
  assert.throws(() => parseTrustProxy('maybe'), /the number of proxies in front .* or their addresses and CIDRs/);
  assert.throws(() => parseTrustProxy('10.0.0.0/99'), /addresses and CIDRs/);
  assert.throws(() => parseTrustProxy('33'), /at most 32/);
});

/** [setting, peer, X-Forwarded-For, the client's address]. */
const CASES: [TrustProxy, string, string | undefined, string][] = [
  // Not trusted: the peer, whatever the header says.
  [{ kind: 'none' }, '10.0.0.2', '203.0.113.7', '10.0.0.2'],
  [{ kind: 'none' }, '::ffff:10.0.0.2', undefined, '10.0.0.2'],
  // One proxy: the entry it added, the right-most; what the client wrote to its left is ignored.
  [{ kind: 'hops', hops: 1 }, '10.0.0.2', '203.0.113.7', '203.0.113.7'],
  [{ kind: 'hops', hops: 1 }, '10.0.0.2', '198.51.100.66, 203.0.113.7', '203.0.113.7'],
  [{ kind: 'hops', hops: 1 }, '10.0.0.2', '1.1.1.1,2.2.2.2 ,  203.0.113.7', '203.0.113.7'],
  [{ kind: 'hops', hops: 1 }, '10.0.0.2', '::ffff:203.0.113.7', '203.0.113.7'],
  [{ kind: 'hops', hops: 1 }, '10.0.0.2', undefined, '10.0.0.2'],
  [{ kind: 'hops', hops: 1 }, '10.0.0.2', '', '10.0.0.2'],
  // Two proxies: the second from the right.
  [{ kind: 'hops', hops: 2 }, '10.0.0.2', '198.51.100.66, 203.0.113.7, 10.0.0.9', '203.0.113.7'],
  [{ kind: 'hops', hops: 2 }, '10.0.0.2', '10.0.0.9', '10.0.0.9'],
  // Proxies by address: walked from the right past trusted ones; an untrusted peer is the client.
  [{ kind: 'addresses', addresses: ['10.0.0.0/8'] }, '10.0.0.2', '198.51.100.66, 203.0.113.7', '203.0.113.7'],
  [{ kind: 'addresses', addresses: ['10.0.0.0/8'] }, '10.0.0.2', '198.51.100.66, 203.0.113.7, 10.9.9.9', '203.0.113.7'],
  [{ kind: 'addresses', addresses: ['10.0.0.0/8'] }, '198.51.100.1', '203.0.113.7', '198.51.100.1'],
  [{ kind: 'addresses', addresses: ['loopback'] }, '::1', '2001:db8::5', '2001:db8::5'],
  // Everything trusted: the left-most entry, which the client writes.
  [{ kind: 'all' }, '10.0.0.2', '198.51.100.66, 203.0.113.7', '198.51.100.66'],
];

test('the client address under each setting: the right-most untrusted X-Forwarded-For entry (proxy-addr)', () => {
  for (const [setting, peer, header, client] of CASES) {
    assert.equal(clientAddressRule(setting).of(peer, header), client, `${JSON.stringify(setting)} ${peer} ${header}`);
  }
  assert.equal(clientAddressRule({ kind: 'hops', hops: 1 }).of(undefined, undefined), '', 'a closed socket');
});

test("Fastify's routes see the same address as the redirect (request.clientAddress, and Fastify's own request.ip)", async () => {
  for (const [setting, peer, header, client] of CASES) {
    const rule = clientAddressRule(setting);
    const app = Fastify({ trustProxy: rule.fastifyTrust });
    await app.register(clientAddressPlugin, { rule });
    app.get('/', async (request) => ({ clientAddress: request.clientAddress, ip: normaliseIp(request.ip) }));
    const res = await app.inject({ method: 'GET', url: '/', remoteAddress: peer, headers: header === undefined ? {} : { 'x-forwarded-for': header } });
    assert.deepEqual(res.json(), { clientAddress: client, ip: client }, `${JSON.stringify(setting)} ${peer} ${header}`);
    await app.close();
  }
});
