/**
 * Folder rules: unique names per workspace, the `foldersLimit` quota (with `foldersUsage` kept in
 * step), and deletion that leaves the folder's links unsorted.
 */
import { fieldsOf, record, type Who } from '../audit/record.js';
import type { Dialect } from '../db/dialect.js';
import { ApiError } from '../http/errors.js';
import { newId } from '../ids.js';
import type { WorkspaceRow } from '../workspaces/store.js';
import { assertUnderLimit } from '../workspaces/quota.js';
import { toFolderResponse, type FolderResponse, type FolderRow, type ListFoldersQuery } from './schema.js';
import type { FolderStore } from './store.js';

const NOT_FOUND = 'Folder not found.';

type AccessLevel = FolderResponse['accessLevel'];

export function createFolderService(store: FolderStore, dialect: Dialect, now: () => number = Date.now) {
  /** Turns the unique index's verdict on a racing insert/rename into the same 409 as the pre-check. */
  async function guardDuplicate<T>(name: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (dialect.isUniqueViolation(err)) throw new ApiError('conflict', `A folder with the name ${name} already exists.`, { cause: err });
      throw err;
    }
  }

  async function getRow(workspaceId: string, id: string): Promise<FolderRow> {
    const row = await store.findById(workspaceId, id);
    // Another workspace's folder answers exactly like a missing one.
    if (!row) throw new ApiError('not_found', NOT_FOUND);
    return row;
  }

  return {
    async create(
      workspace: WorkspaceRow,
      input: { name: string; description?: string | null; accessLevel: AccessLevel },
      who?: Who,
    ): Promise<FolderResponse> {
      const t = now();
      const row: FolderRow = {
        id: newId('fold', t),
        workspace_id: workspace.id,
        name: input.name,
        name_key: input.name.toLowerCase(),
        description: input.description ?? null,
        type: 'default',
        access_level: input.accessLevel,
        created_at: t,
        updated_at: t,
      };
      await guardDuplicate(input.name, () =>
        store.transaction(async (tx, trx) => {
          await tx.lockWorkspace(workspace.id);
          if (await tx.findByNameKey(workspace.id, row.name_key)) {
            throw new ApiError('conflict', `A folder with the name ${input.name} already exists.`);
          }
          const count = await tx.count(workspace.id);
          assertUnderLimit({ resource: 'folders', count, limit: workspace.folders_limit, plan: workspace.plan });
          await tx.insert(row);
          await tx.syncUsage(workspace.id);
          await record(trx, who, { workspaceId: workspace.id, action: 'folder.create', targetIds: row.id, changes: { name: row.name, accessLevel: row.access_level } });
        }),
      );
      return toFolderResponse(row);
    },

    async list(workspaceId: string, q: ListFoldersQuery): Promise<FolderResponse[]> {
      const rows = await store.list(workspaceId, { search: q.search, limit: q.pageSize, offset: (q.page - 1) * q.pageSize });
      return rows.map(toFolderResponse);
    },

    async get(workspaceId: string, id: string): Promise<FolderResponse> {
      return toFolderResponse(await getRow(workspaceId, id));
    },

    async update(
      workspaceId: string,
      id: string,
      input: { name?: string; description?: string | null; accessLevel?: AccessLevel },
      who?: Who,
    ): Promise<FolderResponse> {
      const existing = await getRow(workspaceId, id);
      const nameKey = input.name?.toLowerCase();
      if (input.name !== undefined && nameKey !== existing.name_key) {
        const other = await store.findByNameKey(workspaceId, nameKey!);
        if (other && other.id !== id) throw new ApiError('conflict', `A folder with the name "${input.name}" already exists.`);
      }
      const patch = {
        ...(input.name !== undefined ? { name: input.name, name_key: nameKey } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(input.accessLevel !== undefined ? { access_level: input.accessLevel } : {}),
      };
      if (Object.keys(patch).length === 0) return toFolderResponse(existing);
      const updatedAt = now();
      await guardDuplicate(`"${input.name}"`, () =>
        store.transaction(async (tx, trx) => {
          await tx.update(workspaceId, id, { ...patch, updated_at: updatedAt });
          await record(trx, who, { workspaceId, action: 'folder.update', targetIds: id, changes: { fields: fieldsOf(input) } });
        }),
      );
      return toFolderResponse({ ...existing, ...patch, updated_at: updatedAt });
    },

    /** Deletes the folder; its links stay and become unsorted (`folderId: null`). */
    async delete(workspaceId: string, id: string, who?: Who): Promise<{ id: string }> {
      const deleted = await store.transaction(async (tx, trx) => {
        const gone = await tx.delete(workspaceId, id, now());
        if (gone) await tx.syncUsage(workspaceId);
        if (gone) await record(trx, who, { workspaceId, action: 'folder.delete', targetIds: id });
        return gone;
      });
      if (!deleted) throw new ApiError('not_found', NOT_FOUND);
      return { id };
    },

    /** True when the folder exists in this workspace (links check `folderId` with it). */
    async folderExists(workspaceId: string, id: string): Promise<boolean> {
      return (await store.findById(workspaceId, id)) !== undefined;
    },
  };
}

export type FolderService = ReturnType<typeof createFolderService>;
