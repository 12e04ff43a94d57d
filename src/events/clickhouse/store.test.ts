/**
 * The column store on ClickHouse passes the event store contract (../contract.ts), run on real
 * ClickHouse SQL in-process through chdb (ClickHouse 26.7), with its metadata database the engine
 * under test: SQLite by default, PostgreSQL when DATABASE_URL is a postgres:// URL.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import { createTestApp } from '../../test-support/harness.js';
import { insertLink } from '../../redirect/testing.js';
import { describeEventStoreContract } from '../contract.js';
import { openColumnEventStore } from '../column/store.js';
import { openChdbExecutor } from './chdb-executor.js';
import { openClickHouseEngine } from './engine.js';

describeEventStoreContract<Kysely<Database>>('column store on ClickHouse (chdb)', async () => {
  const t = await createTestApp();
  const db = t.database.db;
  const store = await openColumnEventStore({ database: t.database, engine: await openClickHouseEngine({ executor: await openChdbExecutor() }) });
  return {
    store,
    addWorkspace: async () => (await t.addWorkspace()).workspaceId,
    addLink: async (workspaceId, link) => {
      await insertLink(db, workspaceId, {
        id: link.id,
        domain: link.domain,
        key: link.key,
        url: 'https://example.com/landing',
        folder_id: link.folderId ?? null,
        disabled_at: link.disabled ? Date.now() : null,
      });
    },
    deleteLink: async (workspaceId, linkId) => {
      await db.deleteFrom('links').where('workspace_id', '=', workspaceId).where('id', '=', linkId).execute();
    },
    transaction: (fn) => db.transaction().execute((trx) => fn(trx)),
    // Appends joined to a transaction reach the column store after the commit.
    settle: async () => void (await store.catchUp()),
    close: async () => {
      await store.close();
      await t.close();
    },
  };
});
