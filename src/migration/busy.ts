/**
 * SQLite answers SQLITE_BUSY when another connection (a running server's click writer, its
 * checkpoints) keeps the write lock past the busy timeout. Every write of the migration is
 * idempotent (a copy looks for what is already there first, a page of events skips stored ids)
 * and rolled back whole when it fails, so it is simply tried again.
 *
 * @example
 * const outcome = await retryBusy(database.dialect, () => target.link(item, ids));
 */
import type { Dialect } from '../db/dialect.js';

export async function retryBusy<T>(dialect: Pick<Dialect, 'isBusy'>, work: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (attempt >= attempts || !dialect.isBusy(err)) throw err;
    }
  }
}
