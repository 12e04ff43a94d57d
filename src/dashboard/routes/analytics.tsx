/**
 * Analytics: `GET /dashboard/w/:slug/analytics?<the API's /analytics parameters>`. The figures are
 * the analytics service's answers to the same query (`analytics/load.ts`); the link, domain, tag
 * and folder choices of the filter form come from the API's list services. The link picker
 * searches as it is typed: `GET …/analytics/link-options?linkSearch=&linkId=` answers its
 * `<option>`s (htmx); without JavaScript the form's `linkSearch` field does the same on *Apply*.
 * `?show=<groupBy>` shows all the rows of that card.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { Kit, WorkspacePage } from '../kit.js';
import { HIDDEN, sendPage } from '../kit.js';
import type { LinkService } from '../../links/service.js';
import { ListDomainsQuery } from '../../domains/schema.js';
import { ListFoldersQuery } from '../../folders/schema.js';
import { ListTagsQuery } from '../../tags/schema.js';
import { apiCallerOf, type PageServices } from '../services.js';
import { loadAnalytics } from '../analytics/load.js';
import { CARDS, analyticsQueryOf, pageParamsOf } from '../analytics/query.js';
import { pageExportTable } from '../analytics/page-export.js';
import { AnalyticsExportQuery } from '../../exports/schema.js';
import { sendAnalyticsExport, sendAnalyticsPageExport } from '../../exports/send.js';
import type { ExportService } from '../../exports/service.js';
import { folderView } from '../folder-view.js';
import { COMPARE_KINDS, MAX_COMPARED, MIN_COMPARED, loadComparison, type CompareKind } from '../analytics/compare.js';
import { ComparePage } from '../pages/compare.js';
import type { GroupedRow } from '../../analytics/shape.js';
import type { PageParams } from '../analytics/query.js';
import { sortOf } from '../analytics/rates.js';
import { AnalyticsPage } from '../pages/analytics.js';
import { MAX_LIST_ITEMS } from '../../http/lists.js';
import { LinkCheckboxes, LinkOptions, type LinkChoice } from '../pages/link-picker.js';
import { callerOf } from './link-choices.js';
import { ApiError } from '../../http/errors.js';
import { parseInput } from '../../users/schema.js';
import type { GroupBy } from '../../analytics/schema.js';
import { z } from 'zod';

/** Links the link picker lists: the newest, or the newest matches of what is typed in its search. */
export const LINK_CHOICES = 50;

const PickerQuery = z.object({
  linkSearch: z.string().max(200).optional().default(''),
  linkId: z.string().max(100).optional().default(''),
  show: z.enum(CARDS.map((c) => c.groupBy) as [GroupBy, ...GroupBy[]]).optional(),
  sort: z.string().max(20).optional(),
  as: z.enum(['options', 'checkboxes']).optional(),
});

/** Most links a picker keeps ticked while it searches: as many as a webhook may name. */
const MAX_TICKED = MAX_LIST_ITEMS;

/** The `link_<id>` checkboxes ticked in a query (the webhook form's picker). */
function tickedLinks(query: unknown): string[] {
  const keys = Object.keys((query ?? {}) as Record<string, unknown>).filter((k) => k.startsWith('link_') && k.length <= 105);
  return keys.slice(0, MAX_TICKED).map((k) => k.slice('link_'.length));
}

/** Choices a comparison offers: the range's top links or campaigns by clicks. */
const COMPARE_CHOICES = 100;

const CompareQuery = z.object({
  by: z.enum(COMPARE_KINDS.map((k) => k.kind) as [CompareKind, ...CompareKind[]]).default('links'),
  id: z.preprocess((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]), z.array(z.string().max(190)).max(MAX_COMPARED)),
});

/** A link as the pickers and the filter chip name it: its title and short link, else its short link. */
export function linkLabel(l: { title: string | null; shortLink: string }): string {
  return l.title ? `${l.title} (${l.shortLink})` : l.shortLink;
}

/**
 * The picker's links: matches of `search` (key or destination, as `GET /links?search=`) in every
 * folder, archived ones too, newest first; the chosen link stays listed even when it does not match.
 */
export async function linkChoices(links: LinkService, page: WorkspacePage, search: string, chosen: string | readonly string[]): Promise<LinkChoice[]> {
  const caller = callerOf(page);
  const found = await links.list(caller, { search: search || undefined, showArchived: true, pageSize: LINK_CHOICES, sortBy: 'createdAt', sortOrder: 'desc' }, { everyFolder: true });
  const rows = found.map((l) => ({ value: l.id, label: linkLabel(l) }));
  const missing = (typeof chosen === 'string' ? [chosen] : chosen).filter((id) => id && !rows.some((r) => r.value === id));
  const kept = await Promise.all(
    missing.map((id) =>
      links.get(caller, id).catch((err) => {
        if (err instanceof ApiError && err.status === 404) return undefined;
        throw err;
      }),
    ),
  );
  for (const link of kept.reverse()) if (link) rows.unshift({ value: link.id, label: linkLabel(link) });
  return rows;
}

export function analyticsRoutes(kit: Kit, services: PageServices, links: LinkService, exports: ExportService): FastifyPluginAsync {
  return async (app) => {
    // With a `groupBy` (or `type`): the API's own export of that grouping. Without: what the page
    // shows, the totals, the time series and every card (analytics/page-export.ts).
    app.get<{ Params: { slug: string }; Querystring: unknown }>('/dashboard/w/:slug/analytics/export', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug);
      const raw = (request.query ?? {}) as Record<string, unknown>;
      const auth = apiCallerOf(page);
      if (raw.groupBy !== undefined || raw.type !== undefined) {
        const { query, view } = folderView(parseInput(AnalyticsExportQuery, request.query));
        return sendAnalyticsExport(reply, exports, auth, page.who, query, view);
      }
      const params = pageParamsOf(request.query);
      const sort = sortOf(raw.sort);
      // Validated now (a bad range is a 422 before the download starts); read once admitted.
      for (const card of CARDS) analyticsQueryOf(params, card.groupBy);
      return sendAnalyticsPageExport(reply, exports, auth, page.who, { ...params, sort }, async () =>
        pageExportTable(await loadAnalytics(services.analytics, auth, params, CARDS, undefined, sort)),
      );
    });

    app.get<{ Params: { slug: string }; Querystring: unknown }>('/dashboard/w/:slug/analytics', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug);
      const params = pageParamsOf(request.query);
      const picker = parseInput(PickerQuery, request.query);
      const auth = apiCallerOf(page);
      const ws = page.workspace.id;
      const [data, linkRows, domains, tags, folders] = await Promise.all([
        loadAnalytics(services.analytics, auth, params, CARDS, picker.show, sortOf(picker.sort)),
        linkChoices(links, page, picker.linkSearch, params.linkId ?? ''),
        services.domains.list(ws, ListDomainsQuery.parse({})),
        services.tags.list(ws, ListTagsQuery.parse({})),
        services.folders.list(ws, ListFoldersQuery.parse({})),
      ]);
      const choices = {
        linkId: linkRows,
        domain: domains.map((d) => ({ value: d.slug, label: d.slug })),
        tagIds: tags.map((t) => ({ value: t.id, label: t.name })),
        folderId: folders.map((f) => ({ value: f.id, label: f.name })),
      };
      const frame = { ...page.frame, workspace: page.frame.workspace! };
      const linkName = params.linkId ? linkRows.find((r) => r.value === params.linkId)?.label : undefined;
      return sendPage(reply, <AnalyticsPage frame={frame} params={params} data={data} choices={choices} linkSearch={picker.linkSearch} linkName={linkName} />);
    });

    // Compare: `?by=links|tags|campaigns&id=…&id=…` (two to five) over one range.
    app.get<{ Params: { slug: string }; Querystring: unknown }>('/dashboard/w/:slug/analytics/compare', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug);
      const q = parseInput(CompareQuery, request.query);
      const all = pageParamsOf(request.query);
      const range = { interval: all.interval ?? (all.start ? undefined : '30d'), start: all.start, end: all.end, timezone: all.timezone };
      const auth = apiCallerOf(page);
      const choices = await compareChoices(q.by, range, auth, page.workspace.id);
      // Only values of the kind that are offered (a kind just changed leaves the old ids behind).
      const chosen = [...new Set(q.id.filter((id) => id && choices.some((c) => c.value === id)))].slice(0, MAX_COMPARED);
      const items = chosen.length >= MIN_COMPARED ? await loadComparison(services.analytics, auth, range, q.by, chosen) : [];
      const frame = { ...page.frame, workspace: page.frame.workspace! };
      return sendPage(reply, <ComparePage frame={frame} range={range} kind={q.by} choices={choices} chosen={chosen} items={items} timezone={range.timezone || 'UTC'} />);
    });

    /** What can be compared: the range's top links (by name) or campaigns, or the workspace's tags. */
    async function compareChoices(by: CompareKind, range: PageParams, auth: ReturnType<typeof apiCallerOf>, workspaceId: string) {
      if (by === 'tags') return (await services.tags.list(workspaceId, ListTagsQuery.parse({}))).map((t) => ({ value: t.id, label: t.name }));
      const { query, view } = folderView(range);
      const groupBy = by === 'links' ? 'top_links' : 'utm_campaigns';
      const rows = (await services.analytics.retrieve(auth, analyticsQueryOf(query, groupBy), view)) as GroupedRow[];
      return rows.slice(0, COMPARE_CHOICES).map((r) =>
        by === 'links' ? { value: String(r.id), label: linkLabel({ title: (r.title as string | null) ?? null, shortLink: String(r.shortLink) }) } : { value: String(r.utm_campaign), label: String(r.utm_campaign) },
      );
    }

    // The link picker's choices for what is typed (pages/link-picker.tsx; htmx swaps them in): the
    // <option>s of the one-link <select>, or with `as=checkboxes` the checkboxes, the ticked
    // `link_<id>` ones kept.
    app.get<{ Params: { slug: string }; Querystring: unknown }>('/dashboard/w/:slug/analytics/link-options', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug);
      const q = parseInput(PickerQuery, request.query);
      if (q.as === 'checkboxes') {
        const ticked = tickedLinks(request.query);
        return sendPage(reply, <LinkCheckboxes links={await linkChoices(links, page, q.linkSearch, ticked)} selected={ticked} />);
      }
      return sendPage(reply, <LinkOptions links={await linkChoices(links, page, q.linkSearch, q.linkId)} selected={q.linkId} />);
    });
  };
}
