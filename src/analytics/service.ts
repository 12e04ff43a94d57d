/**
 * The rules of `GET /analytics` and `GET /events`: access checks, range, filters, link scope,
 * then the event store's aggregate or page, shaped into the published responses with the links,
 * tags and customers they name. Reads go through the event store and the reader (a worker thread
 * on a SQLite file), so nothing here blocks the event loop on I/O.
 */
import type { CompiledQuery, Kysely } from 'kysely';
import type { Database } from '../db/tables.js';
import { buildScope, hasLinkFilter, MAX_INLINE_IDS, type AggregateSpec, type EventKind, type EventRow, type EventLog, type LinkScope, type SqlRunner } from '../events/index.js';
import { ApiError } from '../http/errors.js';
import type { AuthContext } from '../workspaces/service.js';
import { planLabel } from '../workspaces/plans.js';
import { toLinkResponse, type LinkResponse, type LinkUrlSettings } from '../links/response.js';
import { parseFilters, type ParsedFilters } from './filters.js';
import { assertRangeAllowedForPlan, bucketStarts, resolveRange, type TimeRange } from './range.js';
import type { AnalyticsEvent, AnalyticsQuery, EventRecord, EventsQuery, GroupBy } from './schema.js';
import { GROUP_COLUMNS, reported, shapeColumnGroups, type ApiMetrics, type GroupedRow, type MergedRow } from './shape.js';
import { toEventRecord } from './event-records.js';
import { byId, customersQuery, foldersQuery, linkByExternalIdQuery, linkByKeyQuery, linksQueries, tagsByLink, tagsQueries, webhookIdsByLink, webhookIdsQueries, type CustomerRow, type LinkRow, type LinkSummary } from './lookups.js';
import { shapeLinkGroups } from './link-groups.js';
import { formatZoned } from './zoned-time.js';
import { attributedRows, storedCredits, withStoredCredits } from './attributed.js';

const DAY_MS = 86_400_000;
/** The attribution window when `lookbackDays` is absent: the published click cookie's 90 days. */
const DEFAULT_LOOKBACK_DAYS = 90;

export interface AnalyticsServiceDeps {
  /** Builds the look-up queries of links, tags and customers, which run on `reader`. */
  db: Kysely<Database>;
  reader: SqlRunner;
  events: EventLog;
  now: () => number;
  linkSettings: LinkUrlSettings;
  /** Whether the credits written with the sales cover every sale (attribution/backfill.ts); absent: never. */
  creditsReady?: () => Promise<boolean>;
}


/**
 * How a caller reads beyond the published query: the dashboard counts links in every folder when
 * no folder is asked for (`everyFolder`); the API never passes it.
 */
export interface ReadView {
  everyFolder?: boolean;
}

/** Shaped links an export keeps between pages (a few MB at most). */
const LINK_CACHE_MAX = 5_000;

const KINDS: Record<AnalyticsEvent, EventKind[]> = {
  clicks: ['click'],
  leads: ['lead'],
  sales: ['sale'],
  composite: ['click', 'lead', 'sale'],
};

/** Published over-quota answer (behaviour.md §8): analytics stop, redirects go on. */
function assertUsage(auth: AuthContext): void {
  const ws = auth.workspace;
  if (Number(ws.usage) > Number(ws.usage_limit)) {
    throw new ApiError(
      'forbidden',
      `You've reached your monthly limit of ${ws.usage_limit} clicks on the ${planLabel(ws.plan)} plan. Go yearly for 12x usage upfront, or upgrade for higher limits.`,
    );
  }
}

/** `interval=all` as a timeseries: its range starts at the workspace's first data (range.ts). */
function allTimeSeries(q: AnalyticsQuery | EventsQuery, timeseries: boolean): boolean {
  return timeseries && !q.start && q.interval === 'all';
}

/** `sortOrder` wins; the SDK always sends both with `desc` defaults, so an `asc` in either means ascending. */
export function resolveSortOrder(sortOrder?: 'asc' | 'desc', order?: 'asc' | 'desc'): 'asc' | 'desc' {
  if (sortOrder && order) return sortOrder === 'asc' || order === 'asc' ? 'asc' : 'desc';
  return sortOrder ?? order ?? 'desc';
}

export function createAnalyticsService(deps: AnalyticsServiceDeps) {
  const { db, events } = deps;
  const runner = deps.reader;

  async function one<T>(query: CompiledQuery): Promise<T[]> {
    const [rows] = await runner.run([query]);
    return rows as T[];
  }

  /** `domain`+`key` or `externalId` → a link id of this workspace (behaviour.md §1.8 errors). */
  async function resolveLookup(workspaceId: string, lookup: NonNullable<ParsedFilters['lookup']>): Promise<string> {
    if ('externalId' in lookup) {
      const prefixed = lookup.externalId.startsWith('ext_');
      const externalId = prefixed ? lookup.externalId.slice(4) : lookup.externalId;
      const [row] = await one<{ id: string }>(linkByExternalIdQuery(db, workspaceId, externalId));
      if (row) return row.id;
      if (!prefixed) throw new ApiError('bad_request', 'Invalid externalId. Did you forget to prefix it with `ext_`?');
      throw new ApiError('not_found', 'Link not found.');
    }
    // Keys are unique per domain without regard to case, across workspaces (redirect lookup).
    const [row] = await one<{ id: string; workspace_id: string }>(linkByKeyQuery(db, lookup.domain, lookup.key));
    // Another workspace's link answers exactly like a missing one: a different status would tell
    // a caller which domain/key pairs exist elsewhere (the published service answers 401 here).
    if (!row || row.workspace_id !== workspaceId) throw new ApiError('not_found', 'Link not found.');
    return row.id;
  }

  async function resolveScope(workspaceId: string, filters: ParsedFilters, view: ReadView): Promise<LinkScope> {
    const links = { ...filters.links };
    if (filters.lookup) links.ids = { op: 'in', values: [await resolveLookup(workspaceId, filters.lookup)] };
    const input = { workspaceId, links, named: links.ids?.op === 'in', everyFolder: view.everyFolder === true };
    if (links.matchesNothing || !hasLinkFilter(links)) return buildScope(input);
    return buildScope(input, await events.scopeLinkIds(input, MAX_INLINE_IDS));
  }

  async function prepare(auth: AuthContext, q: AnalyticsQuery | EventsQuery, timeseries: boolean, view: ReadView) {
    assertUsage(auth);
    const ws = auth.workspace;
    const ctx = { now: deps.now(), workspaceCreatedAt: Number(ws.created_at), timeseries };
    let range = resolveRange(q, ctx);
    assertRangeAllowedForPlan(ws.plan, q, range, ctx.workspaceCreatedAt);
    const filters = parseFilters(q);
    const scope = await resolveScope(auth.workspaceId, filters, view);
    if (allTimeSeries(q, timeseries)) {
      const firstEventAt = await firstEventOf(auth.workspaceId, ctx.now);
      if (firstEventAt !== undefined && firstEventAt < range.from) range = resolveRange(q, { ...ctx, firstEventAt });
    }
    return { range, filters, scope };
  }

  /**
   * The workspace's oldest event (imported or migrated events may predate the workspace), of any
   * kind, link or folder, so every filter of one workspace shares one series: the event list's
   * oldest-first page of one, a seek on every store's (workspace, timestamp) order. Only disabled
   * links' events are not looked at, as the workspace's own scope leaves them out.
   */
  async function firstEventOf(workspaceId: string, now: number): Promise<number | undefined> {
    const scope = buildScope({ workspaceId, links: {}, named: false, everyFolder: true });
    const spec: AggregateSpec = { workspaceId, kinds: KINDS.composite, group: [], timeseries: false, dims: [], conversions: {}, scope };
    const [first] = await events.page(spec, { from: 0, to: now + 1 }, { order: 'asc', limit: 1, offset: 0 });
    return first ? Number(first.timestamp) : undefined;
  }

  function specOf(workspaceId: string, kinds: EventKind[], group: AggregateSpec['group'], timeseries: boolean, filters: ParsedFilters, scope: LinkScope): AggregateSpec {
    const { customerId, saleType, metadata, ref } = filters;
    return { workspaceId, kinds, group, timeseries, dims: filters.dims, conversions: { customerId, saleType, metadata, ref }, scope };
  }

  /** Groupings keyed by link attributes: the links (and tags or folders) in one batch, then shaped. */
  async function linkGroups(workspaceId: string, groupBy: GroupBy, event: AnalyticsEvent, merged: MergedRow[]) {
    const ids = merged.map((r) => r.g[0]!);
    const linkQs = linksQueries(db, workspaceId, ids, 'summary');
    const extraQs = groupBy === 'top_link_tags' ? tagsQueries(db, workspaceId, ids) : groupBy === 'top_folders' ? [foldersQuery(db, workspaceId)] : [];
    const results = await runner.run([...linkQs, ...extraQs]);
    const extra = results.slice(linkQs.length);
    return shapeLinkGroups(groupBy, event, merged, {
      links: byId<LinkSummary>(results.slice(0, linkQs.length)),
      tags: groupBy === 'top_link_tags' ? tagsByLink(extra) : undefined,
      folders: groupBy === 'top_folders' ? byId(extra) : undefined,
    });
  }

  function timeseriesRows(range: TimeRange, event: AnalyticsEvent, merged: MergedRow[]) {
    const starts = bucketStarts(range);
    const totals = starts.map(() => ({ clicks: 0, leads: 0, sales: 0, sale_amount: 0 }));
    for (const r of merged) {
      // The last bucket that starts at or before the slot.
      let lo = 0;
      let hi = starts.length - 1;
      const slot = r.slot ?? 0;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (starts[mid]! <= slot) lo = mid;
        else hi = mid - 1;
      }
      const t = totals[lo];
      if (!t) continue;
      t.clicks += r.clicks;
      t.leads += r.leads;
      t.sales += r.sales;
      t.sale_amount += r.sale_amount;
    }
    return starts.map((s, i) => ({ start: formatZoned(s, range.timezone), ...reported(event, totals[i]!) }));
  }

  /**
   * Event rows shaped as the published records, with their links, tags, webhooks and customers.
   * `linkCache` (an export's walk) keeps the shaped links between pages, so a page asks only for
   * links it has not met; the caller bounds its size.
   */
  async function recordsOf(workspaceId: string, rows: EventRow[], linkCache = new Map<string, LinkResponse>()): Promise<EventRecord[]> {
    if (!rows.length) return [];
    const linkIds = [...new Set(rows.map((r) => r.link_id))].filter((id) => !linkCache.has(id));
    const customerIds = rows.map((r) => r.customer_id).filter((c): c is string => !!c);
    const linkQs = linkIds.length ? linksQueries(db, workspaceId, linkIds, 'all') : [];
    const tagQs = linkIds.length ? tagsQueries(db, workspaceId, linkIds) : [];
    const hookQs = linkIds.length ? webhookIdsQueries(db, workspaceId, linkIds) : [];
    const results = await runner.run([...linkQs, ...tagQs, ...hookQs, ...(customerIds.length ? [customersQuery(db, workspaceId, customerIds)] : [])]);
    const links = byId<LinkRow>(results.slice(0, linkQs.length));
    const tags = tagsByLink(results.slice(linkQs.length, linkQs.length + tagQs.length));
    const hooks = webhookIdsByLink(results.slice(linkQs.length + tagQs.length, linkQs.length + tagQs.length + hookQs.length));
    const customers = byId<CustomerRow>(results.slice(linkQs.length + tagQs.length + hookQs.length));
    for (const [id, link] of links) linkCache.set(id, toLinkResponse(link, tags.get(id) ?? [], deps.linkSettings, hooks.get(id) ?? []));
    const out: EventRecord[] = [];
    for (const r of rows) {
      const link = linkCache.get(r.link_id);
      // A link deleted between the page query and this one: dropped like any deleted link's events.
      if (link) out.push(toEventRecord(r, link, customers));
    }
    return out;
  }

  return {
    /** `GET /analytics`. */
    async retrieve(auth: AuthContext, q: AnalyticsQuery, view: ReadView = {}): Promise<ApiMetrics | GroupedRow[]> {
      if (auth.workspace.plan === 'free') throw new ApiError('forbidden', 'Analytics API is only available on paid plans.');
      const groupBy: GroupBy = q.type ?? q.groupBy ?? 'count';
      const timeseries = groupBy === 'timeseries';
      const { range, filters, scope } = await prepare(auth, q, timeseries, view);
      const event = q.event;
      const empty = { clicks: 0, leads: 0, sales: 0, sale_amount: 0 };

      if (groupBy === 'top_groups' || groupBy === 'top_partner_tags') return [];
      if (scope.empty) {
        if (groupBy === 'count') return reported(event, empty);
        if (timeseries) return timeseriesRows(range, event, []);
        return [];
      }
      const spec = specOf(auth.workspaceId, KINDS[event], GROUP_COLUMNS[groupBy], timeseries, filters, scope);
      const boundaries = timeseries ? bucketStarts(range).slice(1) : undefined;
      // The default lookback reads the credits written with the sales (docs/decisions/0015), beside
      // the aggregate (on DuckDB two reads of the event file at once); a query's own lookbackDays,
      // or credits not backfilled yet, the read-time path.
      const stored = q.attribution && q.attribution !== 'last_click' && q.lookbackDays === undefined;
      const ready = stored ? (deps.creditsReady?.() ?? Promise.resolve(false)) : Promise.resolve(false);
      const credits = stored ? storedCredits(events, spec, range, q.attribution!) : null;
      // Both awaited below only on their path: no failure left unhandled if the aggregate fails first.
      ready.catch(() => undefined);
      credits?.catch(() => undefined);
      let merged = await events.aggregate(spec, range, boundaries);
      if (q.attribution && q.attribution !== 'last_click') {
        if (await ready) merged = withStoredCredits(merged, await credits);
        else {
          const lookbackMs = (q.lookbackDays ?? DEFAULT_LOOKBACK_DAYS) * DAY_MS;
          merged = await attributedRows(events, spec, range, merged, { model: q.attribution, lookbackMs });
        }
      }

      if (groupBy === 'count') return reported(event, merged[0] ?? empty);
      if (timeseries) return timeseriesRows(range, event, merged);
      if (GROUP_COLUMNS[groupBy][0] === 'link_id') return linkGroups(auth.workspaceId, groupBy, event, merged);
      return shapeColumnGroups(groupBy, event, merged);
    },

    /** `GET /events`. */
    async listEvents(auth: AuthContext, q: EventsQuery, view: ReadView = {}): Promise<EventRecord[]> {
      const { range, filters, scope } = await prepare(auth, q, false, view);
      if (scope.empty) return [];
      const kind = KINDS[q.event][0]!;
      const spec = specOf(auth.workspaceId, [kind], [], false, filters, scope);
      const order = resolveSortOrder(q.sortOrder, q.order);
      return recordsOf(auth.workspaceId, await events.page(spec, range, { order, limit: q.limit, offset: (q.page - 1) * q.limit }));
    },

    /**
     * One page of `GET /events`'s list walked by keyset instead of `page` (the dashboard's event
     * log): newest first, `older` than a cursor or `newer` than one, so the thousandth page costs
     * what the first does. Cursors are the (timestamp, id) of the page's first and last events;
     * `newer`/`older` in the answer are absent when there is nothing that way.
     */
    async eventCursorPage(auth: AuthContext, q: Omit<EventsQuery, 'page'>, at: { older?: EventCursor; newer?: EventCursor } = {}, view: ReadView = {}): Promise<EventCursorPage> {
      const { range, filters, scope } = await prepare(auth, { ...q, page: 1 }, false, view);
      if (scope.empty) return { records: [] };
      const spec = specOf(auth.workspaceId, [KINDS[q.event][0]!], [], false, filters, scope);
      const towardNewer = !!at.newer && !at.older;
      const rows = await events.page(spec, range, { order: towardNewer ? 'asc' : 'desc', limit: q.limit + 1, offset: 0, after: towardNewer ? at.newer : at.older });
      const more = rows.length > q.limit;
      const shown = rows.slice(0, q.limit);
      if (towardNewer) shown.reverse();
      const cursorOf = (r: EventRow): EventCursor => ({ timestamp: Number(r.timestamp), id: r.id });
      const first = shown[0];
      const last = shown[shown.length - 1];
      return {
        records: await recordsOf(auth.workspaceId, shown),
        newer: first && (towardNewer ? more : !!at.older) ? cursorOf(first) : undefined,
        older: last && (towardNewer ? true : more) ? cursorOf(last) : undefined,
      };
    },

    /**
     * Every event `GET /events` would list for these filters (all pages), as pages of records
     * walked by keyset, for exports. The checks run now (they throw before anything is sent);
     * the pages are read as the returned iterator is pulled, so a slow reader holds one page.
     */
    async eventPages(auth: AuthContext, q: Omit<EventsQuery, 'page' | 'limit'>, pageSize = 1000, view: ReadView = {}): Promise<AsyncGenerator<EventRecord[]>> {
      const { range, filters, scope } = await prepare(auth, { ...q, page: 1, limit: pageSize }, false, view);
      const spec = specOf(auth.workspaceId, [KINDS[q.event][0]!], [], false, filters, scope);
      const order = resolveSortOrder(q.sortOrder, q.order);
      return (async function* () {
        if (scope.empty) return;
        let after: { timestamp: number; id: string } | undefined;
        const linkCache = new Map<string, LinkResponse>();
        for (;;) {
          const rows = await events.page(spec, range, { order, limit: pageSize, offset: 0, after });
          // Bounded: a workspace with more links than this starts over rather than holding them all.
          if (linkCache.size > LINK_CACHE_MAX) linkCache.clear();
          if (rows.length) yield await recordsOf(auth.workspaceId, rows, linkCache);
          if (rows.length < pageSize) return;
          const last = rows[rows.length - 1]!;
          after = { timestamp: Number(last.timestamp), id: last.id };
        }
      })();
    },
  };
}

export type AnalyticsService = ReturnType<typeof createAnalyticsService>;

/** A place in the event list: an event's time (ms) and id, the list's keyset order. */
export interface EventCursor {
  timestamp: number;
  id: string;
}

export interface EventCursorPage {
  records: EventRecord[];
  /** The cursor of the page before (newer events), if there are any. */
  newer?: EventCursor;
  /** The cursor of the page after (older events), if there are any. */
  older?: EventCursor;
}
