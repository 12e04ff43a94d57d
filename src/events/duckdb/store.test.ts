/**
 * The column event store on DuckDB (in memory) passes the event store contract (../contract.ts),
 * with its metadata database the engine under test: SQLite by default, PostgreSQL when
 * DATABASE_URL is a postgres:// URL.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import { createTestApp } from '../../test-support/harness.js';
import { describeEventStoreContract } from '../contract.js';
import { appFixture } from '../contract-fixture.js';
import { openColumnEventStore } from '../column/store.js';
import { openDuckDbEngine } from './duckdb-engine.js';

describeEventStoreContract<Kysely<Database>>('column store on DuckDB', async () => {
  const t = await createTestApp();
  const store = await openColumnEventStore({ database: t.database, engine: await openDuckDbEngine({ path: ':memory:' }) });
  // Appends joined to a transaction reach the column store after the commit.
  return appFixture(t, store, { settle: async () => void (await store.catchUp()), close: () => store.close() });
});
