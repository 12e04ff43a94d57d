/**
 * The SQL event store, served over the port as the app serves it, passes the event log contract
 * (../contract.ts) on the engine under test:
 * SQLite by default, PostgreSQL when DATABASE_URL is a postgres:// URL.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import { createTestApp } from '../../test-support/harness.js';
import { describeEventStoreContract } from '../contract.js';
import { servedLogFixture } from '../contract-fixture.js';

describeEventStoreContract<Kysely<Database>>('SQL', async () => {
  return servedLogFixture(await createTestApp());
});
