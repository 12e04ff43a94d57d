/**
 * The one fold: what a stored click sets off (link counters and usage, outbox rows, webhook
 * deliveries) runs exactly once per click, as listeners (registered in one place: src/click-listeners/)
 * in one transaction of the metadata database. Where that transaction runs depends on the store
 * (../click-log.ts):
 *
 * - `inline` (the SQL store; ClickHouse): in the transaction that stores the batch;
 * - `watermark` (DuckDB): about once a second (sooner when a listener has someone waiting:
 *   `urgent`), over every batch stored since, with the watermark (`event_log_folds`: the last batch
 *   counted) in the same transaction. A batch the store committed before a crash and the fold did
 *   not count is read back at start (`recover`); a fold that committed is never repeated, since
 *   its watermark committed with it.
 *
 * Only what the store stored is counted: a batch whose append failed stays with the click writer
 * (which retries it under the same id) and reaches no listener.
 *
 * @example
 * const fold = createClickFold({ db, log: store.clickLog, listeners: [counters, outbox, webhooks] });
 * await fold.recover();           // at start: the batches stored and not counted
 * await fold.append('b1', columns); // stored (and, inline, counted)
 * await fold.fold();              // watermark: counts what was stored since
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { Dialect } from '../../db/dialect.js';
import type { StoredEvent } from '../event-store.js';
import type { ClickColumns } from '../batch/click-columns.js';
import { foldClicks, type FoldClicks } from '../batch/fold-clicks.js';
import { BATCH_ID_MEMORY_MS, isImportedBatch, type ClickLog, type StoredClickBatch } from '../click-log.js';
import { newId } from '../../ids.js';
import { NO_TRACES, type TraceSpan, type Traces } from '../../tracing/traces.js';

/** Links a fold's span keeps to the batch spans it counts (the oldest first; the rest are counted in its attributes). */
const FOLD_SPAN_LINKS = 128;
/** What a fold's span says it ran and what wrote (the listeners whose deliverers are told). */
const foldAttributes = (listeners: readonly ClickListener[], written: readonly string[]) => ({
  'waymark.fold.listeners': listeners.map((l) => l.name).join(','),
  'waymark.fold.written': written.length ? written.join(',') : undefined,
});

/** What one fold's listeners share. */
export interface FoldContext {
  /** The fold's time (ms). */
  now: number;
  /**
   * These clicks were imported (`waymark import api --events`: batch ids `isImportedBatch`):
   * history, counted on their links, not in the workspace's usage, and told to no subscriber.
   */
  imported: boolean;
  /** One event id per click, the same for every listener (an outbox row and a delivery of one click). */
  eventIdOf(row: StoredEvent): string;
}

/** One side effect of stored clicks, run in the fold's transaction. */
export interface ClickListener {
  readonly name: string;
  /**
   * Writes what these stored clicks set off; true when it wrote anything (its deliverers are told
   * after the commit). The clicks are columns: rows only of the links a listener asks for.
   */
  count(trx: Kysely<Database>, clicks: FoldClicks, fold: FoldContext): Promise<boolean>;
  /** True when some of these clicks should be counted at once (a subscriber waits for them). */
  urgent?(clicks: FoldClicks): boolean;
}

/**
 * What a module of listeners exports (the app names it: `startEventLog({ listeners: { module } })`):
 * the log thread imports it and builds its listeners once; `settings()` returns the latest the
 * main thread sent (`listeners.settings()` there), read at each fold.
 */
export interface ClickListenerModule {
  clickListeners(options: { dialect: Dialect; settings: () => unknown }): ClickListener[];
}

export interface ClickFoldOptions {
  /** The metadata database (the watermark, and what the listeners write). */
  db: Kysely<Database>;
  log: ClickLog;
  listeners: readonly ClickListener[];
  /** After a fold committed: the names of the listeners that wrote something. */
  onCounted?(written: readonly string[]): void;
  now?: () => number;
  /** A span per fold (`events.fold`): inline, a child of its batch's span; watermark, linked to the batches it counts. */
  traces?: Traces;
}

export interface ClickFold {
  /** Stores the batch through the log (once by its id); inline, counts it in the same transaction. */
  append(batchId: string, clicks: ClickColumns, span?: TraceSpan): Promise<void>;
  /** Watermark: counts every batch stored and not counted yet, in one transaction; returns the clicks counted. */
  fold(): Promise<number>;
  /** Watermark, at start: the batches the store holds after the watermark. */
  recover(): Promise<number>;
  /** Clicks stored and not counted yet. */
  pending(): number;
  /** Whether a batch stored and not counted yet has a listener's `urgent` clicks. */
  urgent(): boolean;
}

/** Folds between forgetting the ids of counted batches (about a minute). */
const FORGET_EVERY = 60;

export function createClickFold(options: ClickFoldOptions): ClickFold {
  const { db, log, listeners } = options;
  const now = options.now ?? Date.now;
  const traces = options.traces ?? NO_TRACES;
  let pending: StoredClickBatch[] = [];
  // The span of each pending batch (watermark), for the fold's links.
  const batchSpans = new Map<number, string>();
  let urgent = false;
  let folds = 0;
  // Folds run one at a time: a fold must not count rows another fold is counting.
  let queue: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn, fn);
    queue = run.catch(() => undefined);
    return run;
  };

  async function countIn(trx: Kysely<Database>, batches: readonly ClickColumns[], imported: boolean): Promise<string[]> {
    const clicks = foldClicks(batches);
    const t = now();
    const ids = new Map<StoredEvent, string>();
    const fold: FoldContext = {
      now: t,
      imported,
      eventIdOf: (row) => {
        let id = ids.get(row);
        if (!id) ids.set(row, (id = newId('evt', t)));
        return id;
      },
    };
    const written: string[] = [];
    if (!clicks.length) return written;
    for (const l of listeners) if (await l.count(trx, clicks, fold)) written.push(l.name);
    return written;
  }

  /** Imported batches wait for no one: no subscriber hears of them. */
  const isUrgent = (batchId: string, batch: ClickColumns) => {
    if (isImportedBatch(batchId) || !listeners.some((l) => l.urgent)) return false;
    const clicks = foldClicks([batch]);
    return listeners.some((l) => l.urgent?.(clicks));
  };

  return {
    async append(batchId, clicks, span) {
      if (log.folding === 'inline') {
        let written: string[] = [];
        const stored = await log.store(batchId, clicks, async (trx, stored) => {
          const foldSpan = traces.start('events.fold', { parent: span, attributes: { 'waymark.fold.mode': 'inline', 'waymark.fold.clicks': stored.length } });
          try {
            written = await countIn(trx, [stored], isImportedBatch(batchId));
            foldSpan.set(foldAttributes(listeners, written));
          } catch (err) {
            foldSpan.fail(err);
            throw err;
          } finally {
            foldSpan.end();
          }
        });
        span?.set({ 'waymark.batch.stored': !!stored });
        if (stored && written.length) options.onCounted?.(written);
        return;
      }
      const seq = await log.store(batchId, clicks);
      span?.set({ 'waymark.batch.stored': seq !== null });
      if (seq === null) return; // stored before: pending already, or read back at start
      const traceparent = span?.traceparent;
      if (traceparent) batchSpans.set(seq, traceparent);
      pending.push({ seq, batchId, clicks });
      if (!urgent && isUrgent(batchId, clicks)) urgent = true;
    },

    fold() {
      return exclusive(async () => {
        if (log.folding === 'inline' || !pending.length) return 0;
        const taking = pending;
        const upTo = taking[taking.length - 1]!.seq;
        const clicks = taking.reduce((n, b) => n + b.clicks.length, 0);
        // Visits and imported history, each counted as what it is, in the one transaction.
        const visits = taking.filter((b) => !isImportedBatch(b.batchId)).map((b) => b.clicks);
        const history = taking.filter((b) => isImportedBatch(b.batchId)).map((b) => b.clicks);
        const links = taking.slice(0, FOLD_SPAN_LINKS).map((b) => batchSpans.get(b.seq)).filter((t): t is string => t !== undefined);
        const span = traces.start('events.fold', { links, attributes: { 'waymark.fold.mode': 'watermark', 'waymark.fold.clicks': clicks, 'waymark.fold.batches': taking.length, 'waymark.fold.seq': upTo } });
        let written: string[];
        try {
          written = await db.transaction().execute(async (trx) => {
            const out = [...new Set([...(await countIn(trx, visits, false)), ...(await countIn(trx, history, true))])];
            await trx.insertInto('event_log_folds').values({ log_id: log.id, folded_seq: upTo })
              .onConflict((oc) => oc.column('log_id').doUpdateSet({ folded_seq: upTo })).execute();
            return out;
          });
          span.set(foldAttributes(listeners, written));
        } catch (err) {
          span.fail(err);
          throw err;
        } finally {
          span.end();
        }
        for (const b of taking) batchSpans.delete(b.seq);
        pending = pending.filter((b) => b.seq > upTo);
        urgent = pending.some((b) => isUrgent(b.batchId, b.clicks));
        if (written.length) options.onCounted?.(written);
        if (++folds % FORGET_EVERY === 0) await log.forget(upTo, now() - BATCH_ID_MEMORY_MS);
        return clicks;
      });
    },

    recover() {
      return exclusive(async () => {
        if (log.folding === 'inline') return 0;
        const row = await db.selectFrom('event_log_folds').select('folded_seq').where('log_id', '=', log.id).executeTakeFirst();
        const batches = await log.after(row ? Number(row.folded_seq) : 0);
        const known = new Set(pending.map((b) => b.seq));
        pending = [...pending, ...batches.filter((b) => !known.has(b.seq))].sort((a, b) => a.seq - b.seq);
        urgent = pending.some((b) => isUrgent(b.batchId, b.clicks));
        return batches.reduce((n, b) => n + b.clicks.length, 0);
      });
    },

    pending: () => pending.reduce((n, b) => n + b.clicks.length, 0),
    urgent: () => urgent,
  };
}

/** A fold may take this share of the log thread's time at most, before the next one is put off. */
export const FOLD_TIME_SHARE = 0.1;
/** How far a busy log thread puts folds off: up to this many base intervals. */
export const FOLD_STRETCH_MAX = 5;

/**
 * The wait before the next fold. A fold costs per link it touches, not per click, so while folds
 * are slow (many links clicked) waiting longer lets each one count more clicks for the same work:
 * the wait grows until the last fold took at most FOLD_TIME_SHARE of it, up to FOLD_STRETCH_MAX
 * base intervals. An idle log folds every base interval.
 *
 * @example
 * nextFoldDelay(1000, 20);  // → 1000: a cheap fold, the base interval
 * nextFoldDelay(1000, 300); // → 3000: folding stays at a tenth of the time
 * nextFoldDelay(1000, 900); // → 5000: the ceiling
 */
export function nextFoldDelay(baseMs: number, lastFoldMs: number): number {
  return Math.min(baseMs * FOLD_STRETCH_MAX, Math.max(baseMs, Math.ceil(lastFoldMs / FOLD_TIME_SHARE)));
}
