import { test } from 'node:test';
import assert from 'node:assert/strict';
import { domainSlugProblem, normalizeDeepLinkFile, normalizeDomainSlug, reservedHostsOf } from './validation.js';

test('slugs are trimmed, lower-cased and punycoded', () => {
  assert.equal(normalizeDomainSlug('  Go.Example.COM '), 'go.example.com');
  assert.equal(normalizeDomainSlug('Bücher.de'), 'xn--bcher-kva.de');
  assert.equal(normalizeDomainSlug('☃.net'), 'xn--n3h.net');
});

test('slug shape: dotted labels, alphabetic TLD, no www., ≤ 190', () => {
  const ok = ['acme.com', 'go.acme.co.uk', 'a-b.example.io', 'xn--bcher-kva.de', '1.example.com', 'links.localhost'];
  for (const slug of ok) assert.equal(domainSlugProblem(slug), null, slug);
  const invalid = ['acme', 'acme.c', 'acme.123', '-acme.com', 'acme-.com', 'ac_me.com', 'acme.com/path', 'https://acme.com', 'acme..com', '.acme.com', 'acme.com.', 'ac me.com', ''];
  for (const slug of invalid) assert.equal(domainSlugProblem(slug), 'Invalid domain', slug);
  assert.equal(domainSlugProblem('www.acme.com'), 'Custom domain cannot start with www.');
  const label = 'a'.repeat(60);
  const long = `${label}.${label}.${label}.abcdefg.com`; // 194 characters, each label valid
  assert.ok(long.length > 190);
  assert.equal(domainSlugProblem(long), 'Invalid domain');
  assert.equal(domainSlugProblem(`${'b'.repeat(64)}.com`), 'Invalid domain'); // label over 63
});

test('the service\'s own hosts are reserved', () => {
  const reserved = reservedHostsOf({ shortDomain: 'Go.Waymark.example:8080', apiHosts: ['api.waymark.example', 'localhost'] });
  assert.deepEqual([...reserved].sort(), ['api.waymark.example', 'go.waymark.example', 'localhost']);
  assert.match(domainSlugProblem('go.waymark.example', reserved)!, /used by this service/);
  assert.equal(domainSlugProblem('other.example', reserved), null);
});

test('deep-link files must be JSON objects or arrays', () => {
  assert.equal(normalizeDeepLinkFile('[{"relation":["x"]}]'), '[{"relation":["x"]}]');
  assert.equal(normalizeDeepLinkFile('{"applinks":{}}'), '{"applinks":{}}');
  assert.equal(normalizeDeepLinkFile({ applinks: {} }), '{"applinks":{}}');
  for (const bad of ['not json', '"a string"', '42', 'null', '{']) assert.equal(normalizeDeepLinkFile(bad), null, bad);
});
