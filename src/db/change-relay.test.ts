import { test } from 'node:test';
import assert from 'node:assert/strict';
import { notificationPayloads } from './change-relay.js';
import type { Change } from './change-bus.js';

test('the changes of one turn travel in as few notifications as fit under PostgreSQL\'s payload limit, in order', () => {
  const changes: Change[] = Array.from({ length: 1000 }, (_, i) => ({ type: 'link', domain: 'go.example.com', key: `key-${i}` }));
  changes.push({ type: 'domain', domain: 'other.example' });
  const payloads = notificationPayloads('abc', changes);
  assert.ok(payloads.length > 1 && payloads.length < 20, `${payloads.length} notifications`);
  for (const p of payloads) assert.ok(Buffer.byteLength(p) < 8000, `${Buffer.byteLength(p)} bytes`);
  const carried = payloads.flatMap((p) => {
    const parsed = JSON.parse(p) as { o: string; cs: Change[] };
    assert.equal(parsed.o, 'abc');
    return parsed.cs;
  });
  assert.deepEqual(carried, changes);
  assert.deepEqual(notificationPayloads('abc', []), []);
});
