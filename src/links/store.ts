/**
 * Storage of links and their tags: Kysely queries only, no rules. Every method takes the
 * workspace id first and filters by it, except the two marked lookups by (domain, key), which
 * serve the redirect and the service-wide uniqueness of keys.
 */
import { CompiledQuery, sql, type Expression, type Kysely, type Selectable, type SqlBool, type Transaction, type Updateable } from 'kysely';
import type { Database, LinksTable } from '../db/tables.js';
import type { Dialect } from '../db/dialect.js';
import { sqlText, type SqlTexts } from '../db/sql-texts.js';
import type { CountGroup, SortField } from './schema.js';
import type { LinkTagResponse } from './response.js';

export type LinkRow = Selectable<LinksTable>;
export type LinkPatch = Updateable<LinksTable>;

/** Resolved list/count filters (tag names are resolved in SQL, case-insensitively). */
export interface LinkFilters {
  domain?: string;
  /** Links with any of these tags (names are resolved to ids by the service); `[]` matches none. */
  tagIds?: string[];
  /** How the tag filter runs: 'probe' = EXISTS per link in sort order, 'list' = IN (the tag's links). */
  tagStrategy?: 'probe' | 'list';
  /** `null`: only links outside folders; a string: that folder; undefined: every folder. */
  folderId?: string | null;
  search?: string;
  /** How the search runs: 'index' = the search index's candidates (migration 0016), else the scan. */
  searchStrategy?: 'index' | 'scan';
  userId?: string;
  tenantId?: string;
  showArchived: boolean;
  withTags: boolean;
}

export interface LinkPage {
  sortBy: SortField;
  sortOrder: 'asc' | 'desc';
  offset: number;
  limit: number;
  /** Keyset cursor (createdAt sort only): rows strictly after this position in the sort order. */
  after?: { createdAt: number; id: string };
}

/** A link and its tag ids in order, for inserts and tag replacements, and its `webhookIds`. */
export interface LinkWrite {
  row: LinkRow;
  tagIds: string[];
  webhookIds?: string[];
}

/** The link_webhooks rows of a link's `webhookIds`, in the order given. */
function webhookRows(workspaceId: string, linkId: string, webhookIds: readonly string[] | undefined) {
  return (webhookIds ?? []).map((webhookId, position) => ({ link_id: linkId, webhook_id: webhookId, workspace_id: workspaceId, position }));
}

/** Extra writes in a link write's transaction (the domain events' outbox rows): after the writes, before the deletes. */
export type InTransaction<A extends unknown[] = []> = (trx: Transaction<Database>, ...args: A) => Promise<void>;

/**
 * Sort expressions, each matching an index of migration 0006. `lastClicked` treats "never" as 0
 * so both engines order NULLs the same way (last when descending).
 */
const SORT_EXPRESSIONS = {
  createdAt: sql.ref('links.created_at'),
  clicks: sql.ref('links.clicks'),
  saleAmount: sql.ref('links.sale_amount'),
  lastClicked: sql`coalesce(links.last_clicked, 0)`,
} as const;

/**
 * Below this many tagged links, a tag filter reads the tag's links from `link_tags_tag` and sorts
 * them; above it, walking the sort index and probing each link's tags stops sooner. Either plan
 * alone costs ~100 ms on 100k links in its bad case (list.bench.ts).
 */
export const TAG_PROBE_THRESHOLD = 2_000;

/**
 * Above this many candidates in the search index, a search scans instead: reading the candidates
 * costs ~1.5 µs each (175 ms for a term in all 120k links), while a scan in sort order fills a
 * page after a few rows when the term is that common (dashboard-links bench, BENCHMARKS.md).
 */
export const SEARCH_INDEX_THRESHOLD = 5_000;

const GROUP_COLUMNS = { domain: 'links.domain', userId: 'links.user_id', folderId: 'links.folder_id', tagId: 'link_tags.tag_id' } as const;

export function createLinkStore(db: Kysely<Database>, dialect: Dialect) {
  const texts: SqlTexts = new Map();
  /** The WHERE clause of lists and counts, every condition led by the workspace. */
  function filtered(workspaceId: string, f: LinkFilters) {
    let q = db.selectFrom('links').where('links.workspace_id', '=', workspaceId);
    if (!f.showArchived) q = q.where('links.archived', '=', 0);
    if (f.domain !== undefined) q = q.where('links.domain', '=', f.domain);
    if (f.folderId === null) q = q.where('links.folder_id', 'is', null);
    else if (f.folderId !== undefined) q = q.where('links.folder_id', '=', f.folderId);
    if (f.userId !== undefined) q = q.where('links.user_id', '=', f.userId);
    if (f.tenantId !== undefined) q = q.where('links.tenant_id', '=', f.tenantId);
    if (f.tagIds !== undefined && !f.tagIds.length) q = q.where(sql<SqlBool>`1 = 0`);
    else if (f.tagIds !== undefined) {
      const ids = f.tagIds;
      q =
        f.tagStrategy === 'probe'
          ? q.where((eb) =>
              eb.exists(
                eb.selectFrom('link_tags').select('link_tags.link_id').whereRef('link_tags.link_id', '=', 'links.id').where('link_tags.tag_id', 'in', ids),
              ),
            )
          : q.where('links.id', 'in', (eb) =>
              eb.selectFrom('link_tags').select('link_tags.link_id').where('link_tags.workspace_id', '=', workspaceId).where('link_tags.tag_id', 'in', ids),
            );
    }
    if (f.withTags) {
      q = q.where((eb) => eb.exists(eb.selectFrom('link_tags').select('link_tags.link_id').whereRef('link_tags.link_id', '=', 'links.id')));
    }
    if (f.search) {
      const needle = f.search;
      const index = f.searchStrategy === 'index' ? dialect.linkSearchIndex(needle) : null;
      if (index) q = q.where(index.where as Expression<SqlBool>);
      q = q.where((eb) =>
        eb.or([
          dialect.containsInsensitive(eb.ref('links.short_link'), needle) as Expression<SqlBool>,
          dialect.containsInsensitive(eb.ref('links.url'), needle) as Expression<SqlBool>,
        ]),
      );
    }
    return q;
  }

  return {
    /** Whether the link's public stats show conversions (the dashboard's setting; not in the API's link). */
    async setPublicStatsConversions(workspaceId: string, id: string, on: boolean, note: InTransaction): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx.updateTable('links').set({ public_stats_conversions: on ? 1 : 0 }).where('workspace_id', '=', workspaceId).where('id', '=', id).execute();
        await note(trx);
      });
    },

    async findById(workspaceId: string, id: string): Promise<LinkRow | undefined> {
      return db.selectFrom('links').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
    },

    async findByExternalId(workspaceId: string, externalId: string): Promise<LinkRow | undefined> {
      return db.selectFrom('links').selectAll().where('workspace_id', '=', workspaceId).where('external_id', '=', externalId).executeTakeFirst();
    },

    async findManyByIds(workspaceId: string, ids: readonly string[]): Promise<LinkRow[]> {
      if (!ids.length) return [];
      return db.selectFrom('links').selectAll().where('workspace_id', '=', workspaceId).where('id', 'in', [...ids]).execute();
    },

    async findManyByExternalIds(workspaceId: string, externalIds: readonly string[]): Promise<LinkRow[]> {
      if (!externalIds.length) return [];
      return db.selectFrom('links').selectAll().where('workspace_id', '=', workspaceId).where('external_id', 'in', [...externalIds]).execute();
    },

    /** The oldest link of the workspace with exactly this destination (upsert). */
    async findByUrl(workspaceId: string, url: string): Promise<LinkRow | undefined> {
      return db
        .selectFrom('links')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('url', '=', url)
        .orderBy('created_at')
        .orderBy('id')
        .limit(1)
        .executeTakeFirst();
    },

    /**
     * The link at `domain/key`, whatever its workspace: a visitor of a short link has no
     * workspace, and a key is unique per domain across the whole service. `keyLower` is the
     * `lookupKey` form.
     */
    async findByDomainKey(domain: string, keyLower: string): Promise<LinkRow | undefined> {
      return db.selectFrom('links').selectAll().where('domain', '=', domain).where('key_lower', '=', keyLower).executeTakeFirst();
    },

    /** The links at these keys (lower-cased) of one domain, in any workspace: an import's look-up of a whole batch at once. */
    async findByDomainKeys(domain: string, keyLowers: readonly string[]): Promise<LinkRow[]> {
      if (!keyLowers.length) return [];
      return db.selectFrom('links').selectAll().where('domain', '=', domain).where('key_lower', 'in', [...keyLowers]).execute();
    },

    /**
     * True when `domain/key` is taken by any workspace (keys are unique per domain service-wide).
     * Compiled once: every random key is checked here (an import's keyless rows, one each).
     */
    async keyTaken(domain: string, keyLower: string): Promise<boolean> {
      const text = sqlText(texts, 'keyTaken', () => db.selectFrom('links').select('id').where('domain', '=', '').where('key_lower', '=', '').compile().sql);
      const r = await db.executeQuery(CompiledQuery.raw(text, [domain, keyLower]));
      return r.rows.length > 0;
    },

    async externalIdTaken(workspaceId: string, externalId: string): Promise<boolean> {
      const r = await db
        .selectFrom('links')
        .select('id')
        .where('workspace_id', '=', workspaceId)
        .where('external_id', '=', externalId)
        .executeTakeFirst();
      return !!r;
    },

    /** Slug of the workspace's primary domain, if it has one. */
    async primaryDomain(workspaceId: string): Promise<string | undefined> {
      const r = await db
        .selectFrom('domains')
        .select('slug')
        .where('workspace_id', '=', workspaceId)
        .where('primary', '=', 1)
        .orderBy('created_at')
        .limit(1)
        .executeTakeFirst();
      return r?.slug;
    },

    /** True when the domain belongs to the workspace (archived domains count, behaviour.md §1.2 rule 15). */
    async hasDomain(workspaceId: string, slug: string): Promise<boolean> {
      const r = await db.selectFrom('domains').select('id').where('workspace_id', '=', workspaceId).where('slug', '=', slug).executeTakeFirst();
      return !!r;
    },

    /** The subset of `ids` that are tags of the workspace. */
    async existingTagIds(workspaceId: string, ids: readonly string[]): Promise<Set<string>> {
      if (!ids.length) return new Set();
      const rows = await db.selectFrom('tags').select('id').where('workspace_id', '=', workspaceId).where('id', 'in', [...ids]).execute();
      return new Set(rows.map((r) => r.id));
    },

    /** Tags of the workspace by lower-cased name. */
    async tagsByNameKey(workspaceId: string, nameKeys: readonly string[]): Promise<Map<string, string>> {
      if (!nameKeys.length) return new Map();
      const rows = await db
        .selectFrom('tags')
        .select(['id', 'name_key'])
        .where('workspace_id', '=', workspaceId)
        .where('name_key', 'in', [...nameKeys])
        .execute();
      return new Map(rows.map((r) => [r.name_key, r.id]));
    },

    /** Which of `ids` are webhooks of the workspace (a link's `webhookIds`). */
    async existingWebhookIds(workspaceId: string, ids: readonly string[]): Promise<Set<string>> {
      if (!ids.length) return new Set();
      const rows = await db.selectFrom('webhooks').select('id').where('workspace_id', '=', workspaceId).where('id', 'in', [...ids]).execute();
      return new Set(rows.map((r) => r.id));
    },

    async folderExists(workspaceId: string, folderId: string): Promise<boolean> {
      const r = await db.selectFrom('folders').select('id').where('workspace_id', '=', workspaceId).where('id', '=', folderId).executeTakeFirst();
      return !!r;
    },

    /**
     * Inserts links and their tags in one transaction, after adding their number to the
     * workspace's `links_usage` and `total_links` under the condition that `links_usage` stays
     * within `links_limit`. Returns 'over_limit' (and writes nothing) when it would not.
     * The conditional update also serialises concurrent creations of one workspace.
     */
    async insertLinks(workspaceId: string, links: readonly LinkWrite[], also?: InTransaction): Promise<'ok' | 'over_limit'> {
      if (!links.length) return 'ok';
      const n = links.length;
      return db.transaction().execute(async (trx) => {
        const counted = await trx
          .updateTable('workspaces')
          .set((eb) => ({ links_usage: eb('links_usage', '+', n), total_links: eb('total_links', '+', n) }))
          .where('id', '=', workspaceId)
          .where((eb) => eb(eb('links_usage', '+', n), '<=', eb.ref('links_limit')))
          .executeTakeFirst();
        if (Number(counted.numUpdatedRows) === 0) return 'over_limit';
        await trx.insertInto('links').values(links.map((l) => l.row)).execute();
        const tagRows = links.flatMap((l) => l.tagIds.map((tagId, position) => ({ link_id: l.row.id, tag_id: tagId, workspace_id: workspaceId, position })));
        if (tagRows.length) await trx.insertInto('link_tags').values(tagRows).execute();
        const hookRows = links.flatMap((l) => webhookRows(workspaceId, l.row.id, l.webhookIds));
        if (hookRows.length) await trx.insertInto('link_webhooks').values(hookRows).execute();
        await also?.(trx);
        return 'ok';
      });
    },

    /** Updates links (and replaces the tags and webhooks of those whose `tagIds` / `webhookIds` is given) in one transaction. */
    async updateLinks(
      workspaceId: string,
      updates: readonly { id: string; patch: LinkPatch; tagIds?: string[]; webhookIds?: string[] }[],
      also?: InTransaction,
    ): Promise<void> {
      if (!updates.length) return;
      await db.transaction().execute(async (trx) => {
        for (const u of updates) {
          await trx.updateTable('links').set(u.patch).where('workspace_id', '=', workspaceId).where('id', '=', u.id).execute();
          if (u.webhookIds !== undefined) {
            await trx.deleteFrom('link_webhooks').where('workspace_id', '=', workspaceId).where('link_id', '=', u.id).execute();
            const hookRows = webhookRows(workspaceId, u.id, u.webhookIds);
            if (hookRows.length) await trx.insertInto('link_webhooks').values(hookRows).execute();
          }
          if (u.tagIds === undefined) continue;
          await trx.deleteFrom('link_tags').where('workspace_id', '=', workspaceId).where('link_id', '=', u.id).execute();
          const rows = u.tagIds.map((tagId, position) => ({ link_id: u.id, tag_id: tagId, workspace_id: workspaceId, position }));
          if (rows.length) await trx.insertInto('link_tags').values(rows).execute();
        }
        await also?.(trx);
      });
    },

    /**
     * Deletes the links (root links of domains are kept: they go with their domain) and lowers
     * `total_links`; `links_usage` counts creations and is not lowered (behaviour.md §8).
     * Returns what was deleted, for cache invalidation.
     */
    async deleteLinks(
      workspaceId: string,
      ids: readonly string[],
      also?: InTransaction<[deleted: { id: string; domain: string; key: string }[]]>,
    ): Promise<{ id: string; domain: string; key: string }[]> {
      if (!ids.length) return [];
      return db.transaction().execute(async (trx) => {
        const rows = await trx
          .selectFrom('links')
          .select(['id', 'domain', 'key'])
          .where('workspace_id', '=', workspaceId)
          .where('id', 'in', [...ids])
          .where('key', '!=', '_root')
          .execute();
        if (!rows.length) return rows;
        const found = rows.map((r) => r.id);
        await also?.(trx, rows);
        await trx.deleteFrom('link_tags').where('workspace_id', '=', workspaceId).where('link_id', 'in', found).execute();
        await trx.deleteFrom('link_webhooks').where('workspace_id', '=', workspaceId).where('link_id', 'in', found).execute();
        await trx.deleteFrom('links').where('workspace_id', '=', workspaceId).where('id', 'in', found).execute();
        const n = rows.length;
        await trx
          .updateTable('workspaces')
          .set({ total_links: sql<number>`case when total_links >= ${n} then total_links - ${n} else 0 end` })
          .where('id', '=', workspaceId)
          .execute();
        return rows;
      });
    },

    /** How many links carry any of the tags, counted up to `cap` (for the tag filter's plan). */
    async countTagged(workspaceId: string, tagIds: readonly string[], cap: number): Promise<number> {
      if (!tagIds.length) return 0;
      const r = await db
        .selectFrom((eb) =>
          eb.selectFrom('link_tags').select('link_tags.link_id').where('link_tags.tag_id', 'in', [...tagIds]).where('link_tags.workspace_id', '=', workspaceId).limit(cap).as('t'),
        )
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },

    /** How many links the search index names for `needle`, up to `cap`; null without an index to ask. */
    async countSearchCandidates(needle: string, cap: number): Promise<number | null> {
      const index = dialect.linkSearchIndex(needle);
      if (!index) return null;
      const r = await index.countUpTo(cap).execute(db);
      return Number(r.rows[0]?.n ?? 0);
    },

    /** Tag ids of the workspace for lower-cased names (unknown names are left out). */
    async tagIdsByNameKeys(workspaceId: string, nameKeys: readonly string[]): Promise<string[]> {
      if (!nameKeys.length) return [];
      const rows = await db.selectFrom('tags').select('id').where('workspace_id', '=', workspaceId).where('name_key', 'in', [...nameKeys]).execute();
      return rows.map((r) => r.id);
    },

    /** Position of a link in the createdAt order, for cursor pagination. */
    async cursorOf(workspaceId: string, id: string): Promise<{ createdAt: number; id: string } | undefined> {
      const r = await db.selectFrom('links').select(['id', 'created_at']).where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
      return r ? { createdAt: Number(r.created_at), id: r.id } : undefined;
    },

    async list(workspaceId: string, f: LinkFilters, page: LinkPage): Promise<LinkRow[]> {
      const order = SORT_EXPRESSIONS[page.sortBy];
      const dir = page.sortOrder;
      let q = filtered(workspaceId, f).selectAll('links');
      if (page.after) {
        const { createdAt, id } = page.after;
        const cmp = dir === 'desc' ? '<' : '>';
        q = q.where((eb) =>
          eb.or([eb('links.created_at', cmp, createdAt), eb.and([eb('links.created_at', '=', createdAt), eb('links.id', cmp, id)])]),
        );
      }
      // The id breaks ties so that pages never overlap or skip rows.
      return q.orderBy(order, dir).orderBy('links.id', dir).offset(page.offset).limit(page.limit).execute();
    },

    async count(workspaceId: string, f: LinkFilters): Promise<number> {
      const r = await filtered(workspaceId, f)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },

    /** Counts per domain, user, folder or tag, largest first. */
    async countBy(workspaceId: string, f: LinkFilters, group: CountGroup): Promise<{ value: string | null; count: number }[]> {
      const column = GROUP_COLUMNS[group];
      const base = filtered(workspaceId, f);
      const q =
        group === 'tagId'
          ? base.innerJoin('link_tags', 'link_tags.link_id', 'links.id').select([sql.ref<string | null>(column).as('value'), (eb) => eb.fn.countAll<number>().as('n')])
          : base.select([sql.ref<string | null>(column).as('value'), (eb) => eb.fn.countAll<number>().as('n')]);
      const rows = await q.groupBy(column).orderBy('n', 'desc').orderBy(column).execute();
      return rows.map((r) => ({ value: r.value, count: Number(r.n) }));
    },
  };
}

export type LinkStore = ReturnType<typeof createLinkStore>;

/** Tags of many links in one query, in each link's tag order. */
export async function loadLinkTags(
  db: Kysely<Database>,
  workspaceId: string,
  linkIds: readonly string[],
): Promise<Map<string, LinkTagResponse[]>> {
  const out = new Map<string, LinkTagResponse[]>();
  if (!linkIds.length) return out;
  const rows = await db
    .selectFrom('link_tags')
    .innerJoin('tags', 'tags.id', 'link_tags.tag_id')
    .select(['link_tags.link_id', 'tags.id', 'tags.name', 'tags.color', 'link_tags.position'])
    .where('link_tags.workspace_id', '=', workspaceId)
    .where('link_tags.link_id', 'in', [...linkIds])
    .orderBy('link_tags.position')
    .execute();
  for (const r of rows) {
    const list = out.get(r.link_id) ?? [];
    list.push({ id: r.id, name: r.name, color: r.color as LinkTagResponse['color'] });
    out.set(r.link_id, list);
  }
  return out;
}

/** `webhookIds` of many links in one query, in each link's order. */
export async function loadLinkWebhookIds(db: Kysely<Database>, workspaceId: string, linkIds: readonly string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (!linkIds.length) return out;
  const rows = await db
    .selectFrom('link_webhooks')
    .select(['link_id', 'webhook_id'])
    .where('workspace_id', '=', workspaceId)
    .where('link_id', 'in', [...linkIds])
    .orderBy('position')
    .execute();
  for (const r of rows) out.set(r.link_id, [...(out.get(r.link_id) ?? []), r.webhook_id]);
  return out;
}

/** What a link response needs beside its row: tags and `webhookIds`, for many links at once. */
export async function loadLinkExtras(db: Kysely<Database>, workspaceId: string, linkIds: readonly string[]) {
  const [tags, webhooks] = await Promise.all([loadLinkTags(db, workspaceId, linkIds), loadLinkWebhookIds(db, workspaceId, linkIds)]);
  return { tags: (id: string) => tags.get(id) ?? [], webhookIds: (id: string) => webhooks.get(id) ?? [] };
}
