/**
 * Folder request and response schemas, and the row → response mapper (behaviour.md §2.4).
 */
import { z } from 'zod';
import type { Selectable } from 'kysely';
import type { FoldersTable } from '../db/tables.js';
import { pageQuery } from '../http/pagination.js';

export type FolderRow = Selectable<FoldersTable>;

/** Largest page of `GET /folders` (published default and maximum). */
export const FOLDERS_MAX_PAGE_SIZE = 50;

export const FOLDER_ACCESS_LEVELS = ['write', 'read'] as const;
export const FOLDER_TYPES = ['default', 'mega'] as const;

/**
 * The published schema sets no minimum length; a blank name cannot be told apart in a list or
 * matched for duplicates, so Waymark asks for one visible character.
 */
const FolderName = z.string().trim().min(1).max(190);
const Description = z.string().max(500).nullish();
const AccessLevel = z.enum(FOLDER_ACCESS_LEVELS).nullable();

export const CreateFolderBody = z.object({
  name: FolderName,
  description: Description,
  accessLevel: AccessLevel.default('write'),
});

export const UpdateFolderBody = z.object({
  name: FolderName.optional(),
  description: Description,
  accessLevel: AccessLevel.optional(),
});

export const FolderParams = z.object({ id: z.string().min(1) });

export const ListFoldersQuery = z.object({
  search: z.string().optional(),
  ...pageQuery({ maxPageSize: FOLDERS_MAX_PAGE_SIZE, defaultPage: 1, defaultPageSize: FOLDERS_MAX_PAGE_SIZE }),
});
export type ListFoldersQuery = z.infer<typeof ListFoldersQuery>;

export const FolderResponse = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    type: z.enum(FOLDER_TYPES),
    accessLevel: z.enum(FOLDER_ACCESS_LEVELS).nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Folder' });
export type FolderResponse = z.infer<typeof FolderResponse>;

export const DeleteFolderResponse = z.object({ id: z.string() });

export function toFolderResponse(row: FolderRow): FolderResponse {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    type: row.type as FolderResponse['type'],
    accessLevel: row.access_level as FolderResponse['accessLevel'],
    createdAt: new Date(Number(row.created_at)).toISOString(),
    updatedAt: new Date(Number(row.updated_at)).toISOString(),
  };
}
