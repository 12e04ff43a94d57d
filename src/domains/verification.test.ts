import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkDomainDns, isPointedAtTarget, type DnsResolver } from './verification.js';

const none = { cnames: [], addresses: [] };

test('decision: a CNAME at the target verifies, in any case and with a trailing dot', () => {
  const v = isPointedAtTarget({ cnames: ['Cname.Waymark.Example.'], addresses: ['9.9.9.9'] }, 'cname.waymark.example', none);
  assert.equal(v.verified, true);
  assert.match(v.reason, /CNAME points at cname\.waymark\.example/);
});

test('decision: addresses must all be among the target\'s', () => {
  const target = { cnames: [], addresses: ['203.0.113.10', '203.0.113.11', '2001:db8::1'] };
  assert.equal(isPointedAtTarget({ cnames: [], addresses: ['203.0.113.10'] }, 't.example', target).verified, true);
  assert.equal(isPointedAtTarget({ cnames: [], addresses: ['203.0.113.11', '2001:DB8::1'] }, 't.example', target).verified, true);
  const mixed = isPointedAtTarget({ cnames: [], addresses: ['203.0.113.10', '198.51.100.7'] }, 't.example', target);
  assert.equal(mixed.verified, false);
  assert.match(mixed.reason, /are not those of t\.example/);
  // A target without addresses cannot be matched by addresses.
  assert.equal(isPointedAtTarget({ cnames: [], addresses: ['203.0.113.10'] }, 't.example', none).verified, false);
});

test('decision: a CNAME elsewhere or no records is not verified, with a reason', () => {
  const elsewhere = isPointedAtTarget({ cnames: ['other.host'], addresses: [] }, 't.example', none);
  assert.equal(elsewhere.verified, false);
  assert.match(elsewhere.reason, /CNAME points at other\.host, not at t\.example/);
  const nothing = isPointedAtTarget(none, 't.example', none);
  assert.equal(nothing.verified, false);
  assert.match(nothing.reason, /No CNAME, A or AAAA record/);
});

/** A resolver answering from a table; a missing entry fails like ENODATA. */
function fakeResolver(table: Record<string, { cname?: string[]; a?: string[]; aaaa?: string[] }>): DnsResolver & { calls: string[] } {
  const calls: string[] = [];
  const answer = (host: string, kind: 'cname' | 'a' | 'aaaa') => {
    calls.push(`${kind} ${host}`);
    const v = table[host]?.[kind];
    return v ? Promise.resolve(v) : Promise.reject(Object.assign(new Error('queryA ENODATA'), { code: 'ENODATA' }));
  };
  return {
    calls,
    resolveCname: (h) => answer(h, 'cname'),
    resolve4: (h) => answer(h, 'a'),
    resolve6: (h) => answer(h, 'aaaa'),
  };
}

test('checkDomainDns gathers CNAME, A and AAAA of the domain and the target', async () => {
  const resolver = fakeResolver({
    'go.acme.com': { cname: ['edge.waymark.example'], a: ['203.0.113.10'] },
    'apex.acme.com': { a: ['203.0.113.10'], aaaa: ['2001:db8::1'] },
    'edge.waymark.example': { a: ['203.0.113.10'], aaaa: ['2001:db8::1'] },
    'wrong.acme.com': { a: ['192.0.2.1'] },
  });
  assert.equal((await checkDomainDns('go.acme.com', 'edge.waymark.example', resolver)).verified, true);
  assert.equal((await checkDomainDns('apex.acme.com', 'edge.waymark.example', resolver)).verified, true);
  assert.equal((await checkDomainDns('wrong.acme.com', 'edge.waymark.example', resolver)).verified, false);
  assert.equal((await checkDomainDns('missing.acme.com', 'edge.waymark.example', resolver)).verified, false);
  assert.ok(resolver.calls.includes('aaaa apex.acme.com'));
});

test('checkDomainDns accepts an IP address as the target', async () => {
  const resolver = fakeResolver({ 'apex.acme.com': { a: ['203.0.113.10'] } });
  assert.equal((await checkDomainDns('apex.acme.com', '203.0.113.10', resolver)).verified, true);
  assert.equal((await checkDomainDns('apex.acme.com', '203.0.113.99', resolver)).verified, false);
  assert.ok(!resolver.calls.some((c) => c.endsWith('203.0.113.10')), 'an IP target is not looked up');
});
