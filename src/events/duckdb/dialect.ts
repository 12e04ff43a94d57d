/**
 * DuckDB's spelling of the column store's queries (../column/dialect.ts): typed positional
 * parameters (`$1::VARCHAR`), lists as `VARCHAR[]` parameters unnested into a hash semi-join.
 */
import { quoteIdent, type ColumnDialect } from '../column/dialect.js';
import { workspaceKey } from './schema.js';

const CAST = { text: 'VARCHAR', int: 'BIGINT', texts: 'VARCHAR[]' } as const;

export const duckDbDialect: ColumnDialect = {
  placeholder: (param, index) => `$${index}::${CAST[param.type]}`,
  ident: quoteIdent,
  inList: (expr, list) => `${expr} in (select unnest(${list}))`,
  lower: (expr) => `lower(${expr})`,
  startsWith: (expr, prefix) => `starts_with(${expr}, ${prefix})`,
  // strpos on lowered text: no LIKE, so `%` and `_` in the needle are plain characters.
  containsInsensitive: (expr, needle) => `strpos(lower(${expr}), lower(${needle})) > 0`,
  concat: (...parts) => `(${parts.join(' || ')})`,
  slot: (expr, size) => `((${expr} // ${Math.trunc(size)}) * ${Math.trunc(size)})`,
  // The integer key is what zone maps can skip row groups by (schema.ts); the id itself decides.
  workspaceIs: (workspaceId) => `workspace_key = ${workspaceKey(workspaceId)} and workspace_id = ${workspaceId}`,
  eventColumns: '* exclude (workspace_key)',
};
