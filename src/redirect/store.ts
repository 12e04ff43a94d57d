/**
 * Storage access of the redirect: the link and domain lookups behind the cache, the counter
 * bumps of a click flush, and the click lookup for conversions. Kysely queries only.
 */
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { Database, DomainsTable, LinksTable, EventsTable } from '../db/tables.js';

export type LinkWithWorkspace = Selectable<LinksTable> & { conversion_enabled: number };
export type DomainRow = Selectable<DomainsTable>;

/** Clicks of one link in a flush. */
export interface LinkBump {
  id: string;
  clicks: number;
  lastClicked: number;
}

/** Clicks of one workspace in a flush. */
export interface WorkspaceBump {
  id: string;
  clicks: number;
}

/** Rows per multi-row UPDATE: 3 bound values each, far below both engines' limits. */
const BUMP_CHUNK = 1000;

export function createRedirectStore(db: Kysely<Database>) {
  return {
    /**
     * The link at `key` (lower-cased) on the first of `domains` that has one, with its workspace's
     * conversion flag. No workspace filter: a visitor names a link by domain and key alone, and
     * (domain, key_lower) is unique across the service.
     */
    async findLink(domains: readonly string[], keyLower: string): Promise<LinkWithWorkspace | undefined> {
      const rows = await db
        .selectFrom('links')
        .innerJoin('workspaces', 'workspaces.id', 'links.workspace_id')
        .selectAll('links')
        .select('workspaces.conversion_enabled')
        .where('links.domain', 'in', domains)
        .where('links.key_lower', '=', keyLower)
        .execute();
      for (const d of domains) {
        const row = rows.find((r) => r.domain === d);
        if (row) return row;
      }
      return undefined;
    },

    /** The domain row for the first of `slugs` that exists. No workspace filter: slugs are unique service-wide. */
    async findDomain(slugs: readonly string[]): Promise<DomainRow | undefined> {
      const rows = await db.selectFrom('domains').selectAll().where('slug', 'in', slugs).execute();
      for (const s of slugs) {
        const row = rows.find((r) => r.slug === s);
        if (row) return row;
      }
      return undefined;
    },

    /**
     * `links.clicks += n`, `last_clicked = max(last_clicked, t)` and `workspaces.usage += n`, one
     * statement per chunk (UPDATE … FROM VALUES runs on SQLite ≥ 3.33 and PostgreSQL alike), so a
     * flush touching 2,000 links costs two statements, not 2,000.
     */
    async bumpCounters(trx: Transaction<Database>, links: readonly LinkBump[], workspaces: readonly WorkspaceBump[]): Promise<void> {
      for (let i = 0; i < links.length; i += BUMP_CHUNK) {
        const values = links.slice(i, i + BUMP_CHUNK).map((l) => sql`(${l.id}, cast(${l.clicks} as bigint), cast(${l.lastClicked} as bigint))`);
        await sql`update links set
            clicks = links.clicks + v.column2,
            last_clicked = case when links.last_clicked is null or links.last_clicked < v.column3 then v.column3 else links.last_clicked end
          from (values ${sql.join(values)}) as v
          where links.id = v.column1`.execute(trx);
      }
      for (let i = 0; i < workspaces.length; i += BUMP_CHUNK) {
        const values = workspaces.slice(i, i + BUMP_CHUNK).map((w) => sql`(${w.id}, cast(${w.clicks} as bigint))`);
        await sql`update workspaces set usage = workspaces.usage + v.column2
          from (values ${sql.join(values)}) as v
          where workspaces.id = v.column1`.execute(trx);
      }
    },

    /**
     * Which of these click ids are already stored. No workspace filter: click ids are random and
     * unique service-wide; this only tells a retried flush what an earlier attempt committed.
     */
    async existingClickIds(clickIds: readonly string[]): Promise<string[]> {
      const out: string[] = [];
      for (let i = 0; i < clickIds.length; i += BUMP_CHUNK) {
        const rows = await db
          .selectFrom('events')
          .select('click_id')
          .where('kind', '=', 'click')
          .where('click_id', 'in', clickIds.slice(i, i + BUMP_CHUNK))
          .execute();
        for (const r of rows) out.push(r.click_id);
      }
      return out;
    },

    /** The click event with this id in the workspace. */
    async findClick(workspaceId: string, clickId: string): Promise<Selectable<EventsTable> | undefined> {
      return db
        .selectFrom('events')
        .selectAll()
        .where('click_id', '=', clickId)
        .where('kind', '=', 'click')
        .where('workspace_id', '=', workspaceId)
        .limit(1)
        .executeTakeFirst();
    },
  };
}

export type RedirectStore = ReturnType<typeof createRedirectStore>;
