/**
 * The column store's read of stored credits (`EventLog.creditAggregate`, docs/decisions/0018):
 * one model's rows of the `credits` table the engine keeps (column-engine.ts `ColumnCredits`),
 * over a range, scoped by the sale's link, grouped by the touch's columns; when the spec filters
 * on dimensions or conversion fields, only the sales that the spec's own scan of `events`
 * selects (the query builder's conditions, query-sql.ts). The same rows as the metadata
 * database's statement (../sql/credits.ts `creditAggregateQuery`), which the contract checks.
 *
 * @example
 * const q = creditAggregateQuery(duckDbDialect, spec, range, { exclude: [] }, 'linear');
 * const rows = creditRows(await engine.query(q), spec.group.length);
 */
import type { AggregateSpec, DimColumn, TimeSpan } from '../event-store.js';
import type { ColumnDialect, ColumnQuery } from './dialect.js';
import { Builder, linkCondition, rawConditions, type LinkIds } from './query-sql.js';

/** True when the spec filters on something only the sale's own row can answer. */
function filtersSales(spec: AggregateSpec): boolean {
  const c = spec.conversions;
  return spec.dims.length > 0 || c.customerId !== undefined || c.saleType !== undefined || c.metadata !== undefined || c.ref !== undefined;
}

export function creditAggregateQuery(d: ColumnDialect, spec: AggregateSpec, range: TimeSpan, links: LinkIds, model: string): ColumnQuery {
  const b = new Builder(d);
  // A group column: '' where a value is absent, as the metadata database's statement groups.
  const column = (c: DimColumn) => (c === 'link_id' ? b.col('link_id') : `coalesce(${b.col(c)}, '')`);
  const ts = b.col('timestamp');
  const conds = [`${b.col('workspace_id')} = ${b.text(spec.workspaceId)}`, `${b.col('model')} = ${b.text(model)}`, `${ts} >= ${b.int(range.from)}`, `${ts} < ${b.int(range.to)}`];
  // The scope applies to the sale's link (its copy on the row), as on the metadata database.
  const scoped = linkCondition(b, links, 'sale_link_id');
  if (scoped) conds.push(scoped);
  if (filtersSales(spec)) {
    const sales = rawConditions(b, { ...spec, kinds: ['sale'], timeseries: false }, range, links);
    conds.push(`${b.col('sale_id')} in (select ${b.col('id')} from events where ${sales.join(' and ')})`);
  }
  const selects = spec.group.map((c, i) => `${column(c)} as g${i}`);
  const select = selects.length ? `${selects.join(', ')}, ` : '';
  const groupBy = spec.group.length ? ` group by ${spec.group.map(column).join(', ')}` : '';
  return b.done(`select ${select}sum(${b.col('share')}) as sales, sum(${b.col('cents')}) as sale_amount from credits where ${conds.join(' and ')}${groupBy}`);
}

/**
 * Rows and cents per workspace of the file's copy (credit-copies.ts compares them with the
 * metadata database's). The bound filter, true of every row, is there for DuckDB 1.5.6: the same
 * grouping without a filter, prepared (the engine keeps its reads prepared) while the table held
 * short ids, answered garbage or crashed the process once longer ids were appended.
 */
export const creditCountsQuery: ColumnQuery = {
  text: 'select workspace_id, count(*) as n, sum(cents) as cents from credits where "timestamp" >= $1::BIGINT group by workspace_id',
  params: [{ type: 'int', value: Number.MIN_SAFE_INTEGER }],
};
