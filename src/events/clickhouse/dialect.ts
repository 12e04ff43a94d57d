/**
 * ClickHouse's spelling of the column store's queries (../column/dialect.ts). Every value is a
 * server-side query parameter (`{p3:String}`): both ways of reaching ClickHouse bind them
 * (`query_params` of @clickhouse/client, `queryBindAsync` of chdb), so no value is ever written
 * into SQL text and nothing needs escaping. Lists are `Array(String)` parameters turned into a
 * set (`IN (SELECT arrayJoin(…))`), which an empty list leaves empty.
 *
 * @example
 * clickHouseDialect.placeholder({ type: 'text', value: 'US' }, 3); // → '{p3:String}'
 * bindParams([{ type: 'text', value: 'US' }]);                      // → { p1: 'US' }
 */
import { quoteIdent, type ColumnDialect } from '../column/dialect.js';
import type { ColumnParam } from '../column/dialect.js';

const TYPES = { text: 'String', int: 'Int64', texts: 'Array(String)' } as const;

/** The parameter name of placeholder number `index` (1-based), as `placeholder` writes it. */
export const paramName = (index: number): string => `p${Math.trunc(index)}`;

export const clickHouseDialect: ColumnDialect = {
  placeholder: (param, index) => `{${paramName(index)}:${TYPES[param.type]}}`,
  ident: quoteIdent,
  inList: (expr, list) => `${expr} in (select arrayJoin(${list}))`,
  lower: (expr) => `lowerUTF8(${expr})`,
  startsWith: (expr, prefix) => `startsWith(${expr}, ${prefix})`,
  // A plain substring search (no LIKE), so `%` and `_` in the needle are ordinary characters.
  containsInsensitive: (expr, needle) => `positionCaseInsensitiveUTF8(${expr}, ${needle}) > 0`,
  concat: (...parts) => `concat(${parts.join(', ')})`,
  slot: (expr, size) => `(intDiv(${expr}, ${Math.trunc(size)}) * ${Math.trunc(size)})`,
  // The table is ordered by workspace: its primary index skips by the id itself.
  workspaceIs: (workspaceId) => `${quoteIdent('workspace_id')} = ${workspaceId}`,
  eventColumns: '*',
};

/** The values of a query's placeholders, by the names `placeholder` gave them. */
export function bindParams(params: readonly ColumnParam[]): Record<string, string | number | string[]> {
  const out: Record<string, string | number | string[]> = {};
  params.forEach((p, i) => {
    out[paramName(i + 1)] = p.type === 'int' ? Math.trunc(p.value) : p.type === 'texts' ? [...p.value] : p.value;
  });
  return out;
}
