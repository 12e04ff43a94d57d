import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jsonDepthExceeds, jsonHasNul } from './input-guards.js';

test('depth counts arrays and objects, not brackets inside strings', () => {
  assert.equal(jsonDepthExceeds('{"a":[[1]]}', 3), false);
  assert.equal(jsonDepthExceeds('{"a":[[1]]}', 2), true);
  assert.equal(jsonDepthExceeds('{"a":"[[[[[[[["}', 1), false, 'brackets in a string do not nest');
  assert.equal(jsonDepthExceeds('{"a":"\\"[[[["}', 1), false, 'an escaped quote does not end the string');
  assert.equal(jsonDepthExceeds('[{},{},{},{}]', 2), false, 'siblings do not add up');
  assert.equal(jsonDepthExceeds('[[[', 2), true, 'a truncated text is measured as far as it goes');
  assert.equal(jsonDepthExceeds('1', 0), false);
});

test('an escaped NUL is found; an escaped backslash followed by u0000 is not a NUL', () => {
  assert.equal(jsonHasNul(JSON.stringify({ a: 'x\u0000y' })), true);
  assert.equal(jsonHasNul(JSON.stringify({ ['k\u0000']: 1 })), true, 'in a key');
  assert.equal(jsonHasNul(JSON.stringify({ a: '\\u0000' })), false, 'a literal backslash, then u0000');
  assert.equal(jsonHasNul(JSON.stringify({ a: '\\\u0000' })), true, 'a literal backslash, then a NUL');
  assert.equal(jsonHasNul('{"a":"plain"}'), false);
});
