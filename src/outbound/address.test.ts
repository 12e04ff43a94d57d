/**
 * The outbound address policy: global unicast only, IPv6 transition forms judged by the IPv4 they
 * carry. Every spelling of loopback and of a private or reserved address a URL can hold is refused
 * (decimal, hex, octal and short IPv4, IPv4-mapped, IPv4-compatible, 6to4, NAT64, Teredo), checked
 * through the URL parser as a receiver URL is; names by every address they resolve to.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { canonicalHost, carriedIpv4, isAllowedAddress, refusedHost } from './address.js';
import { guardedLookup, refusedTarget, type Resolve } from './request.js';

/** Teredo address whose client (the last 32 bits, inverted) is `ipv4`; server 65.54.227.120. */
const teredo = (ipv4: string) => {
  const [a, b, c, d] = ipv4.split('.').map(Number) as [number, number, number, number];
  const hex = (n: number) => (~n & 0xffff).toString(16);
  return `2001:0:4136:e378:8000:63bf:${hex((a << 8) | b)}:${hex((c << 8) | d)}`;
};

const LOOPBACK = [
  '127.0.0.1', '127.1', '127.0.1', '127.255.255.254', '2130706433', '0x7f000001', '0x7f.0.0.1', '0177.0.0.1', '017700000001', '0x7f.1',
  '[::1]', '[0:0:0:0:0:0:0:1]', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[0::1]',
  '[::7f00:1]', '[::127.0.0.1]', '[2002:7f00:1::]', '[2002:7f00:1:ffff::1]', '[64:ff9b::127.0.0.1]', '[64:ff9b::7f00:1]', '[64:ff9b:1::7f00:1]',
  `[${teredo('127.0.0.1')}]`, '0.0.0.0', '0', '[::]', '[::ffff:0.0.0.0]',
];

const PRIVATE = [
  '10.0.0.1', '10.255.255.255', '10.1', '012.0.0.1', '0xa000001', '167772161', '172.16.0.1', '172.31.255.255', '192.168.0.1', '192.168.1.1', '3232235777',
  '169.254.169.254', '0xa9fea9fe', '2852039166', '0251.0376.0251.0376', '100.64.0.1', '100.127.255.255',
  '224.0.0.1', '239.255.255.250', '255.255.255.255', '240.0.0.1', '198.18.0.1', '192.0.0.1', '192.0.2.1', '198.51.100.1', '203.0.113.1', '192.88.99.1',
  '[::ffff:10.0.0.1]', '[::ffff:a9fe:a9fe]', '[::ffff:192.168.1.1]', '[::a00:1]', '[::c0a8:101]', '[::ffff:0:a00:1]',
  '[fd00:ec2::254]', '[fc00::1]', '[fe80::1]', '[fec0::1]', '[ff02::1]', '[2001:db8::1]', '[100::1]', '[3fff::1]', '[5f00::1]', '[4000::1]',
  '[2002:a00:1::]', '[2002:c0a8:101::]', '[2002:a9fe:a9fe::]', '[64:ff9b::a00:1]', '[64:ff9b::169.254.169.254]', '[64:ff9b:1::a00:1]', '[64:ff9b:1:a00:1::]',
  `[${teredo('10.0.0.1')}]`, `[${teredo('192.168.1.1')}]`, `[${teredo('169.254.169.254')}]`, '[2001:0:a00:1::1]',
];

const PUBLIC = ['93.184.216.34', '8.8.8.8', '1.1.1.1', '[2606:4700:4700::1111]', '[2a00:1450:4001:80b::200e]', '[::ffff:8.8.8.8]', '[2002:808:808::1]', '[64:ff9b::8.8.8.8]', `[${teredo('8.8.8.8')}]`];

const hostOf = (h: string) => new URL(`http://${h}/hook`).hostname.replace(/^\[|\]$/g, '');

test('every spelling of a loopback address is refused, as the URL parser reads it', async () => {
  assert.ok(LOOPBACK.length >= 25);
  for (const h of LOOPBACK) {
    assert.equal(isAllowedAddress(hostOf(h)), false, `${h} → ${hostOf(h)}`);
    assert.match((await refusedTarget(`http://${h}/hook`, { allowPrivate: false })) ?? '', /^refused: /, h);
  }
});

test('every spelling of a private, link-local, shared, multicast, documentation or reserved address is refused', async () => {
  assert.ok(PRIVATE.length >= 44);
  for (const h of PRIVATE) {
    assert.equal(isAllowedAddress(hostOf(h)), false, `${h} → ${hostOf(h)}`);
    assert.match((await refusedTarget(`https://${h}:8443/x`, { allowPrivate: false })) ?? '', /^refused: /, h);
  }
});

test('public addresses are allowed, IPv6 transition forms of public IPv4 too', async () => {
  for (const h of PUBLIC) {
    assert.equal(isAllowedAddress(hostOf(h)), true, `${h} → ${hostOf(h)}`);
    assert.equal(await refusedTarget(`http://${h}/hook`, { allowPrivate: false }), null, h);
  }
});

test('the IPv4 each transition form carries', () => {
  assert.equal(carriedIpv4('::7f00:1'), '127.0.0.1');
  assert.equal(carriedIpv4('::ffff:a00:1'), '10.0.0.1');
  assert.equal(carriedIpv4('2002:7f00:1::'), '127.0.0.1');
  assert.equal(carriedIpv4('64:ff9b::c0a8:101'), '192.168.1.1');
  assert.equal(carriedIpv4(teredo('127.0.0.1')), '127.0.0.1');
  assert.equal(carriedIpv4('2606:4700:4700::1111'), null);
  assert.equal(carriedIpv4('8.8.8.8'), null);
});

test('a name is refused when any address it resolves to is refused; allowed private with WEBHOOK_ALLOW_PRIVATE', async () => {
  const dns: Record<string, LookupAddress[]> = {
    'mixed.test': [{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.7', family: 4 }],
    'six.test': [{ address: '2606:4700:4700::1111', family: 6 }, { address: '2002:7f00:1::', family: 6 }],
    'public.test': [{ address: '93.184.216.34', family: 4 }],
  };
  const resolve: Resolve = async (name) => {
    const found = dns[name];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
    return found;
  };
  assert.match((await refusedTarget('http://mixed.test/', { allowPrivate: false, resolve })) ?? '', /^refused: mixed\.test resolves to the private or reserved address 10\.0\.0\.7/);
  assert.match((await refusedTarget('http://six.test/', { allowPrivate: false, resolve })) ?? '', /2002:7f00:1::/);
  assert.equal(await refusedTarget('http://public.test/', { allowPrivate: false, resolve }), null);
  assert.equal(await refusedTarget('http://unknown.test/', { allowPrivate: false, resolve }), null, 'not resolvable now: checked again at each request');
  assert.equal(await refusedTarget('http://mixed.test/', { allowPrivate: true, resolve }), null);
  assert.equal(await refusedTarget('http://127.0.0.1/', { allowPrivate: true }), null);
  assert.equal(await refusedTarget('ftp://93.184.216.34/', { allowPrivate: false }), 'only http and https URLs are allowed');

  // The lookup a connection uses: refused, in both callback forms.
  const lookup = guardedLookup(resolve);
  const one = await new Promise<unknown>((r) => lookup('mixed.test', {}, (err) => r(err)));
  assert.match(String((one as Error)?.message), /^refused: /);
  const all = await new Promise<unknown>((r) => lookup('public.test', { all: true }, (err, addresses) => r(err ?? addresses)));
  assert.deepEqual(all, dns['public.test']);
  const single = await new Promise<unknown[]>((r) => lookup('public.test', { family: 4 }, (err, address, family) => r([err, address, family])));
  assert.deepEqual(single, [null, '93.184.216.34', 4]);
});

/** Spellings of this machine and of local networks that name no IP literal: refused by name. */
const LOCAL_NAMES = [
  'localhost', 'localhost.', 'localhost..', 'LOCALHOST', 'LocalHost.', 'foo.localhost', 'a.b.LOCALHOST.', 'ｌｏｃａｌｈｏｓｔ', 'local\u00adhost',
  'printer.local', 'printer.local.', 'db.internal', 'router.home.arpa', 'box.localdomain', 'localdomain', 'ip6-localhost', 'ip6-loopback.',
];

test('refusedHost: one pure decision on the host as spelled, before any DNS', () => {
  for (const h of [...LOOPBACK, ...PRIVATE]) assert.match(refusedHost(h) ?? '', /^the private or reserved address /, h);
  for (const h of ['127.1', '0x7f.1', '2130706433', '0177.0.0.1', '127.0.0.1.', '[::ffff:127.0.0.1]', '::ffff:127.0.0.1', '0:0:0:0:0:0:0:1', 'fe80::1%eth0']) {
    assert.match(refusedHost(h) ?? '', /^the private or reserved address /, h);
  }
  assert.equal(refusedHost('0x7f.1'), 'the private or reserved address 127.0.0.1');
  assert.equal(refusedHost('[0:0:0:0:0:0:0:1]'), 'the private or reserved address ::1');
  for (const h of LOCAL_NAMES) assert.equal(refusedHost(h), 'a local name, always a private or reserved address', h);
  for (const h of PUBLIC) assert.equal(refusedHost(h), null, h);
  // Names that merely contain a local word are names like any other, judged by what they resolve to.
  for (const h of ['example.com', 'example.com.', 'notlocalhost.com', 'localhost.example.com', 'local.example', 'internal.test', 'my-localhost']) assert.equal(refusedHost(h), null, h);
  // Not `xn--a` (an invalid punycode label): Node 20's URL parser refuses it and Node 24's keeps it;
  // either way no DNS answers it, so the connect-time guard decides.
  for (const h of ['', '.', '..', 'a b']) assert.equal(refusedHost(h), 'not a valid host', JSON.stringify(h));
  assert.equal(canonicalHost('0x7F.1'), '127.0.0.1');
  assert.equal(canonicalHost('[::FFFF:7F00:1]'), '::ffff:7f00:1');
  assert.equal(canonicalHost('Example.COM.'), 'example.com.');
});

test('a local name is refused at save time and at connect time, whatever its spelling, without a DNS look-up', async () => {
  let asked = 0;
  const resolve: Resolve = async () => {
    asked += 1;
    return [{ address: '93.184.216.34', family: 4 }];
  };
  for (const h of LOCAL_NAMES.filter((n) => !/[^\x21-\x7e]/.test(n))) {
    assert.match((await refusedTarget(`http://${h}:9/`, { allowPrivate: false, resolve })) ?? '', /^refused: .* is a local name, always a private or reserved address/, h);
    const err = await new Promise<unknown>((r) => guardedLookup(resolve)(h, {}, (e) => r(e)));
    assert.match(String((err as Error)?.message), /^refused: /, h);
  }
  assert.equal(asked, 0, 'no name was looked up');
  assert.equal(await refusedTarget('http://localhost.:9/', { allowPrivate: true, resolve }), null, 'WEBHOOK_ALLOW_PRIVATE=true allows them');
});
