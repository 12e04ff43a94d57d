/**
 * A Kysely dialect whose transactions run a hook on their own connection just before `commit`:
 * the audit log (src/audit/) writes the entries of the change a transaction makes inside it, so a
 * rolled-back change leaves none. The hook is a slot filled after opening (db/ knows no
 * application code); unset, transactions are unchanged.
 *
 * @example
 * const hooks: CommitHooks = {};
 * const db = new Kysely<Database>({ dialect: withCommitHook(new PostgresDialect({ pool }), hooks) });
 * hooks.beforeCommit = async (connection) => { await connection.executeQuery(insert); };
 */
import type { DatabaseConnection, Dialect, Driver, TransactionSettings } from 'kysely';

export interface CommitHooks {
  /** Runs inside the transaction, on its connection, before `commit`; a throw rolls it back. */
  beforeCommit?: (connection: DatabaseConnection) => Promise<void>;
  /** After a rollback (nothing of the transaction stays). */
  afterRollback?: () => void;
}

class HookedDriver implements Driver {
  constructor(
    private readonly inner: Driver,
    private readonly hooks: CommitHooks,
  ) {}
  init(): Promise<void> {
    return this.inner.init();
  }
  acquireConnection(): Promise<DatabaseConnection> {
    return this.inner.acquireConnection();
  }
  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.inner.beginTransaction(connection, settings);
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await this.hooks.beforeCommit?.(connection);
    await this.inner.commitTransaction(connection);
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await this.inner.rollbackTransaction(connection);
    } finally {
      this.hooks.afterRollback?.();
    }
  }
  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(connection);
  }
  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

/** `dialect` with its driver's commits running `hooks.beforeCommit` first. */
export function withCommitHook(dialect: Dialect, hooks: CommitHooks): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => new HookedDriver(dialect.createDriver(), hooks),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
  };
}
