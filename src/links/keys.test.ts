import { test } from 'node:test';
import assert from 'node:assert/strict';
import { domainToASCII } from 'node:url';
import { lookupKey, normaliseDomain, processKey, randomLinkKey, reservedKeyReason, RESERVED_FILE_KEYS } from './keys.js';
import { punycodeEncode, toAsciiLabels } from './punycode.js';
import { KEY_ALPHABET } from '../ids.js';

test('punycode matches the IDNA encoder for lower-case labels and keeps the case of ASCII letters', () => {
  for (const label of ['münchen', 'bücher', '日本語', 'ü', 'mañana', 'ab🔥cd']) {
    assert.equal(`xn--${punycodeEncode(label)}`, domainToASCII(label));
  }
  assert.equal(toAsciiLabels('🔥'), 'xn--4v8h');
  assert.equal(toAsciiLabels('Sale.münchen'), 'Sale.xn--mnchen-3ya');
  assert.equal(toAsciiLabels('München'), 'xn--Mnchen-3ya');
  assert.equal(toAsciiLabels('plain/Key-1'), 'plain/Key-1');
});

test('processKey: valid keys are normalised, case kept', () => {
  const cases: [string, boolean, string][] = [
    ['Summer-Sale', false, 'Summer-Sale'],
    ['/docs/intro/', false, 'docs/intro'],
    ['//a//', false, 'a'],
    ['🔥', false, 'xn--4v8h'],
    ['café', false, 'xn--caf-dma'],
    ['café', true, 'cafe'],
    ['v1.2_beta', false, 'v1.2_beta'],
    ['_root', false, '_root'],
  ];
  for (const [raw, onDefaultDomain, expected] of cases) {
    assert.deepEqual(processKey(raw, { onDefaultDomain }), { ok: true, key: expected }, raw);
  }
});

test('processKey: invalid keys say why', () => {
  for (const raw of ['has space', 'a?b', 'a#b', 'per%20cent', '_hidden', '.well-known/x', 'index.php', 'shell.PHP7', '///', 'quote"']) {
    const r = processKey(raw, { onDefaultDomain: false });
    assert.equal(r.ok, false, raw);
    if (!r.ok) assert.match(r.reason, /^Invalid key/);
  }
});

test('lookupKey is the case-insensitive, punycoded form used for uniqueness and redirects', () => {
  assert.equal(lookupKey('Summer-SALE'), 'summer-sale');
  assert.equal(lookupKey('summer-salE'), 'summer-sale', 'a capital at the end is found too');
  assert.equal(lookupKey('spring/sale-2026'), 'spring/sale-2026', 'a key in lookup form comes back as it is');
  assert.equal(lookupKey('🔥'), 'xn--4v8h');
  assert.equal(lookupKey('München'), 'xn--mnchen-3ya');
  assert.equal(lookupKey('xn--Mnchen-3ya'), lookupKey('münchen'));
});

test('reserved keys: file names everywhere (403), service words only on the default domain (409)', () => {
  for (const k of RESERVED_FILE_KEYS) assert.equal(reservedKeyReason(k.toUpperCase(), { onDefaultDomain: false })?.status, 'forbidden');
  assert.match(reservedKeyReason('favicon.ico', { onDefaultDomain: true })!.message, /favicon.ico is a reserved path/);
  for (const k of ['api', 'Docs', 'ADMIN', 'dashboard', 'login']) {
    assert.equal(reservedKeyReason(k, { onDefaultDomain: true })?.status, 'conflict', k);
    assert.equal(reservedKeyReason(k, { onDefaultDomain: false }), null, k);
  }
  assert.equal(reservedKeyReason('summer', { onDefaultDomain: true }), null);
});

test('random keys: alphabet, length and prefix', () => {
  const alphabet = new Set(KEY_ALPHABET);
  for (const length of [3, 7, 12, 190]) {
    const key = randomLinkKey(length);
    assert.equal(key.length, length);
    assert.ok([...key].every((c) => alphabet.has(c)));
  }
  assert.equal(randomLinkKey().length, 7);
  assert.match(randomLinkKey(5, '/c/'), /^c\/[0-9A-Za-z]{5}$/);
  assert.match(randomLinkKey(4, 'promo'), /^promo\/[0-9A-Za-z]{4}$/);
  const many = new Set(Array.from({ length: 200 }, () => randomLinkKey()));
  assert.equal(many.size, 200);
});

test('normaliseDomain: lower-case, punycode, optional port; protocols and paths refused', () => {
  assert.equal(normaliseDomain('Go.Example.COM'), 'go.example.com');
  assert.equal(normaliseDomain('go.example.com.'), 'go.example.com');
  assert.equal(normaliseDomain('wm.localhost:3999'), 'wm.localhost:3999');
  assert.equal(normaliseDomain('bücher.de'), 'xn--bcher-kva.de');
  for (const bad of ['https://go.example.com', 'go.example.com/x', 'a b.com', '', 'user@host.com', '-bad-.com', `${'a'.repeat(64)}.com`]) {
    assert.equal(normaliseDomain(bad), null, bad);
  }
});
