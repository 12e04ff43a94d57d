/**
 * What column engines spell differently, as a small object the query builder (query-sql.ts)
 * calls. Every method returns SQL text; arguments are SQL text too (a column, or a placeholder
 * the dialect wrote for a parameter).
 *
 * @example
 * duckDbDialect.placeholder({ type: 'text', value: 'US' }, 3); // → '$3::VARCHAR'
 * // a ClickHouse dialect: → "{p3:String}", or the value inlined and escaped where parameters cannot go
 */
/** A bound value: engines type parameters, so each says what it is. */
export type ColumnParam =
  | { type: 'text'; value: string }
  | { type: 'int'; value: number }
  | { type: 'texts'; value: readonly string[] };

/** A read query: SQL text whose placeholders the dialect wrote, and the values they stand for, in order. */
export interface ColumnQuery {
  text: string;
  params: readonly ColumnParam[];
}

export interface ColumnDialect {
  /** The text standing for parameter number `index` (1-based); may inline the value, escaped, instead. */
  placeholder(param: ColumnParam, index: number): string;
  /** A quoted identifier (`key`, `trigger` and `timestamp` are words some engines reserve). */
  ident(name: string): string;
  /** True when `expr` (text) is one of the list parameter `list`; an empty list matches nothing. */
  inList(expr: string, list: string): string;
  /** Lower-case of a text expression. */
  lower(expr: string): string;
  /** True when text `expr` starts with text `prefix`. */
  startsWith(expr: string, prefix: string): string;
  /** True when text `needle` occurs in `expr`, ignoring case (ASCII at least). */
  containsInsensitive(expr: string, needle: string): string;
  /** Text concatenation. */
  concat(...parts: string[]): string;
  /** The start (ms) of the `size`-ms slot an integer ms expression falls in. */
  slot(expr: string, size: number): string;
  /** True for `events` rows of the workspace whose id is the text `workspaceId` (an engine may add a condition its storage can skip by). */
  workspaceIs(workspaceId: string): string;
  /** The select list of every `EventRow` column of `events`. */
  readonly eventColumns: string;
}

/** Double quotes, doubled inside: the SQL standard's identifiers (DuckDB, PostgreSQL, ClickHouse all accept it). */
export const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;
