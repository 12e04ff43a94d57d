/**
 * Storage access of the redirect: the link and domain lookups behind the cache. Kysely queries
 * only. (Clicks are written through the event store, src/events/; link counters by events/counters.ts.)
 */
import { CompiledQuery, type Kysely, type Selectable } from 'kysely';
import type { Database, DomainsTable, LinksTable } from '../db/tables.js';
import { sqlText, type SqlTexts } from '../db/sql-texts.js';

/**
 * A link row with its workspace's conversion flag and what its completed A/B test settled on
 * (`ab_test_settings`, absent when the link has no row there).
 */
export type LinkWithWorkspace = Selectable<LinksTable> & {
  conversion_enabled: number;
  test_route?: string | null;
  test_route_url?: string | null;
  test_decided_for?: number | null;
};
export type DomainRow = Selectable<DomainsTable>;

export function createRedirectStore(db: Kysely<Database>) {
  // Compiled SQL texts of the link lookup by domain count (one store per connection, so per engine).
  const texts: SqlTexts = new Map();
  return {
    /**
     * The link at `key` (lower-cased) on the first of `domains` that has one, with its workspace's
     * conversion flag. No workspace filter: a visitor names a link by domain and key alone, and
     * (domain, key_lower) is unique across the service.
     */
    async findLink(domains: readonly string[], keyLower: string): Promise<LinkWithWorkspace | undefined> {
      // Every cache miss and refresh of the redirect runs this: its text is built once per
      // number of domains (one or two) instead of per call (~20 µs of the lookup's ~45).
      const text = sqlText(texts, `findLink:${domains.length}`, () =>
        db
          .selectFrom('links')
          .innerJoin('workspaces', 'workspaces.id', 'links.workspace_id')
          .leftJoin('ab_test_settings', 'ab_test_settings.link_id', 'links.id')
          .selectAll('links')
          .select(['workspaces.conversion_enabled', 'ab_test_settings.route as test_route', 'ab_test_settings.route_url as test_route_url', 'ab_test_settings.decided_for as test_decided_for'])
          .where('links.domain', 'in', domains)
          .where('links.key_lower', '=', keyLower)
          .compile().sql,
      );
      const { rows } = await db.executeQuery<LinkWithWorkspace>(CompiledQuery.raw(text, [...domains, keyLower]));
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
  };
}

export type RedirectStore = ReturnType<typeof createRedirectStore>;
