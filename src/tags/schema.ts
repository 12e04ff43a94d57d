/**
 * Tag request and response schemas, and the row → response mapper (behaviour.md §2.3).
 */
import { z } from 'zod';
import { idList } from '../http/lists.js';
import { pageQuery } from '../http/pagination.js';
import type { Selectable } from 'kysely';
import type { TagsTable } from '../db/tables.js';
import { TAG_COLORS } from '../links/response.js';

export type TagRow = Selectable<TagsTable>;
export type TagColor = (typeof TAG_COLORS)[number];

/** Largest page of `GET /tags` (spec, Limits). */
export const TAGS_MAX_PAGE_SIZE = 100;

const TagName = z.string().trim().min(1).max(190);
const TagColorSchema = z.enum(TAG_COLORS, { error: `Invalid color. Must be one of: ${TAG_COLORS.join(', ')}.` });

/** `POST /tags`: `name`, or the deprecated `tag`, is required. */
export const CreateTagBody = z
  .object({
    name: TagName.optional(),
    color: TagColorSchema.optional(),
    /** @deprecated use `name` */
    tag: TagName.optional(),
  })
  .refine((b) => b.name !== undefined || b.tag !== undefined, { message: 'Name is required.', path: ['name'] });

/**
 * `PATCH /tags/{id}`: every field optional. The published service reuses the create schema and so
 * demands `name` even to change only the color; the SDK's update body makes it optional, and
 * accepting `{ color }` alone costs nothing.
 */
export const UpdateTagBody = z.object({
  name: TagName.optional(),
  color: TagColorSchema.optional(),
  /** @deprecated use `name` */
  tag: TagName.optional(),
});

export const TagParams = z.object({ id: z.string().min(1) });

/** `ids=a,b` or `ids=a&ids=b`, as the SDK sends either form (at most 100). */
const IdList = idList();

export const ListTagsQuery = z.object({
  sortBy: z.enum(['name', 'createdAt']).default('name'),
  sortOrder: z.enum(['asc', 'desc']).default('asc'),
  search: z.string().optional(),
  ids: IdList.optional(),
  ...pageQuery({ maxPageSize: TAGS_MAX_PAGE_SIZE, defaultPage: 1, defaultPageSize: TAGS_MAX_PAGE_SIZE }),
});
export type ListTagsQuery = z.infer<typeof ListTagsQuery>;

export const TagResponse = z.object({ id: z.string(), name: z.string(), color: z.enum(TAG_COLORS) }).meta({ id: 'Tag' });
export type TagResponse = z.infer<typeof TagResponse>;

export const DeleteTagResponse = z.object({ id: z.string() });

export function toTagResponse(row: Pick<TagRow, 'id' | 'name' | 'color'>): TagResponse {
  return { id: row.id, name: row.name, color: row.color as TagColor };
}
