/**
 * Groupings over link attributes (top_links, top_folders, top_link_tags, top_partners), pure:
 * per-link rows plus the links' current attributes → the published rows. Rows of links that no
 * longer exist are dropped (behaviour.md §7.3).
 */
import type { LinkTagResponse } from '../links/response.js';
import type { LinkSummary } from './lookups.js';
import type { AnalyticsEvent, GroupBy } from './schema.js';
import { finish, reported, type ApiMetrics, type GroupedRow, type MergedRow } from './shape.js';

export interface LinkGroupData {
  links: ReadonlyMap<string, LinkSummary>;
  tags?: ReadonlyMap<string, LinkTagResponse[]>;
  folders?: ReadonlyMap<string, { id: string; name: string; access_level: string | null }>;
}

function add(into: ApiMetrics, m: ApiMetrics): void {
  into.clicks += m.clicks;
  into.leads += m.leads;
  into.sales += m.sales;
  into.saleAmount += m.saleAmount;
}

/** Shapes one link-attribute grouping from rows keyed by link id. */
export function shapeLinkGroups(groupBy: GroupBy, event: AnalyticsEvent, merged: readonly MergedRow[], data: LinkGroupData): GroupedRow[] {
  const present = merged.filter((r) => data.links.has(r.g[0]!)).map((r) => ({ link: data.links.get(r.g[0]!)!, m: reported(event, r) }));

  if (groupBy === 'top_links') {
    const rows = present.map(({ link: l, m }) => ({
      link: l.id, id: l.id, domain: l.domain, key: l.key, shortLink: l.short_link, url: l.url, title: l.title, comments: l.comments,
      folderId: l.folder_id, partnerId: l.partner_id, createdAt: new Date(Number(l.created_at)).toISOString(), ...m,
    }));
    return finish(event, rows, (r) => r.id);
  }

  // A link counts once for each of its values (two tags → both tags).
  const valuesOf = (l: LinkSummary): string[] => {
    if (groupBy === 'top_link_tags') return (data.tags?.get(l.id) ?? []).map((t) => t.id);
    const v = groupBy === 'top_folders' ? l.folder_id : l.partner_id;
    return v ? [v] : [];
  };
  const byValue = new Map<string, ApiMetrics>();
  for (const { link, m } of present) {
    for (const v of valuesOf(link)) {
      const acc = byValue.get(v) ?? { clicks: 0, leads: 0, sales: 0, saleAmount: 0 };
      add(acc, m);
      byValue.set(v, acc);
    }
  }

  if (groupBy === 'top_folders') {
    const rows = [...byValue].flatMap(([id, m]) => {
      const f = data.folders?.get(id);
      return f ? [{ folderId: id, folder: { id, name: f.name, accessLevel: f.access_level }, ...m }] : [];
    });
    return finish(event, rows, (r) => r.folderId);
  }
  if (groupBy === 'top_link_tags') {
    const tagInfo = new Map<string, LinkTagResponse>();
    for (const list of data.tags?.values() ?? []) for (const t of list) tagInfo.set(t.id, t);
    const rows = [...byValue].map(([id, m]) => ({ tagId: id, tag: tagInfo.get(id)!, ...m }));
    return finish(event, rows, (r) => r.tagId);
  }
  // Partners are referenced by id only; Waymark holds no partner profiles.
  const rows = [...byValue].map(([id, m]) => ({
    partnerId: id,
    partner: { id, name: null, email: null, image: null, payoutsEnabledAt: null, country: null },
    ...m,
  }));
  return finish(event, rows, (r) => r.partnerId);
}
