/**
 * The dashboard's folder filter. The published API counts only links outside folders when no
 * folder is asked for; the dashboard counts every folder the user can see (all of the workspace's:
 * folders carry no per-user access in Waymark) and offers "Outside folders" as a choice of its own,
 * `folderId=unsorted`, the value `GET /links` already understands.
 *
 * @example
 * const { query, view } = folderView({ folderId: '' });          // view.everyFolder: true
 * const { query, view } = folderView({ folderId: 'unsorted' });  // query without folderId, the API's default
 */
import type { ReadView } from '../analytics/service.js';

/** The "Outside folders" choice (as `GET /links?folderId=unsorted`). */
export const OUTSIDE_FOLDERS = 'unsorted';

/**
 * For the analytics and events services: no folder → every folder; `unsorted` → no `folderId`,
 * which is the API's outside-folders default; a folder id → that folder.
 */
export function folderView<T extends { folderId?: unknown }>(query: T): { query: T; view: ReadView } {
  const folderId = Array.isArray(query.folderId) ? query.folderId.join(',') : query.folderId;
  if (folderId === OUTSIDE_FOLDERS) {
    const { folderId: _f, ...rest } = query;
    return { query: rest as T, view: {} };
  }
  return { query, view: { everyFolder: typeof folderId !== 'string' || folderId.trim() === '' } };
}

/** For the links service (which reads `unsorted` itself): every folder unless one is chosen. */
export function linkView(folderId: string | undefined): ReadView {
  return { everyFolder: !folderId };
}
