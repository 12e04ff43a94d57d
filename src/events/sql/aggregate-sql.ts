/**
 * SQL of one aggregate part (planner.ts): the same grouping and filters read from the raw events,
 * the hourly totals or a daily tuple. Every query returns rows `g0…gN` (group values), `slot`
 * (timeseries only: start of the hour, day or quarter hour the row counts for) and the four
 * metrics, so the service merges parts without caring where they came from.
 *
 * Index choices are explicit, because SQLite's planner is led astray by bound values
 * (storage-benchmarks.md §2): a workspace scan goes through the clustered primary key
 * (workspace_id, timestamp, id) with `+link_id` so the (link_id, timestamp) index is not used to
 * group or filter; a scan of a few named links goes through (link_id, timestamp) with
 * `+workspace_id`; a lead or sale scan goes through the partial index of conversions.
 */
import { sql, type CompiledQuery, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { Dialect } from '../../db/dialect.js';
import type { AggregateSpec, DimFilter, EventKind, EventPage, LinkScope, MetadataMatch } from '../event-store.js';
import { scopeSubquery } from './link-scope.js';
import type { Part } from './planner.js';
import { NULLABLE_COLUMNS, keyColumnOf, type DimColumn, type RollupDim } from './rollup-spec.js';

export type { AggregateSpec, ConversionFilters, EventKind } from '../event-store.js';

/** Raw timeseries rows are counted per quarter hour: every real zone offset is a multiple of 15 minutes. */
export const RAW_SLOT_MS = 900_000;

/** At most this many named links are read through the (link_id, timestamp) index. */
export const LINK_INDEX_MAX = 20;

type Col = (c: DimColumn) => RawBuilder<unknown>;

export const rawColumn: Col = (c) => (NULLABLE_COLUMNS.has(c) ? sql`coalesce(${sql.ref(c)}, '')` : sql.ref(c));

function rollupColumn(dim: RollupDim): Col {
  return (c) => sql.ref(keyColumnOf(dim, c)!);
}

function inList(values: readonly string[]): RawBuilder<unknown> {
  return sql.join(values as string[]);
}

/** One dimension filter as SQL (see MatchMode in filters.ts). */
export function dimCondition(f: DimFilter, col: Col): RawBuilder<unknown> {
  const c = col(f.column);
  let positive: RawBuilder<unknown>;
  if (f.mode === 'ci') positive = sql`lower(${c}) in (${inList(f.filter.values.map((v) => v.toLowerCase()))})`;
  else if (f.mode === 'withoutQuery') {
    positive = sql`(${sql.join(
      f.filter.values.map((v) => sql`${c} = ${v} or substr(${c}, 1, ${v.length + 1}) = ${`${v}?`}`),
      sql` or `,
    )})`;
  } else if (f.mode === 'region') {
    const country = col('country');
    positive = sql`(${sql.join(
      f.filter.values.map((v) => sql`${c} = ${v} or ${c} = ${country} || '-' || ${v}`),
      sql` or `,
    )})`;
  } else positive = sql`${c} in (${inList(f.filter.values)})`;
  return f.filter.op === 'in' ? positive : sql`not (${positive})`;
}

function metadataCondition(dialect: Dialect, m: MetadataMatch): RawBuilder<unknown> {
  const column = sql.ref<string | null>('metadata');
  if ('text' in m) return dialect.containsInsensitive(column, m.text);
  const key = JSON.stringify(m.key);
  const needles = [`${key}:${JSON.stringify(m.value)}`];
  // Numbers, booleans and null are stored unquoted; the delimiter keeps 3 from matching 30.
  if (/^(-?\d+(\.\d+)?|true|false|null)$/.test(m.value)) needles.push(`${key}:${m.value},`, `${key}:${m.value}}`);
  return sql`(${sql.join(needles.map((n) => dialect.containsInsensitive(column, n)), sql` or `)})`;
}

function refCondition(dialect: Dialect, ref: string): RawBuilder<unknown> {
  // `url || '&'` lets one "contains" test also match the last parameter.
  const url = sql<string>`${sql.ref('url')} || '&'`;
  const values = [...new Set([ref, encodeURIComponent(ref)])];
  const needles = values.flatMap((v) => [`?ref=${v}&`, `&ref=${v}&`]);
  return sql`(${sql.join(needles.map((n) => dialect.containsInsensitive(url, n)), sql` or `)})`;
}

/** Conditions that apply to one kind only (a sale type means nothing to a click). */
function kindOnlyConditions(spec: AggregateSpec, kind: EventKind, dialect: Dialect): RawBuilder<unknown>[] {
  const { customerId, saleType, metadata } = spec.conversions;
  const out: RawBuilder<unknown>[] = [];
  if (customerId !== undefined) {
    // A customer's clicks are the clicks its leads were attributed to.
    out.push(
      kind === 'click'
        ? sql`click_id in (select click_id from events where workspace_id = ${spec.workspaceId} and customer_id = ${customerId} and kind = 'lead')`
        : sql`customer_id = ${customerId}`,
    );
  }
  if (saleType && kind === 'sale') out.push(sql`sale_type = ${saleType}`);
  if (metadata && kind !== 'click') out.push(metadataCondition(dialect, metadata));
  return out;
}

/** The kind condition; a lead/sale-only query also states `kind <> 'click'`, the partial index's predicate. */
export function kindCondition(spec: AggregateSpec, dialect: Dialect): RawBuilder<unknown> {
  const perKind = spec.kinds.map((k) => ({ k, conds: kindOnlyConditions(spec, k, dialect) }));
  let cond: RawBuilder<unknown>;
  if (perKind.every((p) => !p.conds.length)) {
    cond = spec.kinds.length === 1 ? sql`kind = ${spec.kinds[0]}` : sql`kind in (${inList(spec.kinds)})`;
  } else {
    cond = sql`(${sql.join(
      perKind.map((p) => sql.join([sql`kind = ${p.k}`, ...p.conds], sql` and `)),
      sql` or `,
    )})`;
  }
  return spec.kinds.includes('click') ? cond : sql`kind <> 'click' and ${cond}`;
}

function idsOrSubquery(scope: LinkScope): RawBuilder<unknown> {
  return scope.ids ? (scope.ids.length ? inList(scope.ids) : sql`null`) : scopeSubquery(scope.input);
}

/** Where a raw part reads from: the table reference and its workspace, time and link conditions. */
interface RawSource {
  from: RawBuilder<unknown>;
  conds: RawBuilder<unknown>[];
}

/**
 * Workspace, time and link conditions of a raw part, with the index choice described above. A
 * lead-only or sale-only workspace scan names the conversions index: SQLite's cost model prefers
 * the clustered key (no lookups) and would walk every click of the range to find the few leads.
 */
function rawSource(spec: AggregateSpec, part: Extract<Part, { source: 'raw' }>, dialect: Dialect): RawSource {
  const { scope, workspaceId } = spec;
  const time = sql`${sql.ref('timestamp')} >= ${part.from} and ${sql.ref('timestamp')} < ${part.to}`;
  const events = sql.table('events');
  const viaLinkIndex = (links: RawBuilder<unknown>): RawSource => ({
    from: events,
    conds: [sql`${dialect.noIndex('workspace_id')} = ${workspaceId}`, sql`link_id in (${links})`, time],
  });
  const conversionsOnly = spec.kinds.length === 1 && spec.kinds[0] !== 'click';
  const viaWorkspace = (link?: RawBuilder<unknown>): RawSource => ({
    from: conversionsOnly ? dialect.indexedBy('events', 'events_conversions') : events,
    conds: [sql`workspace_id = ${workspaceId}`, time, ...(link ? [link] : [])],
  });
  const plusLink = dialect.noIndex('link_id');
  const fewIds = scope.ids && scope.ids.length <= LINK_INDEX_MAX;

  // The left-out links of a workspace scope (subtraction part): probed through the link index,
  // so a workspace with none of them (the usual case) pays one empty subquery.
  if (part.links === 'excluded') return viaLinkIndex(idsOrSubquery(scope));
  if (scope.mode === 'workspace') return viaWorkspace(sql`${plusLink} not in (${idsOrSubquery(scope)})`);
  if (fewIds) return viaLinkIndex(inList(scope.ids!));
  return viaWorkspace(sql`${plusLink} in (${idsOrSubquery(scope)})`);
}

const RAW_METRICS = sql`sum(case when kind = 'click' then 1 else 0 end) as clicks,
  sum(case when kind = 'lead' then 1 else 0 end) as leads,
  sum(case when kind = 'sale' and amount >= 0 then 1 else 0 end) as sales,
  sum(case when kind = 'sale' then amount else 0 end) as sale_amount`;

const ROLLUP_METRICS = sql`sum(clicks) as clicks, sum(leads) as leads, sum(sales) as sales, sum(sale_amount) as sale_amount`;

function selectAndGroup(group: readonly DimColumn[], col: Col, slot: RawBuilder<unknown> | undefined, groupCol: Col = col) {
  const selects = group.map((c, i) => sql`${col(c)} as ${sql.ref(`g${i}`)}`);
  const groups = group.map((c) => groupCol(c));
  if (slot) {
    selects.push(sql`${slot} as slot`);
    groups.push(slot);
  }
  return {
    select: selects.length ? sql`${sql.join(selects)}, ` : sql``,
    groupBy: groups.length ? sql` group by ${sql.join(groups)}` : sql``,
  };
}

/** The raw scan of a part: its source and every condition of the spec that raw events can apply. */
export function rawScan(spec: AggregateSpec, part: Extract<Part, { source: 'raw' }>, dialect: Dialect) {
  const source = rawSource(spec, part, dialect);
  const conds = [
    ...source.conds,
    kindCondition(spec, dialect),
    ...spec.dims.map((f) => dimCondition(f, rawColumn)),
    ...(spec.conversions.ref !== undefined ? [refCondition(dialect, spec.conversions.ref)] : []),
  ];
  return { from: source.from, conds };
}

/** Compiles the SQL of one part. */
export function partQuery(db: Kysely<Database>, dialect: Dialect, spec: AggregateSpec, part: Part): CompiledQuery {
  if (part.source === 'raw') {
    const { from, conds } = rawScan(spec, part, dialect);
    const slot = spec.timeseries ? sql`(${sql.ref('timestamp')} / ${sql.lit(RAW_SLOT_MS)}) * ${sql.lit(RAW_SLOT_MS)}` : undefined;
    // `+link_id` in GROUP BY keeps SQLite from walking the link index to avoid a sort (§2's 6 s plan).
    const groupCol: Col = (c) => (c === 'link_id' ? dialect.noIndex('link_id') : rawColumn(c));
    const { select, groupBy } = selectAndGroup(spec.group, rawColumn, slot, groupCol);
    return sql`select ${select}${RAW_METRICS} from ${from} where ${sql.join(conds, sql` and `)}${groupBy}`.compile(db);
  }

  if (part.source === 'hourly') {
    const slot = spec.timeseries ? sql.ref('bucket') : undefined;
    const { select, groupBy } = selectAndGroup([], rawColumn, slot);
    return sql`select ${select}${ROLLUP_METRICS} from analytics_hourly
      where workspace_id = ${spec.workspaceId} and bucket >= ${part.from} and bucket < ${part.to}${groupBy}`.compile(db);
  }

  const col = rollupColumn(part.dim);
  const conds = [
    sql`workspace_id = ${spec.workspaceId}`,
    sql`dim = ${part.dim}`,
    sql`bucket >= ${part.from} and bucket < ${part.to}`,
    ...spec.dims.map((f) => dimCondition(f, col)),
  ];
  if (part.dim === 'link') {
    const { scope } = spec;
    if (scope.mode === 'set') conds.push(sql`k1 in (${idsOrSubquery(scope)})`);
    else conds.push(sql`k1 not in (${idsOrSubquery(scope)})`);
  }
  const slot = spec.timeseries ? sql.ref('bucket') : undefined;
  const { select, groupBy } = selectAndGroup(spec.group, col, slot);
  return sql`select ${select}${ROLLUP_METRICS} from analytics_daily where ${sql.join(conds, sql` and `)}${groupBy}`.compile(db);
}

/** One page of the event list: the same scope and filters, newest (or oldest) first. */
export function eventPageQuery(
  db: Kysely<Database>,
  dialect: Dialect,
  spec: AggregateSpec,
  range: { from: number; to: number },
  page: EventPage,
): CompiledQuery {
  // A keyset cursor narrows the range itself: the one bound the planner seeks the primary key
  // (workspace, timestamp, id) with, so a page starts at the cursor instead of scanning every
  // earlier page's rows again. Rows at the cursor's own timestamp are then told apart by id.
  const after = page.after;
  const asc = page.order === 'asc';
  const from = after && asc ? Math.max(range.from, after.timestamp) : range.from;
  const to = after && !asc ? Math.min(range.to, after.timestamp + 1) : range.to;
  const part: Part = { source: 'raw', from, to, sign: 1, links: 'scope' };
  const scan = rawScan(spec, part, dialect);
  const conds = scan.conds;
  // Events of deleted links are dropped (behaviour.md §7.4); a correlated probe keeps events the driving table.
  conds.push(sql`exists (select 1 from links where links.id = events.link_id)`);
  const dir = asc ? sql`asc` : sql`desc`;
  if (after) {
    const past = asc ? sql`>` : sql`<`;
    const ts = sql.ref('timestamp');
    conds.push(sql`(${ts} ${past} ${after.timestamp} or id ${past} ${after.id})`);
  }
  return sql`select * from ${scan.from} where ${sql.join(conds, sql` and `)}
    order by ${sql.ref('timestamp')} ${dir}, id ${dir} limit ${page.limit} offset ${page.offset}`.compile(db);
}
