/**
 * Which links a query counts. Link attributes (folder, tags, tenant, domain, root …) change over
 * time and are not copied onto events, so link filters are resolved at query time into a set of link ids (a list when it is short; a SQL store
 * reads the `links` table it shares through a subquery otherwise: sql/link-scope.ts).
 *
 * Two shapes:
 * - `workspace`: no link filter. Every link counts except the left-out ones: disabled links
 *   ("its stats are excluded from overall stats", spec: Link.disabledAt) and, when no `folderId`
 *   is given, links in folders (spec: "folderId — when absent, unsorted links are used"),
 *   unless the caller asks for every folder (`everyFolder`: the dashboard).
 * - `set`: a link filter. Only matching links count; disabled links only when named by id.
 */
import type { LinkFilters, LinkScope, ScopeInput } from './event-store.js';

export type { LinkScope, ScopeInput } from './event-store.js';

/** Ids inline up to this many; beyond, a store resolves the scope itself. */
export const MAX_INLINE_IDS = 1000;

/**
 * Whether the spec's unsorted-links default applies: no folder filter, no link named by id, and
 * not the dashboard's every-folder view.
 */
export function usesUnsortedDefault(input: ScopeInput): boolean {
  return input.links.folderId === undefined && !input.named && !input.everyFolder;
}

/** True when a link filter beyond the defaults is present (→ `set` mode). */
export function hasLinkFilter(links: LinkFilters): boolean {
  return (
    !!links.ids || !!links.domain || !!links.tenantId || !!links.programId || !!links.partnerId ||
    !!links.folderId || !!links.tagIds || links.root !== undefined || !!links.matchesNothing
  );
}

/**
 * Builds the scope; `ids` are the listed members of a `set` scope (EventLog.scopeLinkIds, which
 * returns at most MAX_INLINE_IDS + 1). A workspace scope needs no listing.
 */
export function buildScope(input: ScopeInput, ids?: string[]): LinkScope {
  if (!hasLinkFilter(input.links)) return { mode: 'workspace', input, empty: false };
  const found = ids ?? [];
  const inline = found.length <= MAX_INLINE_IDS ? found : undefined;
  return { mode: 'set', input, ids: inline, empty: !!input.links.matchesNothing || found.length === 0 };
}
