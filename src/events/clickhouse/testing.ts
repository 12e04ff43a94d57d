/**
 * The contract fixture of the ClickHouse engine (tests only): a test app's metadata database
 * (SQLite, or PostgreSQL when DATABASE_URL says so) plus the engine on a given executor.
 *
 * @example
 * describeEventStoreContract('ClickHouse (chdb)', async () => clickHouseFixture(await openChdbExecutor()));
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import { createTestApp } from '../../test-support/harness.js';
import { appFixture } from '../contract-fixture.js';
import type { EventStoreFixture } from '../contract.js';
import { openColumnEventStore } from '../column/store.js';
import type { ClickHouseExecutor } from './executor.js';
import { openClickHouseEngine } from './clickhouse-engine.js';

export async function clickHouseFixture(executor: ClickHouseExecutor): Promise<EventStoreFixture<Kysely<Database>>> {
  const t = await createTestApp();
  const store = await openColumnEventStore({ database: t.database, engine: await openClickHouseEngine({ executor }) });
  // Appends joined to a transaction reach the column store after the commit.
  return appFixture(t, store, { settle: async () => void (await store.catchUp()), close: () => store.close() });
}
