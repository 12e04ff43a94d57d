import { test } from 'node:test';
import assert from 'node:assert/strict';
import { customerDisplayName, randomCustomerName } from './names.js';

test('random names are three capitalised words and vary', () => {
  assert.equal(randomCustomerName(() => 0), 'Big Red Caribou');
  const names = new Set(Array.from({ length: 50 }, () => randomCustomerName()));
  for (const n of names) assert.match(n, /^[A-Z][a-z]+ [A-Z][a-z]+ [A-Z][a-z]+$/);
  assert.ok(names.size > 10);
});

test('display name: given name, else email, else random', () => {
  assert.equal(customerDisplayName(' Ada ', 'a@example.com'), 'Ada');
  assert.equal(customerDisplayName('', 'a@example.com'), 'a@example.com');
  assert.equal(customerDisplayName(null, null).split(' ').length, 3);
});
