/**
 * The SQL of link scopes (../link-scope.ts): `select id from links where …` for the member links
 * of a `set` scope or the left-out links of a `workspace` one. The SQL store reads the `links`
 * table it shares with the rest of the service.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { ScopeInput, ValueFilter } from '../event-store.js';
import { hasLinkFilter, usesUnsortedDefault } from '../link-scope.js';

function valueCondition(column: RawBuilder<unknown>, f: ValueFilter): RawBuilder<unknown> {
  const list = sql.join(f.values);
  return f.op === 'in' ? sql`${column} in (${list})` : sql`${column} not in (${list})`;
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

/** The query that lists at most `max` + 1 of the scope's ids (one more, to know when to stop). */
export function scopeIdsQuery(db: Kysely<Database>, input: ScopeInput, max: number) {
  return sql<{ id: string }>`${scopeSubquery(input)} limit ${max + 1}`.compile(db);
}
