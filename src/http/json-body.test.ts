import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jsonDepthExceeds } from './json-body.js';

test('depth counts arrays and objects, not brackets inside strings', () => {
  assert.equal(jsonDepthExceeds('{"a":[[1]]}', 3), false);
  assert.equal(jsonDepthExceeds('{"a":[[1]]}', 2), true);
  assert.equal(jsonDepthExceeds('{"a":"[[[[[[[["}', 1), false, 'brackets in a string do not nest');
  assert.equal(jsonDepthExceeds('{"a":"\\"[[[["}', 1), false, 'an escaped quote does not end the string');
  assert.equal(jsonDepthExceeds('[{},{},{},{}]', 2), false, 'siblings do not add up');
  assert.equal(jsonDepthExceeds('[[[', 2), true, 'a truncated text is measured as far as it goes');
  assert.equal(jsonDepthExceeds('1', 0), false);
});
