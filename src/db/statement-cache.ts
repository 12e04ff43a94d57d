/**
 * Prepared statements kept per SQLite connection, by SQL text. Kysely's SQLite driver calls
 * `prepare` for every query, and better-sqlite3 then parses and plans the text anew: the
 * redirect's link lookup (a join selecting every link column) cost 140-195 µs of CPU that way
 * and 35-43 µs with its statement kept (bench/redirect/link-lookup.ts). Every discarded
 * statement also left a weak handle for the garbage collector to finalize. Kysely
 * emits the same text for the same query shape, so a small LRU catches nearly all of them.
 *
 * A statement still being read (`iterate`, a streamed query) cannot run again; a query with
 * the same text meanwhile gets a statement of its own. Statements survive schema changes:
 * SQLite prepares them again by itself when the schema they were planned on has changed.
 *
 * @example
 * const sqlite = new SQLite(file);
 * const db = new Kysely({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
 */
import type SQLite from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

/** Statements kept per connection (default of `withStatementCache`). */
export const STATEMENT_CACHE_MAX = 200;

export function withStatementCache(sqlite: SQLite.Database, max = STATEMENT_CACHE_MAX): SqliteDatabase {
  // A Map keeps insertion order: re-inserting on every hit makes its first key the least recent.
  const kept = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(text: string) {
      const stmt = kept.get(text);
      if (stmt !== undefined) {
        if (stmt.busy) return sqlite.prepare(text);
        kept.delete(text);
        kept.set(text, stmt);
        return stmt;
      }
      const fresh = sqlite.prepare(text);
      if (kept.size >= max) kept.delete(kept.keys().next().value!);
      kept.set(text, fresh);
      return fresh;
    },
  } as SqliteDatabase;
}
