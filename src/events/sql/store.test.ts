/**
 * The SQL event store passes the event store contract (../contract.ts) on the engine under test:
 * SQLite by default, PostgreSQL when DATABASE_URL is a postgres:// URL.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import { createTestApp } from '../../test-support/harness.js';
import { insertLink } from '../../redirect/testing.js';
import { describeEventStoreContract } from '../contract.js';

describeEventStoreContract<Kysely<Database>>('SQL', async () => {
  const t = await createTestApp();
  const db = t.database.db;
  return {
    store: t.ctx.events,
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
    close: () => t.close(),
  };
});
