/**
 * The contract fixture of the ClickHouse engine (tests only): a test app's metadata database
 * (SQLite, or PostgreSQL when DATABASE_URL says so) plus the engine on a given executor, served
 * as the log over the port (../contract-fixture.ts).
 *
 * @example
 * describeEventStoreContract('ClickHouse (chdb)', async () => clickHouseFixture(await openChdbExecutor()));
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import { createTestApp } from '../../test-support/harness.js';
import { servedLogFixture } from '../contract-fixture.js';
import type { EventStoreFixture } from '../contract.js';
import type { ClickHouseExecutor } from './executor.js';
import { openClickHouseEngine } from './clickhouse-engine.js';

export async function clickHouseFixture(executor: ClickHouseExecutor): Promise<EventStoreFixture<Kysely<Database>>> {
  const t = await createTestApp();
  return servedLogFixture(t, { eventsUrl: 'clickhouse://chdb', engine: await openClickHouseEngine({ executor }) });
}
