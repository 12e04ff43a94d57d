/**
 * A busy database is a wait, not a failure. On a SQLite file several connections write (a running
 * server's click writer and checkpoints, a CLI import); one that waits past its busy timeout gets
 * SQLITE_BUSY. A transaction that failed so was rolled back whole, so running it again is safe:
 * this runs it again after a growing pause (50 ms doubling to 2 s, with jitter so two waiting
 * writers do not retry in step), for as long as `maxWaitMs` (10 minutes) allows. Any other error,
 * and the last busy one, is thrown as is.
 *
 * @example
 * const n = await transactionRetryingBusy(db, async (trx) => insertPage(trx, rows), { isBusy: dialect.isBusy });
 * await retryWhileBusy(() => copyLink(item), { isBusy, onWait: (ms) => log(`busy, waiting ${ms} ms`) });
 */
import type { Kysely, Transaction } from 'kysely';

export interface BusyRetryOptions {
  /** Whether the error is the engine's "another connection holds the lock". */
  isBusy(error: unknown): boolean;
  /** Longest time spent retrying before the busy error is thrown (default 10 minutes). */
  maxWaitMs?: number;
  /** First pause (default 50 ms); each next one doubles up to `maxDelayMs` (default 2 s). */
  firstDelayMs?: number;
  maxDelayMs?: number;
  /** Told before each pause (a CLI prints it). */
  onWait?: (delayMs: number, attempt: number) => void;
  /** Replaceable in tests. */
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  random?: () => number;
}

const DEFAULTS = { maxWaitMs: 10 * 60_000, firstDelayMs: 50, maxDelayMs: 2_000 };

/** Runs `work` (idempotent, or rolled back whole on failure) until it is not refused as busy. */
export async function retryWhileBusy<T>(work: () => Promise<T>, options: BusyRetryOptions): Promise<T> {
  const { maxWaitMs, firstDelayMs, maxDelayMs } = { ...DEFAULTS, ...stripUndefined(options) };
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const random = options.random ?? Math.random;
  const started = now();
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (!options.isBusy(err)) throw err;
      const left = maxWaitMs - (now() - started);
      if (left <= 0) throw err;
      const ceiling = Math.min(maxDelayMs, firstDelayMs * 2 ** (attempt - 1));
      const delay = Math.min(left, Math.round(ceiling * (0.5 + random() / 2)));
      options.onWait?.(delay, attempt);
      await sleep(delay);
    }
  }
}

/** `callback` in a transaction of `db`, run again whenever the engine answers busy. */
export function transactionRetryingBusy<DB, T>(db: Kysely<DB>, callback: (trx: Transaction<DB>) => Promise<T>, options: BusyRetryOptions): Promise<T> {
  return retryWhileBusy(() => db.transaction().execute(callback), options);
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
