/**
 * Storage access for folders: Kysely queries only, every one filtered by the workspace.
 */
import { sql, type Insertable, type Kysely, type Updateable } from 'kysely';
import type { Database, FoldersTable } from '../db/tables.js';
import type { Dialect } from '../db/dialect.js';
import { lockWorkspaceRow } from '../workspaces/quota.js';
import type { FolderRow } from './schema.js';

function folderQueries(db: Kysely<Database>, dialect: Dialect) {
  return {
    /** Holds the workspace row until commit, so the quota count below stays true (quota.ts). */
    lockWorkspace: (workspaceId: string) => lockWorkspaceRow(db, workspaceId),

    async count(workspaceId: string): Promise<number> {
      const r = await db
        .selectFrom('folders')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },

    async findById(workspaceId: string, id: string): Promise<FolderRow | undefined> {
      return db.selectFrom('folders').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
    },

    /** By lower-cased name: folder names are unique per workspace without regard to case. */
    async findByNameKey(workspaceId: string, nameKey: string): Promise<FolderRow | undefined> {
      return db
        .selectFrom('folders')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('name_key', '=', nameKey)
        .executeTakeFirst();
    },

    async list(workspaceId: string, o: { search?: string; limit: number; offset: number }): Promise<FolderRow[]> {
      let q = db.selectFrom('folders').selectAll().where('workspace_id', '=', workspaceId);
      if (o.search) q = q.where(dialect.containsInsensitive(sql.ref<string>('name'), o.search));
      return q.orderBy('created_at', 'asc').orderBy('id', 'asc').limit(o.limit).offset(o.offset).execute();
    },

    async insert(row: Insertable<FoldersTable>): Promise<void> {
      await db.insertInto('folders').values(row).execute();
    },

    async update(workspaceId: string, id: string, patch: Updateable<FoldersTable>): Promise<void> {
      await db.updateTable('folders').set(patch).where('workspace_id', '=', workspaceId).where('id', '=', id).execute();
    },

    /** Moves the folder's links to "unsorted" (folder_id null) and deletes it; false when it was not there. */
    async delete(workspaceId: string, id: string, now: number): Promise<boolean> {
      await db
        .updateTable('links')
        .set({ folder_id: null, updated_at: now })
        .where('workspace_id', '=', workspaceId)
        .where('folder_id', '=', id)
        .execute();
      const r = await db.deleteFrom('folders').where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },

    /** Keeps `workspaces.folders_usage` equal to the number of folders (it is reported by GET /workspaces). */
    async syncUsage(workspaceId: string): Promise<void> {
      await db
        .updateTable('workspaces')
        .set((eb) => ({
          folders_usage: eb.selectFrom('folders').select((f) => f.fn.countAll<number>().as('n')).where('workspace_id', '=', workspaceId),
        }))
        .where('id', '=', workspaceId)
        .execute();
    },
  };
}

/** Folder queries; `transaction` runs several of them atomically. */
export type FolderStore = ReturnType<typeof folderQueries> & {
  transaction<T>(fn: (tx: ReturnType<typeof folderQueries>, trx: Kysely<Database>) => Promise<T>): Promise<T>;
};

export function createFolderStore(db: Kysely<Database>, dialect: Dialect): FolderStore {
  return {
    ...folderQueries(db, dialect),
    transaction: (fn) => db.transaction().execute((trx) => fn(folderQueries(trx, dialect), trx)),
  };
}
