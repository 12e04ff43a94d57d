/**
 * The SQL event store passes the event store contract (../contract.ts) on the engine under test:
 * SQLite by default, PostgreSQL when DATABASE_URL is a postgres:// URL.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import { createTestApp } from '../../test-support/harness.js';
import { describeEventStoreContract } from '../contract.js';
import { appFixture } from '../contract-fixture.js';

describeEventStoreContract<Kysely<Database>>('SQL', async () => {
  const t = await createTestApp();
  return appFixture(t, t.ctx.events);
});
