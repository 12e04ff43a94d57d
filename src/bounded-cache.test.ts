import { test } from 'node:test';
import assert from 'node:assert/strict';
import { boundedCache } from './bounded-cache.js';

test('holds at most its entries, dropping the least recently used', () => {
  const dropped: string[] = [];
  const cache = boundedCache<string, number>(3, { dispose: (_v, key) => dropped.push(key) });
  cache.set('a', 1).set('b', 2).set('c', 3);
  assert.equal(cache.get('a'), 1); // a is now the most recently used
  cache.set('d', 4);
  assert.equal(cache.size, 3);
  assert.equal(cache.has('b'), false);
  assert.deepEqual(dropped, ['b']);
  assert.deepEqual([...cache.keys()].sort(), ['a', 'c', 'd']);
});

test('a large bound allocates nothing up front', () => {
  const before = process.memoryUsage().arrayBuffers;
  const caches = Array.from({ length: 20 }, () => boundedCache<string, number>(1_000_000));
  // Preallocated, 20 caches of 1,000,000 slots would hold 160 MB of typed arrays.
  assert.ok(process.memoryUsage().arrayBuffers - before < 10 * 1024 * 1024);
  caches[0]!.set('k', 1);
  assert.equal(caches[0]!.get('k'), 1);
});
