/**
 * The click batch: redirects push raw clicks into memory and never wait for the database. A
 * flush hands up to `maxRows` clicks to the sink, which writes them in ONE transaction — the
 * events and `workspaces.usage`, and, per click-fold.ts, the rollups and link counters in that
 * transaction or in the next fold — every `intervalMs`, or at once when `maxRows` are waiting. A
 * failed flush keeps its rows and retries; `close()` flushes everything before the process exits.
 *
 * Guarantee: a click is either in a committed flush or still in this process's memory. A crash
 * (SIGKILL, power loss, OOM) loses at most the clicks buffered at that moment: those of the last
 * `intervalMs` (≤ 100 ms), or more while the database is failing. See docs/redirects.md.
 *
 * @example
 * const writer = createClickWriter({ sink, intervalMs: 100, maxRows: 2000 });
 * writer.push(row);           // on the redirect path: memory only
 * await writer.close();       // at shutdown: everything committed
 */
import type { StoredEvent } from '../analytics/event-writer.js';
import type { RawClick } from './click-record.js';
import type { ClickFold } from './click-fold.js';
import type { RedirectStore } from './store.js';

/**
 * Where a batch goes: one transaction per `write`. In process (`createDirectSink`) or on the
 * flush worker (flush-client.ts), which keeps the writes and the lookups that complete a click
 * row (click-enrich.ts) off the redirect thread.
 */
export interface ClickSink<Row extends { id: string } = RawClick> {
  write(batch: readonly Row[]): Promise<void>;
  /** Which of these click ids are already stored (after an uncertain failure). */
  existingClickIds(clickIds: readonly string[]): Promise<string[]>;
  /** Folds every written click into the rollups and link counters now (click-fold.ts). */
  settle?(): Promise<void>;
  /** Starts the writer now rather than at the first batch (to fold what a crash left). */
  start?(): void;
  close?(): Promise<void>;
}

/** A sink writing on this thread (an in-memory SQLite database, which no worker can open). */
export function createDirectSink(fold: ClickFold, store: Pick<RedirectStore, 'existingClickIds'>, enrich: (raw: RawClick) => StoredEvent): ClickSink {
  return {
    write: (batch) => fold.write(batch.map(enrich)),
    existingClickIds: (ids) => store.existingClickIds(ids),
    settle: async () => void (await fold.fold({ all: true })),
    close: async () => void (await fold.fold({ all: true })),
  };
}

export interface ClickWriterOptions<Row extends { id: string } = RawClick> {
  sink: ClickSink<Row>;
  intervalMs: number;
  maxRows: number;
  /**
   * Buffered rows beyond which new clicks are dropped (counted and logged): while the database is
   * down, or when clicks come faster than it can take them for long (default 500,000).
   */
  maxBuffered?: number;
  onError?: (err: unknown, context: string) => void;
}

export interface ClickWriterStats {
  /** Rows accepted into the buffer since start. */
  queued: number;
  /** Rows committed since start. */
  flushed: number;
  /** Rows buffered now (waiting or being written). */
  buffered: number;
  /** Rows refused because the buffer was full. */
  dropped: number;
  flushes: number;
  failures: number;
}

export interface ClickWriter<Row extends { id: string } = RawClick> {
  push(row: Row): void;
  /** A click still in memory (not yet committed), by click id. */
  pending(clickId: string): Row | undefined;
  /** Writes everything buffered now; rejects if a flush fails (the rows stay buffered). */
  flush(): Promise<void>;
  /** Stops the timer and writes everything, retrying failures for a while. */
  close(): Promise<void>;
  stats(): ClickWriterStats;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** True for a unique-key violation on either engine. */
function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE';
}

export function createClickWriter<Row extends { id: string } = RawClick>(options: ClickWriterOptions<Row>): ClickWriter<Row> {
  const { sink, intervalMs, maxRows } = options;
  const maxBuffered = options.maxBuffered ?? 500_000;
  let queue: Row[] = [];
  // The batch being written: its rows are still "pending" until the write commits.
  let inFlight: readonly Row[] = [];
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let closed = false;
  let consecutiveFailures = 0;
  const stats: ClickWriterStats = { queued: 0, flushed: 0, buffered: 0, dropped: 0, flushes: 0, failures: 0 };

  // After close() the periodic timer stays off, but a late push (a request that was already in
  // flight) still schedules its own flush rather than being forgotten.
  const schedule = (delay: number) => {
    if (timer !== null) return;
    timer = setTimeout(() => {
      timer = null;
      void flushOnce().catch(() => undefined);
    }, delay);
    // The server keeps the process alive; shutdown flushes explicitly through close().
    timer.unref();
  };

  /** One transaction of at most maxRows rows. */
  async function flushOnce(): Promise<void> {
    if (running) return running;
    if (queue.length === 0) return;
    const batch = queue.length <= maxRows ? queue : queue.slice(0, maxRows);
    queue = queue.length <= maxRows ? [] : queue.slice(maxRows);
    inFlight = batch;
    running = (async () => {
      try {
        await sink.write(batch);
        consecutiveFailures = 0;
        stats.flushes++;
        stats.flushed += batch.length;
      } catch (err) {
        stats.failures++;
        consecutiveFailures++;
        options.onError?.(err, `click flush of ${batch.length} rows failed; keeping them for a retry`);
        let retry = batch;
        if (isUniqueViolation(err)) {
          // A previous attempt may have committed without us hearing back (a dropped connection
          // after COMMIT): drop the rows already stored, whose counters were bumped with them.
          try {
            const stored = new Set(await sink.existingClickIds(batch.map((r) => r.id)));
            retry = batch.filter((r) => !stored.has(r.id));
          } catch {
            /* keep the whole batch; the next attempt checks again */
          }
        }
        queue = retry.concat(queue);
        throw err;
      } finally {
        running = null;
        inFlight = [];
        if (queue.length > 0 && !closed) {
          // Back off on failures (up to 2 s); otherwise go on at once when a full batch waits.
          const delay = consecutiveFailures > 0 ? Math.min(2_000, intervalMs * 2 ** consecutiveFailures) : queue.length >= maxRows ? 0 : intervalMs;
          schedule(delay);
        }
      }
    })();
    return running;
  }

  return {
    push(row) {
      if (queue.length >= maxBuffered) {
        stats.dropped++;
        if (stats.dropped === 1 || stats.dropped % 10_000 === 0) {
          options.onError?.(
            new Error('click buffer full'),
            `${maxBuffered} clicks waiting (the database is failing or the writes are behind): ${stats.dropped} clicks not recorded so far`,
          );
        }
        return;
      }
      queue.push(row);
      stats.queued++;
      if (running) return;
      if (queue.length >= maxRows) {
        if (timer !== null) {
          clearTimeout(timer);
          timer = null;
        }
        schedule(0);
      } else schedule(intervalMs);
    },

    pending(clickId) {
      // A linear search: a lookup is rare (a lead naming a click of the last few milliseconds),
      // while a Map of pending ids would cost every redirect an insert and a delete.
      for (let i = queue.length - 1; i >= 0; i--) if (queue[i]!.id === clickId) return queue[i];
      return inFlight.find((r) => r.id === clickId);
    },

    async flush() {
      if (running) await running.catch(() => undefined);
      while (queue.length > 0) await flushOnce();
    },

    async close() {
      closed = true;
      if (timer !== null) {
        clearTimeout(timer);
        timer = null;
      }
      if (running) await running.catch(() => undefined);
      let attempts = 0;
      while (queue.length > 0) {
        try {
          await flushOnce();
          attempts = 0;
        } catch (err) {
          if (++attempts >= 10) {
            options.onError?.(err, `giving up: ${queue.length} clicks could not be written at shutdown`);
            break;
          }
          await sleep(Math.min(2_000, 100 * 2 ** attempts));
        }
      }
      await sink.close?.();
    },

    stats() {
      return { ...stats, buffered: queue.length + inFlight.length };
    },
  };
}
