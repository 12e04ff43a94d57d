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
import { insertLink } from '../../redirect/testing.js';
import type { EventStoreFixture } from '../contract.js';
import { openColumnEventStore } from '../column/store.js';
import type { ClickHouseExecutor } from './executor.js';
import { openClickHouseEngine } from './engine.js';

export async function clickHouseFixture(executor: ClickHouseExecutor): Promise<EventStoreFixture<Kysely<Database>>> {
  const t = await createTestApp();
  const db = t.database.db;
  const store = await openColumnEventStore({ database: t.database, engine: await openClickHouseEngine({ executor }) });
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
}
