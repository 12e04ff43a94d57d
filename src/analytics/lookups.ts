/**
 * The metadata reads around an aggregate or an event page (links, their tags, folders,
 * customers), as compiled queries so the service can send them to the runner in one batch: one
 * worker round trip instead of one per table.
 */
import type { CompiledQuery, Kysely, Selectable } from 'kysely';
import type { CustomersTable, Database } from '../db/tables.js';
import type { LinkTagResponse } from '../links/response.js';
import type { LinkRow } from '../links/store.js';

/** The one link row type is links/store.ts's; re-exported because the service takes its row types from here. */
export type { LinkRow };

/** The link fields a grouped row shows (top_links) or groups by (folder, partner). */
export const LINK_SUMMARY_COLUMNS = ['id', 'domain', 'key', 'short_link', 'url', 'title', 'comments', 'folder_id', 'partner_id', 'created_at'] as const;
export type LinkSummary = Pick<LinkRow, (typeof LINK_SUMMARY_COLUMNS)[number]>;

/** Ids per statement: far below SQLite's 32,766 and PostgreSQL's 65,535 bound values. */
const ID_CHUNK = 10_000;

function chunks<T>(xs: readonly T[]): T[][] {
  const unique = [...new Set(xs)];
  const out: T[][] = [];
  for (let i = 0; i < unique.length; i += ID_CHUNK) out.push(unique.slice(i, i + ID_CHUNK));
  return out;
}

/** Links of the workspace with these ids: every column (event records) or the summary (grouped rows). */
export function linksQueries(db: Kysely<Database>, workspaceId: string, ids: readonly string[], columns: 'all' | 'summary'): CompiledQuery[] {
  return chunks(ids).map((part) => {
    const q = db.selectFrom('links').where('id', 'in', part).where('workspace_id', '=', workspaceId);
    return (columns === 'all' ? q.selectAll() : q.select([...LINK_SUMMARY_COLUMNS])).compile();
  });
}

/** Tags of these links, each link's in its tag order. */
export function tagsQueries(db: Kysely<Database>, workspaceId: string, linkIds: readonly string[]): CompiledQuery[] {
  return chunks(linkIds).map((part) =>
    db
      .selectFrom('link_tags')
      .innerJoin('tags', 'tags.id', 'link_tags.tag_id')
      .select(['link_tags.link_id', 'tags.id', 'tags.name', 'tags.color'])
      .where('link_tags.workspace_id', '=', workspaceId)
      .where('link_tags.link_id', 'in', part)
      .orderBy('link_tags.link_id')
      .orderBy('link_tags.position')
      .compile(),
  );
}

/** The links' `webhookIds` (link_webhooks), in each link's order. */
export function webhookIdsQueries(db: Kysely<Database>, workspaceId: string, linkIds: readonly string[]): CompiledQuery[] {
  return chunks(linkIds).map((part) =>
    db
      .selectFrom('link_webhooks')
      .select(['link_id', 'webhook_id'])
      .where('workspace_id', '=', workspaceId)
      .where('link_id', 'in', part)
      .orderBy('link_id')
      .orderBy('position')
      .compile(),
  );
}

export function webhookIdsByLink(results: readonly Record<string, unknown>[][]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const rows of results) for (const r of rows as { link_id: string; webhook_id: string }[]) out.set(r.link_id, [...(out.get(r.link_id) ?? []), r.webhook_id]);
  return out;
}

/** Every folder of the workspace (few: a plan allows dozens). */
export function foldersQuery(db: Kysely<Database>, workspaceId: string): CompiledQuery {
  return db.selectFrom('folders').select(['id', 'name', 'access_level']).where('workspace_id', '=', workspaceId).compile();
}

export function customersQuery(db: Kysely<Database>, workspaceId: string, ids: readonly string[]): CompiledQuery {
  return db.selectFrom('customers').selectAll().where('workspace_id', '=', workspaceId).where('id', 'in', [...new Set(ids)]).compile();
}

export type CustomerRow = Selectable<CustomersTable>;

/** Rows of several chunks → a map by id. */
export function byId<T extends { id: string }>(results: readonly Record<string, unknown>[][]): Map<string, T> {
  const out = new Map<string, T>();
  for (const rows of results) for (const r of rows as unknown as T[]) out.set(r.id, r);
  return out;
}

/** Tag rows of several chunks → each link's tags in order. */
export function tagsByLink(results: readonly Record<string, unknown>[][]): Map<string, LinkTagResponse[]> {
  const out = new Map<string, LinkTagResponse[]>();
  for (const rows of results) {
    for (const r of rows as { link_id: string; id: string; name: string; color: string }[]) {
      const list = out.get(r.link_id) ?? [];
      list.push({ id: r.id, name: r.name, color: r.color as LinkTagResponse['color'] });
      out.set(r.link_id, list);
    }
  }
  return out;
}

/** The id of the workspace's link with this external id (without its `ext_` prefix). */
export function linkByExternalIdQuery(db: Kysely<Database>, workspaceId: string, externalId: string): CompiledQuery {
  return db.selectFrom('links').select('id').where('workspace_id', '=', workspaceId).where('external_id', '=', externalId).compile();
}

/**
 * The link at this domain and key (case-insensitive), with its workspace. No workspace filter:
 * keys are unique per domain across workspaces (the redirect's look-up); the caller answers
 * another workspace's link like a missing one.
 */
export function linkByKeyQuery(db: Kysely<Database>, domain: string, key: string): CompiledQuery {
  return db.selectFrom('links').select(['id', 'workspace_id']).where('domain', '=', domain.toLowerCase()).where('key_lower', '=', key.toLowerCase()).compile();
}
