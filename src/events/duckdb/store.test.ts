/**
 * The column event store on DuckDB (in memory), served over the port as the app serves it,
 * passes the event log contract (../contract.ts),
 * with its metadata database the engine under test: SQLite by default, PostgreSQL when
 * DATABASE_URL is a postgres:// URL.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import { createTestApp } from '../../test-support/harness.js';
import { describeEventStoreContract } from '../contract.js';
import { servedLogFixture } from '../contract-fixture.js';
import { openDuckDbEngine } from './duckdb-engine.js';

describeEventStoreContract<Kysely<Database>>('column store on DuckDB', async () => {
  const t = await createTestApp();
  return servedLogFixture(t, { eventsUrl: 'duckdb', engine: await openDuckDbEngine({ path: ':memory:' }) });
});
