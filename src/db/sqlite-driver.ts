/**
 * Kysely's SQLite dialect with one change: a transaction starts with `BEGIN IMMEDIATE`, taking
 * the write lock at once instead of at its first write.
 *
 * Why: several connections write one SQLite file (this thread, the click writer thread, the
 * webhook dispatcher thread). A deferred transaction that reads and then writes cannot upgrade
 * its read snapshot once another connection has committed in between: SQLite refuses at once
 * (SQLITE_BUSY_SNAPSHOT, or SQLITE_BUSY while the other still holds the lock) without calling the
 * busy handler, and the request failed with a 500. Taking the lock first makes the transaction
 * wait (busy_timeout) like a single write statement does. Only Kysely transactions change: the
 * analytics reader's read transactions go through better-sqlite3 directly (events/sql/sql-runner.ts).
 *
 * @example
 * const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: sqlite }) });
 */
import { CompiledQuery, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type SqliteDialectConfig } from 'kysely';

const BEGIN_IMMEDIATE = CompiledQuery.raw('begin immediate');

class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(BEGIN_IMMEDIATE);
  }
}

export class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;

  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }
}
