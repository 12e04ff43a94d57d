import { test } from 'node:test';
import assert from 'node:assert/strict';
import { COUNTRIES, countryCodeOf, countryFlag, countryLabel, countryName, isCountryCode } from './countries.js';

test('the list is ISO 3166-1: every assigned alpha-2 code once, named', () => {
  assert.ok(COUNTRIES.length >= 249 && COUNTRIES.length < 260, String(COUNTRIES.length));
  assert.equal(new Set(COUNTRIES.map((c) => c.code)).size, COUNTRIES.length);
  for (const c of COUNTRIES) {
    assert.match(c.code, /^[A-Z]{2}$/);
    assert.ok(c.name && c.name !== c.code, `${c.code} has a name`);
  }
  for (const code of ['DE', 'US', 'GB', 'FR', 'JP', 'BR', 'ZA', 'AX', 'CW']) assert.ok(isCountryCode(code), code);
  // Not ISO 3166-1 countries, though some look like one: the EU, the UK's common alias, unassigned codes.
  for (const code of ['EU', 'UK', 'XX', 'ZZ', 'de', 'Germany', '']) assert.equal(isCountryCode(code), false, code);
});

test('a code, an alpha-3 code or a name in any case gives the alpha-2 code; anything else nothing', () => {
  assert.equal(countryCodeOf('Germany'), 'DE');
  assert.equal(countryCodeOf('  germany '), 'DE');
  assert.equal(countryCodeOf('de'), 'DE');
  assert.equal(countryCodeOf('DEU'), 'DE');
  assert.equal(countryCodeOf('United States'), 'US');
  assert.equal(countryCodeOf('United Kingdom'), 'GB');
  assert.equal(countryCodeOf('Germny'), undefined);
  assert.equal(countryCodeOf('UK'), undefined);
  assert.equal(countryCodeOf(''), undefined);
});

test('names and flags for display; unknown values shown as they are', () => {
  assert.equal(countryName('DE'), 'Germany');
  assert.equal(countryName('us'), 'United States');
  assert.equal(countryName('ZZ'), 'ZZ');
  assert.equal(countryFlag('DE'), '\u{1F1E9}\u{1F1EA}');
  assert.equal(countryFlag('ZZ'), '');
  assert.equal(countryLabel('FR'), '\u{1F1EB}\u{1F1F7} France');
  assert.equal(countryLabel('<x>'), '<x>');
});
