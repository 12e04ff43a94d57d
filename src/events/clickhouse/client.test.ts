/**
 * The server path: the same contract through `@clickhouse/client` (clientExecutor, what
 * `EVENTS_URL=clickhouse://…` uses), with chdb plugged in as the client's connection instead of
 * an HTTP server, so the client's parameter binding, JSONCompactEachRow inserts and settings are the
 * ones under test.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createClient } from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';
import { describeEventStoreContract } from '../contract.js';
import { clientExecutor, clientUrl } from './executor.js';
import { isClickHouseUrl } from '../store-kind.js';
import { clickHouseFixture } from './testing.js';

// chdb declares the hook's types from @clickhouse/client-common 1.23.0, the client bundles its own
// copy (1.23.1): the same shape under two names, hence the cast.
type ClientConnection = NonNullable<NonNullable<Parameters<typeof createClient>[0]>['connection']>;

describeEventStoreContract('column store on ClickHouse (@clickhouse/client over chdb)', async () =>
  clickHouseFixture(clientExecutor(createClient({ connection: createChdbConnection({ path: ':memory:' }) as unknown as ClientConnection }))),
);

describe('EVENTS_URL for a ClickHouse server', () => {
  test('clickhouse:// is HTTP on 8123, clickhouses:// HTTPS on 8443; user, password and database stay', () => {
    assert.equal(clientUrl('clickhouse://wm:s%40cret@ch.internal/waymark'), 'http://wm:s%40cret@ch.internal:8123/waymark');
    assert.equal(clientUrl('clickhouses://wm@ch.example.com/events'), 'https://wm@ch.example.com:8443/events');
    assert.equal(clientUrl('clickhouse://ch:9000/db'), 'http://ch:9000/db');
    assert.equal(clientUrl('https://ch.example.com:8443/db'), 'https://ch.example.com:8443/db');
  });

  test('only ClickHouse URLs select the ClickHouse engine', () => {
    for (const url of ['clickhouse://ch/db', 'clickhouses://ch/db', 'http://ch:8123', 'https://ch']) assert.ok(isClickHouseUrl(url), url);
    for (const url of ['sql', 'duckdb', 'duckdb:/srv/events.duckdb', 'postgres://pg/db', 'file:./x']) assert.ok(!isClickHouseUrl(url), url);
    assert.throws(() => clientUrl('postgres://pg/db'), /not a ClickHouse URL/);
  });
});
