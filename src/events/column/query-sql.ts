/**
 * SQL of the column store's reads, for every engine (the dialect, dialect.ts, writes what differs):
 * one scan of `events` per aggregate (no rollups: a column store scans only the columns it
 * needs), the page of the event list, and the part of an aggregate that the hourly summaries of
 * expired events answer. Values are bound as parameters; link lists arrive resolved (store.ts).
 *
 * @example
 * const q = aggregateQuery(duckDbDialect, spec, { from, to }, { exclude: ['lnk_off'] });
 * // → { text: 'select "country" as g0, sum(…) … where "workspace_id" = $1::VARCHAR …', params: [...] }
 */
import type { AggregateSpec, DimColumn, DimFilter, EventKind, MetadataMatch, TimeSpan } from '../event-store.js';
import type { ColumnDialect } from './dialect.js';
import type { ColumnParam, ColumnQuery } from './dialect.js';
import { SUMMARY_BUCKET_MS } from './column-engine.js';

/** Raw timeseries rows are counted per quarter hour: every real zone offset is a multiple of 15 minutes. */
export const RAW_SLOT_MS = 900_000;
const SLOT_SIZES = [86_400_000, 3_600_000, RAW_SLOT_MS];

/**
 * The coarsest slot that no bucket boundary falls inside: a day for days in UTC, an hour for days
 * in a zone of whole hours, else a quarter hour (also without boundaries). Fewer slots are fewer
 * groups to hash and rows to convert: 2,372 rows a quarter hour for a small workspace's 30 days
 * (bench/analytics/README.md), 31 a day.
 */
export function slotSize(boundaries: readonly number[] | undefined): number {
  if (!boundaries) return RAW_SLOT_MS;
  return SLOT_SIZES.find((size) => boundaries.every((b) => b % size === 0)) ?? RAW_SLOT_MS;
}

const NULLABLE_DIMS: ReadonlySet<DimColumn> = new Set(['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content']);

/** The links a query counts, resolved against the metadata database: only `include`, or all but `exclude`. */
export type LinkIds = { include: readonly string[] } | { exclude: readonly string[] };

/** Collects parameters while a query is written; `p(…)` returns the placeholder. */
export class Builder {
  readonly params: ColumnParam[] = [];
  constructor(readonly d: ColumnDialect) {}
  p(param: ColumnParam): string {
    this.params.push(param);
    return this.d.placeholder(param, this.params.length);
  }
  text(value: string): string {
    return this.p({ type: 'text', value });
  }
  int(value: number): string {
    return this.p({ type: 'int', value });
  }
  col(name: string): string {
    return this.d.ident(name);
  }
  /** A dimension as grouped and filtered: absent UTM values read as ''. */
  dim(c: DimColumn): string {
    return NULLABLE_DIMS.has(c) ? `coalesce(${this.col(c)}, '')` : this.col(c);
  }
  done(text: string): ColumnQuery {
    return { text, params: this.params };
  }
}

/** One dimension filter (MatchMode in event-store.ts). */
function dimCondition(b: Builder, f: DimFilter): string {
  const c = b.dim(f.column);
  const values = f.filter.values;
  let positive: string;
  if (!values.length) positive = 'false';
  else if (f.mode === 'ci') positive = `${b.d.lower(c)} in (${values.map((v) => b.text(v.toLowerCase())).join(', ')})`;
  else if (f.mode === 'withoutQuery') {
    // A referer URL equals the value, or is the value followed by a query string.
    positive = `(${values.map((v) => `${c} = ${b.text(v)} or ${b.d.startsWith(c, b.text(`${v}?`))}`).join(' or ')})`;
  } else if (f.mode === 'region') {
    // `CA` matches `US-CA` through the event's country; `US-CA` matches itself.
    const country = b.dim('country');
    positive = `(${values.map((v) => `${c} = ${b.text(v)} or ${c} = ${b.d.concat(country, "'-'", b.text(v))}`).join(' or ')})`;
  } else positive = `${c} in (${values.map((v) => b.text(v)).join(', ')})`;
  return f.filter.op === 'in' ? positive : `not (${positive})`;
}

function metadataCondition(b: Builder, m: MetadataMatch): string {
  const column = `coalesce(${b.col('metadata')}, '')`;
  if ('text' in m) return b.d.containsInsensitive(column, b.text(m.text));
  const key = JSON.stringify(m.key);
  const needles = [`${key}:${JSON.stringify(m.value)}`];
  // Numbers, booleans and null are stored unquoted; the delimiter keeps 3 from matching 30.
  if (/^(-?\d+(\.\d+)?|true|false|null)$/.test(m.value)) needles.push(`${key}:${m.value},`, `${key}:${m.value}}`);
  return `(${needles.map((n) => b.d.containsInsensitive(column, b.text(n))).join(' or ')})`;
}

function refCondition(b: Builder, ref: string): string {
  // `url || '&'` lets one "contains" test also match the last parameter.
  const url = b.d.concat(b.col('url'), "'&'");
  const values = [...new Set([ref, encodeURIComponent(ref)])];
  const needles = values.flatMap((v) => [`?ref=${v}&`, `&ref=${v}&`]);
  return `(${needles.map((n) => b.d.containsInsensitive(url, b.text(n))).join(' or ')})`;
}

/** Conditions that apply to one kind only (a sale type means nothing to a click). */
function kindOnly(b: Builder, spec: AggregateSpec, kind: EventKind): string[] {
  const { customerId, saleType, metadata } = spec.conversions;
  const out: string[] = [];
  if (customerId !== undefined) {
    // A customer's clicks are the clicks its leads were attributed to (leads are in this table too).
    out.push(
      kind === 'click'
        ? `${b.col('click_id')} in (select ${b.col('click_id')} from events where ${b.d.workspaceIs(b.text(spec.workspaceId))} and ${b.col('customer_id')} = ${b.text(customerId)} and ${b.col('kind')} = 'lead')`
        : `${b.col('customer_id')} = ${b.text(customerId)}`,
    );
  }
  if (saleType && kind === 'sale') out.push(`${b.col('sale_type')} = ${b.text(saleType)}`);
  if (metadata && kind !== 'click') out.push(metadataCondition(b, metadata));
  return out;
}

function kindCondition(b: Builder, spec: AggregateSpec): string {
  const perKind = spec.kinds.map((k) => ({ k, conds: kindOnly(b, spec, k) }));
  const kind = b.col('kind');
  if (perKind.every((p) => !p.conds.length)) return `${kind} in (${spec.kinds.map((k) => `'${k}'`).join(', ')})`;
  return `(${perKind.map((p) => [`${kind} = '${p.k}'`, ...p.conds].join(' and ')).join(' or ')})`;
}

/** The links' condition on `column` (a credit row's is `sale_link_id`: credit-sql.ts). */
export function linkCondition(b: Builder, links: LinkIds, column = 'link_id'): string | undefined {
  if ('include' in links) return b.d.inList(b.col(column), b.p({ type: 'texts', value: links.include }));
  if (!links.exclude.length) return undefined;
  return `not ${b.d.inList(b.col(column), b.p({ type: 'texts', value: links.exclude }))}`;
}

/** Every condition of the spec on raw events over the range. */
export function rawConditions(b: Builder, spec: AggregateSpec, range: TimeSpan, links: LinkIds): string[] {
  const ts = b.col('timestamp');
  const conds = [b.d.workspaceIs(b.text(spec.workspaceId)), `${ts} >= ${b.int(range.from)}`, `${ts} < ${b.int(range.to)}`];
  conds.push(kindCondition(b, spec));
  const link = linkCondition(b, links);
  if (link) conds.push(link);
  for (const f of spec.dims) conds.push(dimCondition(b, f));
  if (spec.conversions.ref !== undefined) conds.push(refCondition(b, spec.conversions.ref));
  return conds;
}

const METRICS = `sum(case when "kind" = 'click' then 1 else 0 end) as clicks,
  sum(case when "kind" = 'lead' then 1 else 0 end) as leads,
  sum(case when "kind" = 'sale' and "amount" >= 0 then 1 else 0 end) as sales,
  sum(case when "kind" = 'sale' then "amount" else 0 end) as sale_amount`;

/**
 * The aggregate as one scan: rows `g0…gN` (group values), `slot` (timeseries: the start of the
 * slot `slotSize(boundaries)`, or of the range for the slot the range starts inside), `clicks`,
 * `leads`, `sales`, `sale_amount`.
 */
export function aggregateQuery(d: ColumnDialect, spec: AggregateSpec, range: TimeSpan, links: LinkIds, boundaries?: readonly number[]): ColumnQuery {
  const b = new Builder(d);
  const conds = rawConditions(b, spec, range, links);
  const selects = spec.group.map((c, i) => `${b.dim(c)} as g${i}`);
  const groups = spec.group.map((c) => b.dim(c));
  if (spec.timeseries) {
    const slot = d.slot(b.col('timestamp'), slotSize(boundaries));
    groups.push(slot);
    // A slot is never before the range (a day slot of a range that starts mid-day would be).
    const from = b.int(range.from);
    selects.push(`case when ${slot} < ${from} then ${from} else ${slot} end as slot`);
  }
  const select = selects.length ? `${selects.join(', ')}, ` : '';
  const groupBy = groups.length ? ` group by ${groups.join(', ')}` : '';
  return b.done(`select ${select}${metricsOf(spec.kinds)} from events where ${conds.join(' and ')}${groupBy}`);
}

/**
 * The metrics of an aggregate. Clicks alone (the default `event=clicks`) are a row count: the
 * kind condition already keeps only clicks, and neither `amount` nor three case expressions a
 * row need be read.
 */
function metricsOf(kinds: readonly EventKind[]): string {
  return kinds.length === 1 && kinds[0] === 'click' ? 'count(*) as clicks, 0 as leads, 0 as sales, 0 as sale_amount' : METRICS;
}

/**
 * Whether the hourly per-link summaries of expired events can answer the spec: a count, a
 * timeseries or a grouping by link, without dimension or conversion filters (summaries keep
 * nothing else, docs/architecture.md).
 */
export function summariesAnswer(spec: AggregateSpec): boolean {
  const c = spec.conversions;
  return (
    spec.group.every((g) => g === 'link_id') && !spec.dims.length &&
    c.customerId === undefined && c.saleType === undefined && c.metadata === undefined && c.ref === undefined
  );
}

/** The summaries' part of an aggregate: whole hours inside the range, rows shaped as `aggregateQuery`'s. */
export function summaryQuery(d: ColumnDialect, spec: AggregateSpec, range: TimeSpan, links: LinkIds): ColumnQuery {
  const b = new Builder(d);
  const bucket = b.col('bucket');
  const conds = [
    `${b.col('workspace_id')} = ${b.text(spec.workspaceId)}`,
    `${bucket} >= ${b.int(range.from)}`,
    `${bucket} <= ${b.int(range.to - SUMMARY_BUCKET_MS)}`,
  ];
  const link = linkCondition(b, links);
  if (link) conds.push(link);
  const selects = spec.group.map((_, i) => `${b.col('link_id')} as g${i}`);
  const groups = spec.group.length ? [b.col('link_id')] : [];
  if (spec.timeseries) {
    selects.push(`${bucket} as slot`);
    groups.push(bucket);
  }
  const select = selects.length ? `${selects.join(', ')}, ` : '';
  const groupBy = groups.length ? ` group by ${groups.join(', ')}` : '';
  return b.done(`select ${select}sum(clicks) as clicks, sum(leads) as leads, sum(sales) as sales, sum(sale_amount) as sale_amount
    from event_summaries where ${conds.join(' and ')}${groupBy}`);
}

/** One page of the event list (every column), newest or oldest first, ties by id. */
export function pageQuery(
  d: ColumnDialect,
  spec: AggregateSpec,
  range: TimeSpan,
  links: LinkIds,
  page: { order: 'asc' | 'desc'; limit: number; offset: number; after?: { timestamp: number; id: string } },
): ColumnQuery {
  const b = new Builder(d);
  // A keyset cursor (EventPage.after) narrows the time range to the cursor, then tells rows at the
  // cursor's own timestamp apart by id.
  const { after } = page;
  const asc = page.order === 'asc';
  const narrowed = after
    ? { from: asc ? Math.max(range.from, after.timestamp) : range.from, to: asc ? range.to : Math.min(range.to, after.timestamp + 1) }
    : range;
  const conds = rawConditions(b, spec, narrowed, links);
  if (after) {
    const past = asc ? '>' : '<';
    conds.push(`(${b.col('timestamp')} ${past} ${b.int(after.timestamp)} or ${b.col('id')} ${past} ${b.text(after.id)})`);
  }
  const dir = asc ? 'asc' : 'desc';
  const where = conds.join(' and ');
  const key = `(${b.col('timestamp')}, ${b.col('id')})`;
  const order = `order by ${b.col('timestamp')} ${dir}, ${b.col('id')} ${dir}`;
  // The page is chosen reading two columns; only its rows are then read whole (every column of
  // every matching row group made the top-N ~1.6x slower at 5M events, BENCHMARKS.md).
  const limit = b.int(page.limit);
  return b.done(`select ${d.eventColumns} from events where ${where}
    and ${key} in (select ${b.col('timestamp')}, ${b.col('id')} from events where ${where} ${order} limit ${limit} offset ${b.int(page.offset)})
    ${order} limit ${limit}`);
}

/** Conversions per workspace (the feed's catch-up compares them with the metadata database's). */
export function conversionCountsQuery(d: ColumnDialect): ColumnQuery {
  const b = new Builder(d);
  return b.done(`select ${b.col('workspace_id')} as workspace_id, count(*) as n from events where ${b.col('kind')} <> 'click' group by ${b.col('workspace_id')}`);
}

/** What erasure needs of the target's events (their links' counters are corrected). */
export function erasedRowsQuery(d: ColumnDialect, target: { workspaceId?: string; column: string; values: readonly string[] }): ColumnQuery {
  const b = new Builder(d);
  const conds = [d.inList(b.col(target.column), b.p({ type: 'texts', value: target.values }))];
  if (target.workspaceId !== undefined) conds.push(b.d.workspaceIs(b.text(target.workspaceId)));
  return b.done(`select ${['id', 'workspace_id', 'link_id', 'kind', 'amount', 'customer_id', 'click_id'].map((c) => b.col(c)).join(', ')} from events where ${conds.join(' and ')}`);
}

/**
 * Attribution's read (`EventLog.buyerConversions`): the sales `aggregateQuery` of the spec's sale
 * kind counts (a CTE), and every lead and sale since `since` of their customers on the links
 * `journeyLinks` keeps, in one statement; `sel` tells the two apart. Only the models' columns.
 */
export function buyerConversionsQuery(d: ColumnDialect, spec: AggregateSpec, range: TimeSpan, links: LinkIds, journeyLinks: LinkIds, since: number): ColumnQuery {
  const b = new Builder(d);
  const sales: AggregateSpec = { ...spec, kinds: ['sale'], timeseries: false };
  const conds = rawConditions(b, sales, range, links);
  const touch = ['kind', 'customer_id', 'click_id', 'link_id', 'timestamp'].map((c) => b.col(c));
  const columns = [...touch, `coalesce(${b.col('amount')}, 0) as amount`, ...spec.group.map((c, i) => `${b.dim(c)} as g${i}`)].join(', ');
  const names = [...touch, 'amount', ...spec.group.map((_, i) => `g${i}`)].join(', ');
  const ts = b.col('timestamp');
  const customer = b.col('customer_id');
  const journey = [
    b.d.workspaceIs(b.text(spec.workspaceId)),
    `${customer} is not null`,
    `${customer} in (select ${customer} from sales where ${customer} is not null)`,
    `${b.col('kind')} in ('lead', 'sale')`,
    `${ts} >= ${b.int(since)}`,
    `${ts} < ${b.int(range.to)}`,
  ];
  const link = linkCondition(b, journeyLinks);
  if (link) journey.push(link);
  return b.done(`with sales as (select ${columns} from events where ${conds.join(' and ')})
    select 1 as sel, ${names} from sales
    union all
    select 0 as sel, ${columns} from events where ${journey.join(' and ')}`);
}
