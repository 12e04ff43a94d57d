import { test } from 'node:test';
import assert from 'node:assert/strict';
import { anonymizeIp, formatIpv6, ipv6Groups, storedIp } from './visitor-ip.js';

test('IPv4 keeps its /24', () => {
  assert.equal(anonymizeIp('203.0.113.77'), '203.0.113.0');
  assert.equal(anonymizeIp('10.0.0.0'), '10.0.0.0');
  assert.equal(anonymizeIp(' 198.51.100.255 '), '198.51.100.0');
});

test('IPv4-mapped IPv6 is an IPv4 address: its /24, in the dotted form redirects store', () => {
  assert.equal(anonymizeIp('::ffff:203.0.113.77'), '203.0.113.0');
  assert.equal(anonymizeIp('::FFFF:192.0.2.1'), '192.0.2.0');
});

test('IPv6 keeps its /48, written in the compressed form', () => {
  assert.equal(anonymizeIp('2001:db8:85a3:8d3:1319:8a2e:370:7348'), '2001:db8:85a3::');
  assert.equal(anonymizeIp('2001:0DB8:0000:0001::1'), '2001:db8::');
  assert.equal(anonymizeIp('2001:db8::1'), '2001:db8::');
  assert.equal(anonymizeIp('::1'), '::');
  assert.equal(anonymizeIp('fe80::1%eth0'), 'fe80::');
  assert.equal(anonymizeIp('64:ff9b:1::192.0.2.1'), '64:ff9b:1::');
  assert.equal(anonymizeIp('2001:db8:0:1::'), '2001:db8::');
});

test('anything else stores nothing', () => {
  for (const bad of ['', 'unknown', '300.1.2.3', '1.2.3', '2001:db8:::1', 'gggg::1', '1.2.3.4.5', '<script>']) {
    assert.equal(anonymizeIp(bad), '', bad);
  }
});

test('the three modes', () => {
  assert.equal(storedIp('203.0.113.77', 'anonymized'), '203.0.113.0');
  assert.equal(storedIp('203.0.113.77', 'full'), '203.0.113.77');
  assert.equal(storedIp('203.0.113.77', 'none'), '');
});

test('IPv6 groups and their RFC 5952 text', () => {
  assert.deepEqual(ipv6Groups('1::ffff:1.2.3.4'), [1, 0, 0, 0, 0, 0xffff, 0x102, 0x304]);
  assert.equal(formatIpv6([1, 0, 0, 1, 0, 0, 0, 1]), '1:0:0:1::1');
  assert.equal(formatIpv6([1, 0, 2, 3, 4, 5, 6, 7]), '1:0:2:3:4:5:6:7');
  assert.equal(formatIpv6([0, 0, 0, 0, 0, 0, 0, 0]), '::');
});
