import { test } from 'node:test';
import assert from 'node:assert/strict';
import { variantIndex } from './variant-of.js';

test('an event belongs to the variant whose URL begins its recorded URL', () => {
  const variants = ['https://shop.example/a', 'https://shop.example/a?v=2', 'https://other.example/'];
  assert.equal(variantIndex('https://shop.example/a', variants), 0);
  assert.equal(variantIndex('https://shop.example/a?dub_id=abc', variants), 0);
  assert.equal(variantIndex('https://shop.example/a?v=2&dub_id=abc', variants), 1, 'the longest match wins');
  assert.equal(variantIndex('https://other.example/?utm_source=x', variants), 2);
  assert.equal(variantIndex('https://shop.example/ab', variants), -1, 'a longer path is another page');
  assert.equal(variantIndex('https://elsewhere.example/', variants), -1);
  assert.equal(variantIndex(null, variants), -1);
});

test('the percent-encoded form the redirect writes matches the stored variant', () => {
  assert.equal(variantIndex('https://shop.example/caf%C3%A9?dub_id=1', ['https://shop.example/café', 'https://shop.example/tea']), 0);
  // The origin alone is recorded with the slash the URL parser adds.
  assert.equal(variantIndex('https://b.example/?dub_id=1', ['https://a.example', 'https://b.example']), 1);
});
