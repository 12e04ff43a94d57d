import { test } from 'node:test';
import assert from 'node:assert/strict';
import { safeNext } from './kit.js';

test('after login, only addresses inside the dashboard are followed', () => {
  assert.equal(safeNext('/dashboard/w/acme/links?after=link_1'), '/dashboard/w/acme/links?after=link_1');
  assert.equal(safeNext('/dashboard'), '/dashboard');
  for (const bad of ['//evil.example/dashboard', 'https://evil.example/dashboard', '/dashboardx', '/dashboard/\\evil', '/dashboard/a\r\nx: y', '/docs', undefined, 42]) {
    assert.equal(safeNext(bad), '/dashboard', String(bad));
  }
});
