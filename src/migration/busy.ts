/**
 * SQLite answers SQLITE_BUSY when another connection (a running server's click writer, its
 * checkpoints) keeps the write lock past the busy timeout. Every write of the migration is
 * idempotent (a copy looks for what is already there first, a page of events skips stored ids)
 * and rolled back whole when it fails, so it waits and runs again (db/busy-retry.ts): a busy
 * database makes an import slower, never stops it.
 *
 * @example
 * const retry = busyRetry((ms) => progress(`database busy: waiting ${ms} ms`));
 * const outcome = await retry(() => target.link(item, ids, to));
 */
import { retryWhileBusy } from '../db/busy-retry.js';

/** SQLite's busy answers (SQLITE_BUSY and its extended codes such as SQLITE_BUSY_SNAPSHOT). */
export function isSqliteBusy(err: unknown): boolean {
  return String((err as { code?: unknown } | null)?.code ?? '').startsWith('SQLITE_BUSY');
}

export type Retry = <T>(work: () => Promise<T>) => Promise<T>;

export function busyRetry(onWait?: (delayMs: number, attempt: number) => void, options: { maxWaitMs?: number } = {}): Retry {
  return (work) => retryWhileBusy(work, { isBusy: isSqliteBusy, onWait, maxWaitMs: options.maxWaitMs });
}
