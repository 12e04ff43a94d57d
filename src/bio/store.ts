/**
 * Storage of bio pages: Kysely only. Reads by the dashboard are filtered by the workspace; the
 * public page reads by host (its domain) and joins links on the page's own workspace, so another
 * workspace's link is never listed even if its id were stored.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.js';
import type { BioPageRow } from './schema.js';

/** A link as a bio page shows it. */
export interface BioLinkRow {
  id: string;
  short_link: string;
  url: string;
  title: string | null;
  image: string | null;
  position: number;
}

export function createBioStore(db: Kysely<Database>) {
  const linkIdsOf = async (pageId: string): Promise<string[]> =>
    (await db.selectFrom('bio_page_links').select('link_id').where('page_id', '=', pageId).orderBy('position').execute()).map((r) => r.link_id);

  return {
    linkIdsOf,

    list(workspaceId: string): Promise<BioPageRow[]> {
      return db.selectFrom('bio_pages').selectAll().where('workspace_id', '=', workspaceId).orderBy('handle_key').orderBy('id').limit(100).execute();
    },

    findById(workspaceId: string, id: string): Promise<BioPageRow | undefined> {
      return db.selectFrom('bio_pages').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
    },

    /** The page at `/@handle` on one of these hosts (a Host with and without its port). */
    findByHandle(hosts: string[], handleKey: string): Promise<BioPageRow | undefined> {
      return db.selectFrom('bio_pages').selectAll().where('domain', 'in', hosts).where('handle_key', '=', handleKey).executeTakeFirst();
    },

    findRoot(hosts: string[]): Promise<BioPageRow | undefined> {
      return db.selectFrom('bio_pages').selectAll().where('root_domain', 'in', hosts).executeTakeFirst();
    },

    /** The page's links in order, only those of the page's workspace and not archived. */
    pageLinks(workspaceId: string, pageId: string): Promise<BioLinkRow[]> {
      return db
        .selectFrom('bio_page_links as b')
        .innerJoin('links as l', 'l.id', 'b.link_id')
        .select(['l.id', 'l.short_link', 'l.url', 'l.title', 'l.image', 'b.position'])
        .where('b.page_id', '=', pageId)
        .where('l.workspace_id', '=', workspaceId)
        .where('l.archived', '=', 0)
        .orderBy('b.position')
        .execute();
    },

    /** Which of `ids` are links of the workspace. */
    async ownedLinkIds(workspaceId: string, ids: string[]): Promise<Set<string>> {
      if (ids.length === 0) return new Set();
      const rows = await db.selectFrom('links').select('id').where('workspace_id', '=', workspaceId).where('id', 'in', ids).execute();
      return new Set(rows.map((r) => r.id));
    },

    /** The workspace's links the editor offers, newest first. */
    workspaceLinks(workspaceId: string, limit: number): Promise<Omit<BioLinkRow, 'position'>[]> {
      return db.selectFrom('links').select(['id', 'short_link', 'url', 'title', 'image']).where('workspace_id', '=', workspaceId).where('archived', '=', 0).orderBy('created_at', 'desc').orderBy('id').limit(limit).execute();
    },

    /** The workspace's own domains (slugs). */
    async domainsOf(workspaceId: string): Promise<string[]> {
      const rows = await db.selectFrom('domains').select('slug').where('workspace_id', '=', workspaceId).where('archived', '=', 0).orderBy('slug').execute();
      return rows.map((r) => r.slug);
    },

    /** Inserts or replaces the page and its links in one transaction, with `also` (its audit entry) in it. */
    save(row: BioPageRow, linkIds: string[], isNew: boolean, also?: (trx: Kysely<Database>) => Promise<void>): Promise<void> {
      return db.transaction().execute(async (trx) => {
        if (isNew) await trx.insertInto('bio_pages').values(row).execute();
        else {
          const { id, workspace_id, created_at, views, ...rest } = row;
          await trx.updateTable('bio_pages').set(rest).where('id', '=', id).where('workspace_id', '=', workspace_id).execute();
        }
        await trx.deleteFrom('bio_page_links').where('page_id', '=', row.id).execute();
        if (linkIds.length) await trx.insertInto('bio_page_links').values(linkIds.map((link_id, position) => ({ page_id: row.id, link_id, position }))).execute();
        await also?.(trx);
      });
    },

    delete(workspaceId: string, id: string, also?: (trx: Kysely<Database>) => Promise<void>): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const r = await trx.deleteFrom('bio_pages').where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
        if (Number(r.numDeletedRows) === 0) return false;
        await trx.deleteFrom('bio_page_links').where('page_id', '=', id).execute();
        await also?.(trx);
        return true;
      });
    },

    /** Adds counted views: one UPDATE a page. */
    async addViews(counts: Map<string, number>): Promise<void> {
      for (const [id, n] of counts) await db.updateTable('bio_pages').set((eb) => ({ views: eb('views', '+', n) })).where('id', '=', id).execute();
    },
  };
}

export type BioStore = ReturnType<typeof createBioStore>;
