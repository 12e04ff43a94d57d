/**
 * Storage access for tags: Kysely queries only, every one filtered by the workspace.
 */
import { sql, type Insertable, type Kysely, type Updateable } from 'kysely';
import type { Database, TagsTable } from '../db/tables.js';
import type { Dialect } from '../db/dialect.js';
import { lockWorkspaceRow } from '../workspaces/quota.js';
import type { TagRow } from './schema.js';

/** Filters, order and page of a tag list. */
export interface TagListOptions {
  sortBy: 'name' | 'createdAt';
  sortOrder: 'asc' | 'desc';
  search?: string;
  ids?: string[];
  limit: number;
  offset: number;
}

function tagQueries(db: Kysely<Database>, dialect: Dialect) {
  return {
    /** Holds the workspace row until commit, so the quota count below stays true (quota.ts). */
    lockWorkspace: (workspaceId: string) => lockWorkspaceRow(db, workspaceId),

    async count(workspaceId: string): Promise<number> {
      const r = await db
        .selectFrom('tags')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },

    async findById(workspaceId: string, id: string): Promise<TagRow | undefined> {
      return db.selectFrom('tags').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
    },

    /** By lower-cased name: names are unique per workspace without regard to case. */
    async findByNameKey(workspaceId: string, nameKey: string): Promise<TagRow | undefined> {
      return db
        .selectFrom('tags')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('name_key', '=', nameKey)
        .executeTakeFirst();
    },

    async findByIds(workspaceId: string, ids: readonly string[]): Promise<TagRow[]> {
      if (!ids.length) return [];
      return db.selectFrom('tags').selectAll().where('workspace_id', '=', workspaceId).where('id', 'in', [...ids]).execute();
    },

    async findByNameKeys(workspaceId: string, nameKeys: readonly string[]): Promise<TagRow[]> {
      if (!nameKeys.length) return [];
      return db
        .selectFrom('tags')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('name_key', 'in', [...nameKeys])
        .execute();
    },

    async list(workspaceId: string, o: TagListOptions): Promise<TagRow[]> {
      let q = db.selectFrom('tags').selectAll().where('workspace_id', '=', workspaceId);
      if (o.search) q = q.where(dialect.containsInsensitive(sql.ref<string>('name'), o.search));
      if (o.ids?.length) q = q.where('id', 'in', o.ids);
      // name_key sorts without regard to case (as the published MySQL collation does) and is indexed.
      const column = o.sortBy === 'name' ? 'name_key' : 'created_at';
      return q.orderBy(column, o.sortOrder).orderBy('id', o.sortOrder).limit(o.limit).offset(o.offset).execute();
    },

    async insert(row: Insertable<TagsTable>): Promise<void> {
      await db.insertInto('tags').values(row).execute();
    },

    async update(workspaceId: string, id: string, patch: Updateable<TagsTable>): Promise<void> {
      await db.updateTable('tags').set(patch).where('workspace_id', '=', workspaceId).where('id', '=', id).execute();
    },

    /** Deletes the tag and its link assignments; false when it was not there. */
    async delete(workspaceId: string, id: string): Promise<boolean> {
      await db.deleteFrom('link_tags').where('workspace_id', '=', workspaceId).where('tag_id', '=', id).execute();
      const r = await db.deleteFrom('tags').where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },
  };
}

/** Tag queries; `transaction` runs several of them atomically. */
export type TagStore = ReturnType<typeof tagQueries> & {
  transaction<T>(fn: (tx: ReturnType<typeof tagQueries>, trx: Kysely<Database>) => Promise<T>): Promise<T>;
};

export function createTagStore(db: Kysely<Database>, dialect: Dialect): TagStore {
  return {
    ...tagQueries(db, dialect),
    transaction: (fn) => db.transaction().execute((trx) => fn(tagQueries(trx, dialect), trx)),
  };
}
