/**
 * The contract fixture every event store test shares (tests only): a test app's metadata
 * database (SQLite, or PostgreSQL when DATABASE_URL says so) holding the workspaces and links a
 * store resolves link filters against, and its transactions.
 *
 * @example
 * describeEventStoreContract('SQL', async () => { const t = await createTestApp(); return appFixture(t, t.ctx.events); });
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.js';
import type { TestApp } from '../test-support/harness.js';
import { insertLink } from '../redirect/testing.js';
import type { EventStoreFixture } from './contract.js';
import type { EventStore } from './event-store.js';

export function appFixture(
  t: TestApp,
  store: EventStore<Kysely<Database>>,
  extra: { settle?: () => Promise<void>; close?: () => Promise<void> } = {},
): EventStoreFixture<Kysely<Database>> {
  const db = t.database.db;
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
    ...(extra.settle ? { settle: extra.settle } : {}),
    close: async () => {
      await extra.close?.();
      await t.close();
    },
  };
}
