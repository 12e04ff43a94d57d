/**
 * Storage access of the redirect: the link and domain lookups behind the cache, the counter
 * bumps of a click flush, and the click lookup for conversions. Kysely queries only.
 */
import { CompiledQuery, sql, type Kysely, type RawBuilder, type Selectable, type Transaction } from 'kysely';
import type { Database, DomainsTable, LinksTable, EventsTable } from '../db/tables.js';
import type { Dialect } from '../db/dialect.js';
import { sqlText, type SqlTexts } from '../db/sql-texts.js';

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

/** Rows per lookup of stored click ids, far below both engines' bound-value limits. */
const BUMP_CHUNK = 1000;

/**
 * Counter updates go out in chunks of these sizes only, so each statement text is compiled once
 * and (on SQLite, db/statement-cache.ts) prepared once: a flush touches a different number of
 * links every time, and a text of its own per flush cost a fresh compile and parse each time.
 * 3 bound values × 512 rows stays far below both engines' limits.
 */
const BUMP_SIZES = [512, 128, 32, 8, 2, 1];

/** Splits `rows` into consecutive chunks of the sizes above. */
function* fixedChunks<T>(rows: readonly T[]): Generator<T[]> {
  let i = 0;
  for (const size of BUMP_SIZES) for (; rows.length - i >= size; i += size) yield rows.slice(i, i + size);
}

const linkBumpSql = (orFail: RawBuilder<unknown>, values: RawBuilder<unknown>[]) => sql`update ${orFail} links set
    clicks = links.clicks + v.column2,
    last_clicked = case when links.last_clicked is null or links.last_clicked < v.column3 then v.column3 else links.last_clicked end
  from (values ${sql.join(values)}) as v
  where links.id = v.column1`;

const workspaceBumpSql = (orFail: RawBuilder<unknown>, values: RawBuilder<unknown>[]) => sql`update ${orFail} workspaces set usage = workspaces.usage + v.column2
  from (values ${sql.join(values)}) as v
  where workspaces.id = v.column1`;

export function createRedirectStore(db: Kysely<Database>, dialect: Dialect) {
  // Compiled SQL texts: counter updates by table and chunk size, link lookups by domain count
  // (one store per connection, so per engine).
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
          .selectAll('links')
          .select('workspaces.conversion_enabled')
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

    /**
     * `links.clicks += n`, `last_clicked = max(last_clicked, t)` and `workspaces.usage += n`, one
     * statement per chunk (UPDATE … FROM VALUES runs on SQLite ≥ 3.33 and PostgreSQL alike), so a
     * flush touching 2,000 links costs a dozen statements, not 2,000. `or fail` on SQLite
     * (Dialect.orFail): the caller's transaction is rolled back if this throws.
     */
    async bumpCounters(trx: Transaction<Database>, links: readonly LinkBump[], workspaces: readonly WorkspaceBump[]): Promise<void> {
      for (const part of fixedChunks(links)) {
        const text = sqlText(texts, `links:${part.length}`, () =>
          linkBumpSql(dialect.orFail, part.map((l) => sql`(${l.id}, cast(${l.clicks} as bigint), cast(${l.lastClicked} as bigint))`)).compile(trx).sql,
        );
        const values: unknown[] = [];
        for (const l of part) values.push(l.id, l.clicks, l.lastClicked);
        await trx.executeQuery(CompiledQuery.raw(text, values));
      }
      for (const part of fixedChunks(workspaces)) {
        const text = sqlText(texts, `workspaces:${part.length}`, () =>
          workspaceBumpSql(dialect.orFail, part.map((w) => sql`(${w.id}, cast(${w.clicks} as bigint))`)).compile(trx).sql,
        );
        const values: unknown[] = [];
        for (const w of part) values.push(w.id, w.clicks);
        await trx.executeQuery(CompiledQuery.raw(text, values));
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
