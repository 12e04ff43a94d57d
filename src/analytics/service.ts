/**
 * The rules of `GET /analytics` and `GET /events`: access checks, range, filters, link scope,
 * then the planned parts (planner.ts) run on the SQL runner and merged into the published shapes.
 * Every read goes through the runner, so on SQLite nothing here blocks the event loop on I/O.
 */
import type { CompiledQuery, Kysely, Selectable } from 'kysely';
import type { Database, LinksTable } from '../db/tables.js';
import type { Dialect } from '../db/dialect.js';
import { ApiError } from '../http/errors.js';
import type { AuthContext } from '../workspaces/service.js';
import { planLabel } from '../workspaces/plans.js';
import { toLinkResponse, type LinkTagResponse, type LinkUrlSettings } from '../links/response.js';
import { aggregateParts } from './aggregate.js';
import type { AggregateSpec, EventKind } from './aggregate-sql.js';
import { eventPageQuery } from './aggregate-sql.js';
import { parseFilters, type ParsedFilters } from './filters.js';
import { buildScope, scopeIdsQuery, type LinkScope } from './link-scope.js';
import { assertRangeAllowedForPlan, bucketStarts, resolveRange, type TimeRange } from './range.js';
import type { AnalyticsEvent, AnalyticsQuery, EventRecord, EventsQuery, GroupBy } from './schema.js';
import { GROUP_COLUMNS, finish, reported, shapeColumnGroups, type ApiMetrics, type GroupedRow, type MergedRow } from './shape.js';
import type { SqlRunner } from './sql-runner.js';
import { toEventRecord, type CustomerRow, type EventRow } from './event-records.js';
import { formatZoned } from './zoned-time.js';

export interface AnalyticsServiceDeps {
  db: Kysely<Database>;
  dialect: Dialect;
  runner: SqlRunner;
  now: () => number;
  linkSettings: LinkUrlSettings;
  /** When false every query reads the raw events: tests compare both paths, the benchmark times both. */
  useRollups?: boolean;
}

type LinkRow = Selectable<LinksTable>;

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

/** `sortOrder` wins; the SDK always sends both with `desc` defaults, so an `asc` in either means ascending. */
export function resolveSortOrder(sortOrder?: 'asc' | 'desc', order?: 'asc' | 'desc'): 'asc' | 'desc' {
  if (sortOrder && order) return sortOrder === 'asc' || order === 'asc' ? 'asc' : 'desc';
  return sortOrder ?? order ?? 'desc';
}

export function createAnalyticsService(deps: AnalyticsServiceDeps) {
  const { db, dialect, runner } = deps;
  const useRollups = deps.useRollups ?? true;

  async function one<T>(query: CompiledQuery): Promise<T[]> {
    const [rows] = await runner.run([query]);
    return rows as T[];
  }

  /** `domain`+`key` or `externalId` → a link id of this workspace (behaviour.md §1.8 errors). */
  async function resolveLookup(workspaceId: string, lookup: NonNullable<ParsedFilters['lookup']>): Promise<string> {
    if ('externalId' in lookup) {
      const prefixed = lookup.externalId.startsWith('ext_');
      const externalId = prefixed ? lookup.externalId.slice(4) : lookup.externalId;
      const [row] = await one<{ id: string }>(
        db.selectFrom('links').select('id').where('workspace_id', '=', workspaceId).where('external_id', '=', externalId).compile(),
      );
      if (row) return row.id;
      if (!prefixed) throw new ApiError('bad_request', 'Invalid externalId. Did you forget to prefix it with `ext_`?');
      throw new ApiError('not_found', 'Link not found.');
    }
    // Keys are unique per domain without regard to case, across workspaces (redirect lookup).
    const [row] = await one<{ id: string; workspace_id: string }>(
      db
        .selectFrom('links')
        .select(['id', 'workspace_id'])
        .where('domain', '=', lookup.domain.toLowerCase())
        .where('key_lower', '=', lookup.key.toLowerCase())
        .compile(),
    );
    if (!row) throw new ApiError('not_found', 'Link not found.');
    if (row.workspace_id !== workspaceId) throw new ApiError('unauthorized', `Link does not belong to workspace ${workspaceId}.`);
    return row.id;
  }

  async function resolveScope(workspaceId: string, filters: ParsedFilters): Promise<LinkScope> {
    const links = { ...filters.links };
    if (filters.lookup) links.ids = { op: 'in', values: [await resolveLookup(workspaceId, filters.lookup)] };
    const input = { workspaceId, links, named: links.ids?.op === 'in' };
    if (links.matchesNothing) return buildScope(input, []);
    const ids = (await one<{ id: string }>(scopeIdsQuery(db, input))).map((r) => r.id);
    return buildScope(input, ids);
  }

  async function prepare(auth: AuthContext, q: AnalyticsQuery | EventsQuery, timeseries: boolean) {
    assertUsage(auth);
    const ws = auth.workspace;
    const range = resolveRange(q, { now: deps.now(), workspaceCreatedAt: Number(ws.created_at), timeseries });
    assertRangeAllowedForPlan(ws.plan, q, range, Number(ws.created_at));
    const filters = parseFilters(q);
    const scope = await resolveScope(auth.workspaceId, filters);
    return { range, filters, scope };
  }

  function specOf(workspaceId: string, kinds: EventKind[], group: AggregateSpec['group'], timeseries: boolean, filters: ParsedFilters, scope: LinkScope): AggregateSpec {
    const { customerId, saleType, metadata, ref } = filters;
    return { workspaceId, kinds, group, timeseries, dims: filters.dims, conversions: { customerId, saleType, metadata, ref }, scope };
  }

  async function loadLinks(workspaceId: string, ids: readonly string[]): Promise<Map<string, LinkRow>> {
    const out = new Map<string, LinkRow>();
    const unique = [...new Set(ids)];
    for (let i = 0; i < unique.length; i += 500) {
      const rows = await one<LinkRow>(
        db.selectFrom('links').selectAll().where('workspace_id', '=', workspaceId).where('id', 'in', unique.slice(i, i + 500)).compile(),
      );
      for (const r of rows) out.set(r.id, r);
    }
    return out;
  }

  async function loadTags(workspaceId: string, linkIds: readonly string[]): Promise<Map<string, LinkTagResponse[]>> {
    const out = new Map<string, LinkTagResponse[]>();
    const unique = [...new Set(linkIds)];
    for (let i = 0; i < unique.length; i += 500) {
      const rows = await one<{ link_id: string; id: string; name: string; color: string }>(
        db
          .selectFrom('link_tags')
          .innerJoin('tags', 'tags.id', 'link_tags.tag_id')
          .select(['link_tags.link_id', 'tags.id', 'tags.name', 'tags.color'])
          .where('link_tags.workspace_id', '=', workspaceId)
          .where('link_tags.link_id', 'in', unique.slice(i, i + 500))
          .orderBy('link_tags.link_id')
          .orderBy('link_tags.position')
          .compile(),
      );
      for (const r of rows) {
        const list = out.get(r.link_id) ?? [];
        list.push({ id: r.id, name: r.name, color: r.color as LinkTagResponse['color'] });
        out.set(r.link_id, list);
      }
    }
    return out;
  }

  /** Groupings keyed by link attributes: expand per-link rows through the links (and tags, folders). */
  async function shapeLinkGroups(workspaceId: string, groupBy: GroupBy, event: AnalyticsEvent, merged: MergedRow[]) {
    const perLink = merged.map((r) => ({ linkId: r.g[0]!, m: reported(event, r) }));
    const links = await loadLinks(workspaceId, perLink.map((r) => r.linkId));
    const present = perLink.filter((r) => links.has(r.linkId));
    const sum = (into: ApiMetrics, m: ApiMetrics) => {
      into.clicks += m.clicks;
      into.leads += m.leads;
      into.sales += m.sales;
      into.saleAmount += m.saleAmount;
    };
    const zero = (): ApiMetrics => ({ clicks: 0, leads: 0, sales: 0, saleAmount: 0 });

    if (groupBy === 'top_links') {
      const rows = present.map(({ linkId, m }) => {
        const l = links.get(linkId)!;
        return {
          link: l.id, id: l.id, domain: l.domain, key: l.key, shortLink: l.short_link, url: l.url, title: l.title,
          comments: l.comments, folderId: l.folder_id, partnerId: l.partner_id, createdAt: new Date(Number(l.created_at)).toISOString(), ...m,
        };
      });
      return finish(event, rows, (r) => r.id);
    }

    const byKey = new Map<string, ApiMetrics>();
    const attribute = async (): Promise<Map<string, string[]>> => {
      const out = new Map<string, string[]>();
      if (groupBy === 'top_link_tags') {
        for (const [linkId, tags] of await loadTags(workspaceId, present.map((r) => r.linkId))) out.set(linkId, tags.map((t) => t.id));
        return out;
      }
      for (const { linkId } of present) {
        const l = links.get(linkId)!;
        const v = groupBy === 'top_folders' ? l.folder_id : l.partner_id;
        if (v) out.set(linkId, [v]);
      }
      return out;
    };
    const keysOf = await attribute();
    for (const { linkId, m } of present) {
      for (const k of keysOf.get(linkId) ?? []) {
        const acc = byKey.get(k) ?? zero();
        sum(acc, m);
        byKey.set(k, acc);
      }
    }
    const keys = [...byKey.keys()];
    if (groupBy === 'top_folders') {
      const folders = keys.length
        ? await one<{ id: string; name: string; access_level: string | null }>(
            db.selectFrom('folders').select(['id', 'name', 'access_level']).where('workspace_id', '=', workspaceId).where('id', 'in', keys).compile(),
          )
        : [];
      const rows = folders.map((f) => ({ folderId: f.id, folder: { id: f.id, name: f.name, accessLevel: f.access_level }, ...byKey.get(f.id)! }));
      return finish(event, rows, (r) => r.folderId);
    }
    if (groupBy === 'top_link_tags') {
      const tags = keys.length
        ? await one<{ id: string; name: string; color: string }>(
            db.selectFrom('tags').select(['id', 'name', 'color']).where('workspace_id', '=', workspaceId).where('id', 'in', keys).compile(),
          )
        : [];
      const rows = tags.map((t) => ({ tagId: t.id, tag: { id: t.id, name: t.name, color: t.color }, ...byKey.get(t.id)! }));
      return finish(event, rows, (r) => r.tagId);
    }
    // Partners are referenced by id only; Waymark holds no partner profiles.
    const rows = keys.map((id) => ({
      partnerId: id,
      partner: { id, name: null, email: null, image: null, payoutsEnabledAt: null, country: null },
      ...byKey.get(id)!,
    }));
    return finish(event, rows, (r) => r.partnerId);
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

  return {
    /** `GET /analytics`. */
    async retrieve(auth: AuthContext, q: AnalyticsQuery): Promise<ApiMetrics | GroupedRow[]> {
      if (auth.workspace.plan === 'free') throw new ApiError('forbidden', 'Analytics API is only available on paid plans.');
      const groupBy: GroupBy = q.type ?? q.groupBy ?? 'count';
      const timeseries = groupBy === 'timeseries';
      const { range, filters, scope } = await prepare(auth, q, timeseries);
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
      const merged = await aggregateParts({ db, dialect, runner, useRollups }, spec, range, boundaries);

      if (groupBy === 'count') return reported(event, merged[0] ?? empty);
      if (timeseries) return timeseriesRows(range, event, merged);
      if (GROUP_COLUMNS[groupBy][0] === 'link_id') return shapeLinkGroups(auth.workspaceId, groupBy, event, merged);
      return shapeColumnGroups(groupBy, event, merged);
    },

    /** `GET /events`. */
    async listEvents(auth: AuthContext, q: EventsQuery): Promise<EventRecord[]> {
      const { range, filters, scope } = await prepare(auth, q, false);
      if (scope.empty) return [];
      const kind = KINDS[q.event][0]!;
      const spec = specOf(auth.workspaceId, [kind], [], false, filters, scope);
      const order = resolveSortOrder(q.sortOrder, q.order);
      const rows = await one<EventRow>(eventPageQuery(db, dialect, spec, range, { order, limit: q.limit, offset: (q.page - 1) * q.limit }));
      if (!rows.length) return [];
      const linkIds = rows.map((r) => r.link_id);
      const [links, tags] = await Promise.all([loadLinks(auth.workspaceId, linkIds), loadTags(auth.workspaceId, linkIds)]);
      const customerIds = [...new Set(rows.map((r) => r.customer_id).filter((c): c is string => !!c))];
      const customers = new Map<string, CustomerRow>();
      if (customerIds.length) {
        const found = await one<CustomerRow>(
          db.selectFrom('customers').selectAll().where('workspace_id', '=', auth.workspaceId).where('id', 'in', customerIds).compile(),
        );
        for (const c of found) customers.set(c.id, c);
      }
      const out: EventRecord[] = [];
      for (const r of rows) {
        const link = links.get(r.link_id);
        // A link deleted between the page query and this one: dropped like any deleted link's events.
        if (link) out.push(toEventRecord(r, toLinkResponse(link, tags.get(r.link_id) ?? [], deps.linkSettings), customers));
      }
      return out;
    },
  };
}

export type AnalyticsService = ReturnType<typeof createAnalyticsService>;
