/**
 * Storage access for domains and for the links that live under them: Kysely queries only.
 * Every query is filtered by the workspace, except the two marked service-wide.
 */
import { sql, type Insertable, type Kysely, type Updateable } from 'kysely';
import type { Database, DomainsTable } from '../db/tables.js';
import type { Dialect } from '../db/dialect.js';
import { lockWorkspaceRow } from '../workspaces/quota.js';
import type { DomainRow } from './schema.js';

function domainQueries(db: Kysely<Database>, dialect: Dialect) {
  return {
    /** Holds the workspace row until commit, so the quota count below stays true (quota.ts). */
    lockWorkspace: (workspaceId: string) => lockWorkspaceRow(db, workspaceId),

    /** Service-wide on purpose: a slug belongs to at most one workspace (409 for the others). */
    async findBySlugAnywhere(slug: string): Promise<DomainRow | undefined> {
      return db.selectFrom('domains').selectAll().where('slug', '=', slug).executeTakeFirst();
    },

    /** Service-wide on purpose: which workspace holds each of these slugs (an import's look-up of a batch). */
    async ownersOf(slugs: readonly string[]): Promise<Map<string, string>> {
      if (!slugs.length) return new Map();
      const rows = await db.selectFrom('domains').select(['slug', 'workspace_id']).where('slug', 'in', [...slugs]).execute();
      return new Map(rows.map((r) => [r.slug, r.workspace_id]));
    },

    async findBySlug(workspaceId: string, slug: string): Promise<DomainRow | undefined> {
      return db.selectFrom('domains').selectAll().where('workspace_id', '=', workspaceId).where('slug', '=', slug).executeTakeFirst();
    },

    async count(workspaceId: string): Promise<number> {
      const r = await db
        .selectFrom('domains')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },

    async findPrimary(workspaceId: string): Promise<DomainRow | undefined> {
      return db.selectFrom('domains').selectAll().where('workspace_id', '=', workspaceId).where('primary', '=', 1).executeTakeFirst();
    },

    async slugs(workspaceId: string): Promise<string[]> {
      const rows = await db.selectFrom('domains').select('slug').where('workspace_id', '=', workspaceId).orderBy('created_at').execute();
      return rows.map((r) => r.slug);
    },

    async list(workspaceId: string, o: { archived: boolean; search?: string; limit: number; offset: number }): Promise<DomainRow[]> {
      let q = db
        .selectFrom('domains')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('archived', '=', o.archived ? 1 : 0);
      if (o.search) q = q.where(dialect.containsInsensitive(sql.ref<string>('slug'), o.search));
      return q.orderBy('created_at', 'asc').orderBy('id', 'asc').limit(o.limit).offset(o.offset).execute();
    },

    async insert(row: Insertable<DomainsTable>): Promise<void> {
      await db.insertInto('domains').values(row).execute();
    },

    async update(workspaceId: string, id: string, patch: Updateable<DomainsTable>): Promise<void> {
      await db.updateTable('domains').set(patch).where('workspace_id', '=', workspaceId).where('id', '=', id).execute();
    },

    /** Clears `primary` on every other domain of the workspace: one primary domain per workspace. */
    async clearPrimary(workspaceId: string, exceptId: string, now: number): Promise<void> {
      await db
        .updateTable('domains')
        .set({ primary: 0, updated_at: now })
        .where('workspace_id', '=', workspaceId)
        .where('primary', '=', 1)
        .where('id', '!=', exceptId)
        .execute();
    },

    /** Service-wide on purpose: the operator's `waymark domains verify` acts on any workspace. */
    async setVerified(id: string, verified: boolean, now: number): Promise<void> {
      await db.updateTable('domains').set({ verified: verified ? 1 : 0, updated_at: now }).where('id', '=', id).execute();
    },

    /**
     * Moves the workspace's links from `oldSlug` to `newSlug` and rewrites their `short_link`:
     * `rootShortLink` (`https://new`) for the `_root` link, `rootShortLink/key` for the others,
     * the same spelling as `buildShortLink` (one statement, however many links).
     */
    async moveLinks(workspaceId: string, oldSlug: string, newSlug: string, rootShortLink: string, now: number): Promise<number> {
      const r = await db
        .updateTable('links')
        .set({
          domain: newSlug,
          short_link: sql<string>`cast(${rootShortLink} as text) || case when ${sql.ref('key')} = '_root' then '' else '/' || ${sql.ref('key')} end`,
          updated_at: now,
        })
        .where('workspace_id', '=', workspaceId)
        .where('domain', '=', oldSlug)
        .executeTakeFirst();
      return Number(r.numUpdatedRows);
    },

    /** Deletes the workspace's links under `slug` with their tag rows, and lowers `total_links`. */
    async deleteLinks(workspaceId: string, slug: string): Promise<number> {
      const linkIds = db.selectFrom('links').select('id').where('workspace_id', '=', workspaceId).where('domain', '=', slug);
      await db.deleteFrom('link_tags').where('workspace_id', '=', workspaceId).where('link_id', 'in', linkIds).execute();
      const r = await db.deleteFrom('links').where('workspace_id', '=', workspaceId).where('domain', '=', slug).executeTakeFirst();
      const n = Number(r.numDeletedRows);
      if (n > 0) {
        await db
          .updateTable('workspaces')
          .set({ total_links: sql<number>`case when total_links > ${n} then total_links - ${n} else 0 end` })
          .where('id', '=', workspaceId)
          .execute();
      }
      return n;
    },

    async delete(workspaceId: string, id: string): Promise<boolean> {
      const r = await db.deleteFrom('domains').where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },
  };
}

/** Domain queries; `transaction` runs several of them atomically. */
export type DomainStore = ReturnType<typeof domainQueries> & {
  transaction<T>(fn: (tx: ReturnType<typeof domainQueries>, trx: Kysely<Database>) => Promise<T>): Promise<T>;
};

export function createDomainStore(db: Kysely<Database>, dialect: Dialect): DomainStore {
  return {
    ...domainQueries(db, dialect),
    transaction: (fn) => db.transaction().execute((trx) => fn(domainQueries(trx, dialect), trx)),
  };
}
