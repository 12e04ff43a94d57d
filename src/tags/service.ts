/**
 * Tag rules: unique names without regard to case, colors, the `tagsLimit` quota, and the lookups
 * the links module uses to resolve `tagIds` / `tagNames`.
 */
import { fieldsOf, record, type Who } from '../audit/record.js';
import { randomInt } from 'node:crypto';
import type { Dialect } from '../db/dialect.js';
import { ApiError } from '../http/errors.js';
import { newId } from '../ids.js';
import { TAG_COLORS } from '../links/response.js';
import type { WorkspaceRow } from '../workspaces/store.js';
import { assertUnderLimit } from '../workspaces/quota.js';
import { toTagResponse, type ListTagsQuery, type TagColor, type TagResponse, type TagRow } from './schema.js';
import type { TagStore } from './store.js';

/** A random color for a tag created without one: any but the last (`pink`), as published. */
export function randomTagColor(pick: (n: number) => number = randomInt): TagColor {
  return TAG_COLORS[pick(TAG_COLORS.length - 1)]!;
}

const DUPLICATE = 'A tag with that name already exists.';
const NOT_FOUND = 'Tag not found.';

export function createTagService(store: TagStore, dialect: Dialect, now: () => number = Date.now) {
  /** Turns the unique index's verdict on a racing insert/rename into the same 409 as the pre-check. */
  async function guardDuplicate<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (dialect.isUniqueViolation(err)) throw new ApiError('conflict', DUPLICATE, { cause: err });
      throw err;
    }
  }

  return {
    async create(workspace: WorkspaceRow, input: { name?: string; tag?: string; color?: TagColor }, who?: Who): Promise<TagResponse> {
      const name = (input.name ?? input.tag)!;
      const t = now();
      const row: TagRow = {
        id: newId('tag', t),
        workspace_id: workspace.id,
        name,
        name_key: name.toLowerCase(),
        color: input.color ?? randomTagColor(),
        created_at: t,
        updated_at: t,
      };
      await guardDuplicate(() =>
        store.transaction(async (tx, trx) => {
          await tx.lockWorkspace(workspace.id);
          if (await tx.findByNameKey(workspace.id, row.name_key)) throw new ApiError('conflict', DUPLICATE);
          assertUnderLimit({ resource: 'tags', count: await tx.count(workspace.id), limit: workspace.tags_limit, plan: workspace.plan });
          await tx.insert(row);
          await record(trx, who, { workspaceId: workspace.id, action: 'tag.create', targetIds: row.id, changes: { name: row.name, color: row.color } });
        }),
      );
      return toTagResponse(row);
    },

    async list(workspaceId: string, q: ListTagsQuery): Promise<TagResponse[]> {
      const rows = await store.list(workspaceId, {
        sortBy: q.sortBy,
        sortOrder: q.sortOrder,
        search: q.search,
        ids: q.ids,
        limit: q.pageSize,
        offset: (q.page - 1) * q.pageSize,
      });
      return rows.map(toTagResponse);
    },

    /** Another workspace's tag answers 404 exactly like a missing one. */
    async update(workspaceId: string, id: string, input: { name?: string; tag?: string; color?: TagColor }, who?: Who): Promise<TagResponse> {
      const existing = await store.findById(workspaceId, id);
      if (!existing) throw new ApiError('not_found', NOT_FOUND);
      const name = input.name ?? input.tag;
      const nameKey = name?.toLowerCase();
      if (nameKey !== undefined && nameKey !== existing.name_key) {
        const other = await store.findByNameKey(workspaceId, nameKey);
        if (other && other.id !== id) throw new ApiError('conflict', DUPLICATE);
      }
      const patch = {
        ...(name !== undefined ? { name, name_key: nameKey } : {}),
        ...(input.color !== undefined ? { color: input.color } : {}),
      };
      if (Object.keys(patch).length === 0) return toTagResponse(existing);
      await guardDuplicate(() =>
        store.transaction(async (tx, trx) => {
          await tx.update(workspaceId, id, { ...patch, updated_at: now() });
          await record(trx, who, { workspaceId, action: 'tag.update', targetIds: id, changes: { fields: fieldsOf(input) } });
        }),
      );
      return toTagResponse({ ...existing, ...patch });
    },

    /** Deletes the tag and removes it from every link (its `link_tags` rows). */
    async delete(workspaceId: string, id: string, who?: Who): Promise<{ id: string }> {
      await store.transaction(async (tx, trx) => {
        if (!(await tx.delete(workspaceId, id))) throw new ApiError('not_found', NOT_FOUND);
        await record(trx, who, { workspaceId, action: 'tag.delete', targetIds: id });
      });
      return { id };
    },

    /** How many tags the workspace has (an import's dry run checks the quota with it). */
    countTags: (workspaceId: string): Promise<number> => store.count(workspaceId),

    /** Tags of the workspace among `ids`; unknown or foreign ids are simply absent from the result. */
    findTagsByIds: (workspaceId: string, ids: readonly string[]): Promise<TagRow[]> => store.findByIds(workspaceId, ids),

    /** Tags of the workspace whose names match `names` without regard to case. */
    findTagsByNames: (workspaceId: string, names: readonly string[]): Promise<TagRow[]> =>
      store.findByNameKeys(workspaceId, [...new Set(names.map((n) => n.trim().toLowerCase()).filter(Boolean))]),
  };
}

export type TagService = ReturnType<typeof createTagService>;
