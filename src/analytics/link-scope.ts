/**
 * Which links a query counts. Link attributes (folder, tags, tenant, domain, root …) change over
 * time and are not copied onto events, so link filters are resolved against the `links` table at
 * query time into a set of link ids: a list when it is short, a subquery otherwise.
 *
 * Two shapes:
 * - `workspace`: no link filter. Every link counts except the left-out ones: disabled links
 *   ("its stats are excluded from overall stats", spec: Link.disabledAt) and, when no `folderId`
 *   is given, links in folders (spec: "folderId — when absent, unsorted links are used").
 * - `set`: a link filter. Only matching links count; disabled links only when named by id.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../db/tables.js';
import type { LinkFilters, ValueFilter } from './filters.js';

/** Ids inline up to this many; beyond, the SQL carries the subquery instead. */
export const MAX_INLINE_IDS = 1000;

export interface LinkScope {
  mode: 'workspace' | 'set';
  /**
   * set: the member links, when few enough to inline; otherwise (and always in workspace mode,
   * for the left-out links) the SQL carries `subquery`, which saves a round trip before the
   * aggregate: SQLite evaluates such a subquery once per statement.
   */
  ids?: string[];
  subquery: RawBuilder<unknown>;
  /** Set mode with no member at all, or a filter on data Waymark does not hold. */
  empty: boolean;
}

export interface ScopeInput {
  workspaceId: string;
  links: LinkFilters;
  /** Links named by id (`linkId`, `domain`+`key`, `externalId`): disabled ones still count. */
  named: boolean;
}

function valueCondition(column: RawBuilder<unknown>, f: ValueFilter): RawBuilder<unknown> {
  const list = sql.join(f.values);
  return f.op === 'in' ? sql`${column} in (${list})` : sql`${column} not in (${list})`;
}

/** Whether the spec's unsorted-links default applies: no folder filter and no link named by id. */
export function usesUnsortedDefault(input: ScopeInput): boolean {
  return input.links.folderId === undefined && !input.named;
}

/** True when a link filter beyond the defaults is present (→ `set` mode). */
export function hasLinkFilter(links: LinkFilters): boolean {
  return (
    !!links.ids || !!links.domain || !!links.tenantId || !!links.programId || !!links.partnerId ||
    !!links.folderId || !!links.tagIds || links.root !== undefined || !!links.matchesNothing
  );
}

/** Conditions on `links` that select the member links of a `set` scope. */
function memberConditions(input: ScopeInput): RawBuilder<unknown>[] {
  const { links, workspaceId } = input;
  const conds: RawBuilder<unknown>[] = [sql`workspace_id = ${workspaceId}`];
  if (links.ids) conds.push(valueCondition(sql.ref('id'), links.ids));
  if (links.domain) conds.push(valueCondition(sql.ref('domain'), links.domain));
  // coalesce: "-x" must keep links whose attribute is unset.
  if (links.tenantId) conds.push(valueCondition(sql`coalesce(tenant_id, '')`, links.tenantId));
  if (links.programId) conds.push(valueCondition(sql`coalesce(program_id, '')`, links.programId));
  if (links.partnerId) conds.push(valueCondition(sql`coalesce(partner_id, '')`, links.partnerId));
  if (links.folderId) conds.push(valueCondition(sql`coalesce(folder_id, '')`, links.folderId));
  if (links.tagIds) {
    const tagged = sql`select link_id from link_tags where workspace_id = ${workspaceId} and tag_id in (${sql.join(links.tagIds.values)})`;
    conds.push(links.tagIds.op === 'in' ? sql`id in (${tagged})` : sql`id not in (${tagged})`);
  }
  if (links.root !== undefined) conds.push(links.root ? sql`${sql.ref('key')} = '_root'` : sql`${sql.ref('key')} <> '_root'`);
  if (usesUnsortedDefault(input)) conds.push(sql`folder_id is null`);
  if (!input.named) conds.push(sql`disabled_at is null`);
  return conds;
}

/** Conditions on `links` that select the left-out links of a `workspace` scope. */
function excludedCondition(input: ScopeInput): RawBuilder<unknown> {
  // `disabled_at is not null` alone is the predicate of the partial index links_workspace_disabled.
  return usesUnsortedDefault(input)
    ? sql`workspace_id = ${input.workspaceId} and (disabled_at is not null or folder_id is not null)`
    : sql`workspace_id = ${input.workspaceId} and disabled_at is not null`;
}

/** `select id from links where …` for the scope: members (set) or left-out links (workspace). */
export function scopeSubquery(input: ScopeInput): RawBuilder<unknown> {
  if (!hasLinkFilter(input.links)) return sql`select id from links where ${excludedCondition(input)}`;
  return sql`select id from links where ${sql.join(memberConditions(input), sql` and `)}`;
}

/** The query that lists the scope's ids (one more than inlined, to know when to stop). */
export function scopeIdsQuery(db: Kysely<Database>, input: ScopeInput) {
  return sql<{ id: string }>`${scopeSubquery(input)} limit ${MAX_INLINE_IDS + 1}`.compile(db);
}

/**
 * Builds the scope; `ids` are the listed members of a `set` scope (`scopeIdsQuery`). A workspace
 * scope needs no listing.
 */
export function buildScope(input: ScopeInput, ids?: string[]): LinkScope {
  const subquery = scopeSubquery(input);
  if (!hasLinkFilter(input.links)) return { mode: 'workspace', subquery, empty: false };
  const found = ids ?? [];
  const inline = found.length <= MAX_INLINE_IDS ? found : undefined;
  return { mode: 'set', ids: inline, subquery, empty: !!input.links.matchesNothing || found.length === 0 };
}
