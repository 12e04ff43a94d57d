/**
 * Interpretation of the list and count query parameters: which links a filter selects, and the
 * page. Pure functions, unit-tested without a database.
 */
import { ApiError } from '../http/errors.js';
import { normaliseDomain } from './keys.js';
import type { CountLinksQuery, ListLinksQuery, SortField } from './schema.js';
import type { LinkFilters } from './store.js';

/** Default page size of GET /links (the spec's Limits table). */
export const DEFAULT_PAGE_SIZE = 50;

/** How a caller lists beyond the published query: the dashboard lists every folder's links by default. */
export interface LinkView {
  everyFolder?: boolean;
}

/**
 * Filters of a list or count. As published (behaviour.md §2.1): without `folderId`, and without
 * a search, domain, tag or tenant filter, only links outside folders are selected; `folderId`
 * selects one folder (`unsorted` = outside folders); `view.everyFolder` (the dashboard) drops the
 * outside-folders default. Archived links only with `showArchived`.
 */
export function linkFilters(q: ListLinksQuery | CountLinksQuery, view: LinkView = {}): LinkFilters & { tagNameKeys?: string[] } {
  // tagIds wins over tagNames, which the service resolves to ids (case-insensitively).
  const tagIds = q.tagIds?.length ? q.tagIds : q.tagId ? [q.tagId] : undefined;
  const tagNameKeys = !tagIds && q.tagNames?.length ? q.tagNames.map((n) => n.toLowerCase()) : undefined;
  const narrowed = !!(q.search || q.domain || tagIds || tagNameKeys || q.tenantId);
  let folderId: string | null | undefined;
  if (q.folderId) folderId = q.folderId === 'unsorted' ? null : q.folderId;
  else folderId = narrowed || view.everyFolder ? undefined : null;
  return {
    domain: q.domain ? (normaliseDomain(q.domain) ?? q.domain.toLowerCase()) : undefined,
    tagIds,
    tagNameKeys,
    folderId,
    search: q.search || undefined,
    userId: q.userId || undefined,
    tenantId: q.tenantId || undefined,
    showArchived: q.showArchived ?? false,
    withTags: q.withTags ?? false,
  };
}

/**
 * Sort and window of a list. `sortBy` (or the deprecated `sort`) defaults to createdAt and
 * `sortOrder` to desc. Cursors (`startingAfter`, `endingBefore`) page by createdAt only;
 * `endingBefore` reads backwards from the cursor (the caller reverses the rows).
 */
export function linkPage(q: ListLinksQuery): { sortBy: SortField; sortOrder: 'asc' | 'desc'; offset: number; limit: number } {
  const sortBy = q.sortBy ?? q.sort ?? 'createdAt';
  const sortOrder = q.sortOrder ?? 'desc';
  const limit = q.pageSize ?? DEFAULT_PAGE_SIZE;
  const cursor = q.startingAfter ?? q.endingBefore;
  if (q.startingAfter && q.endingBefore) {
    throw new ApiError('unprocessable_entity', 'You cannot use both startingAfter and endingBefore at the same time.');
  }
  if (cursor && q.page !== undefined && q.page > 1) {
    throw new ApiError('unprocessable_entity', 'You cannot use page together with startingAfter or endingBefore.');
  }
  if (cursor && sortBy !== 'createdAt') {
    throw new ApiError('unprocessable_entity', 'Cursor pagination (startingAfter, endingBefore) only works with sortBy=createdAt.');
  }
  if (q.endingBefore) return { sortBy, sortOrder: sortOrder === 'desc' ? 'asc' : 'desc', offset: 0, limit };
  return { sortBy, sortOrder, offset: cursor ? 0 : ((q.page ?? 1) - 1) * limit, limit };
}
