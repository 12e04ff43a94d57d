/**
 * The named differences between the two engines. Stores call these instead of branching on the
 * engine, so `if (isPostgres)` never appears outside `db/` (style.md, habit 5).
 */
import { sql, type Kysely, type RawBuilder, type Expression } from 'kysely';

export interface Dialect {
  readonly name: 'sqlite' | 'postgres';
  /** Extra clause at the end of CREATE TABLE for clustered event tables (`WITHOUT ROWID` on SQLite). */
  readonly clusteredTableSuffix: RawBuilder<unknown> | null;
  /** Column type for millisecond timestamps and counters that can pass 2^31. */
  readonly bigIntType: 'bigint' | 'integer';
  /** Column type for floating point values. */
  readonly doubleType: 'double precision' | 'real';
  /** Case-insensitive "contains" match of a column against a plain string (no wildcards from the user). */
  containsInsensitive(column: Expression<string | null>, needle: string): RawBuilder<boolean>;
  /**
   * The links search index's answer for `needle` (migration 0016), or null when the engine needs
   * none (PostgreSQL's trigram indexes serve `ilike` directly) or the needle is too short for
   * trigrams. `where` narrows `links` to the rows that may contain the needle, a superset of
   * `containsInsensitive`'s matches, so callers keep that condition too; `countUpTo(cap)` counts
   * those rows, all workspaces together, up to `cap` (for choosing between index and scan).
   */
  linkSearchIndex(needle: string): { where: RawBuilder<boolean>; countUpTo(cap: number): RawBuilder<{ n: number }> } | null;
  /** Prefixes the column so SQLite does not use an index for it (`+col`); identity on PostgreSQL. */
  noIndex(column: string): RawBuilder<unknown>;
  /**
   * A table reference that makes SQLite use the named index (`events indexed by ix`); the bare
   * table on PostgreSQL, whose planner uses statistics. For plans SQLite's cost model gets wrong.
   */
  indexedBy(table: string, index: string): RawBuilder<unknown>;
  /** True when `error` is the engine's unique-constraint violation (a concurrent insert won the race). */
  isUniqueViolation(error: unknown): boolean;
  /**
   * True when `error` is the engine's refusal of a lock another connection holds (SQLite's
   * `SQLITE_BUSY` family, after its busy timeout or at once for a read transaction that would
   * upgrade past another writer's commit). The statement or transaction was rolled back whole, so
   * it can be tried again. Never true on PostgreSQL, whose statements wait for their locks.
   */
  isBusy(error: unknown): boolean;
  /**
   * The conflict clause for a many-row INSERT or UPDATE whose error always rolls back the whole
   * transaction: `or fail` on SQLite, nothing on PostgreSQL. SQLite otherwise keeps a statement
   * journal, a copy of every page the statement changes, to undo that statement alone; on the
   * click writer's batches that copying cost ~4 µs per event row and ~3 µs per link counter
   * (BENCHMARKS.md, redirects). With `or fail` a failing statement keeps the rows it wrote before
   * the error, so the caller must roll the transaction back.
   */
  readonly orFail: RawBuilder<unknown>;
  /** `orFail` for an insert built with Kysely. */
  insertOrFail<Q extends { orFail(): Q }>(query: Q): Q;
  /**
   * Runs `job` unless another process runs the job named by `key` right now, for periodic work
   * that one process of several must do (retention). PostgreSQL: a session advisory lock
   * (`pg_try_advisory_lock`) held on one pooled connection for the job's length, so it goes with
   * the session if the process dies; SQLite: a file has one writing process, so always runs.
   * Returns undefined when another process holds the job.
   */
  exclusively<T>(db: Kysely<any>, key: number, job: () => Promise<T>): Promise<T | undefined>;
}

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

export const sqliteDialect: Dialect = {
  name: 'sqlite',
  clusteredTableSuffix: sql`without rowid`,
  bigIntType: 'integer',
  doubleType: 'real',
  containsInsensitive: (column, needle) => sql<boolean>`lower(${column}) like ${'%' + escapeLike(needle.toLowerCase()) + '%'} escape '\\'`,
  // The trigram table folds case per character, so the lowered needle's trigrams are found in
  // every link that `containsInsensitive` matches; a phrase query matches them consecutively in one column.
  linkSearchIndex: (needle) => {
    const lowered = needle.toLowerCase();
    if ([...lowered].length < 3) return null;
    const phrase = `"${lowered.replace(/"/g, '""')}"`;
    return {
      where: sql<boolean>`links.rowid in (select rowid from links_search where links_search match ${phrase})`,
      countUpTo: (cap) => sql<{ n: number }>`select count(*) as n from (select rowid from links_search where links_search match ${phrase} limit ${cap})`,
    };
  },
  noIndex: (column) => sql`+${sql.ref(column)}`,
  indexedBy: (table, index) => sql`${sql.table(table)} indexed by ${sql.id(index)}`,
  isUniqueViolation: (error) => {
    const code = (error as { code?: unknown } | null)?.code;
    return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
  },
  isBusy: (error) => String((error as { code?: unknown } | null)?.code ?? '').startsWith('SQLITE_BUSY'),
  orFail: sql`or fail`,
  insertOrFail: (query) => query.orFail(),
  exclusively: (_db, _key, job) => job(),
};

export const postgresDialect: Dialect = {
  name: 'postgres',
  clusteredTableSuffix: null,
  bigIntType: 'bigint',
  doubleType: 'double precision',
  containsInsensitive: (column, needle) => sql<boolean>`${column} ilike ${'%' + escapeLike(needle) + '%'} escape '\\'`,
  linkSearchIndex: () => null,
  noIndex: (column) => sql.ref(column),
  indexedBy: (table) => sql.table(table),
  // 23505 = unique_violation (PostgreSQL error codes, appendix A).
  isUniqueViolation: (error) => (error as { code?: unknown } | null)?.code === '23505',
  isBusy: () => false,
  orFail: sql``,
  insertOrFail: (query) => query,
  exclusively: (db, key, job) =>
    db.connection().execute(async (conn) => {
      const got = await sql<{ ok: boolean }>`select pg_try_advisory_lock(${key}) as ok`.execute(conn);
      if (!got.rows[0]?.ok) return undefined;
      try {
        return await job();
      } finally {
        await sql`select pg_advisory_unlock(${key})`.execute(conn);
      }
    }),
};
