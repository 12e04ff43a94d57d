/**
 * How a store keeps click batches so that each is stored once and counted once (the fold,
 * log/fold.ts, runs the counting: link counters, usage, outbox rows, webhook deliveries). Two
 * shapes, one per kind of store:
 *
 * - `inline`: the counting runs in the transaction that stores the batch. The SQL store, whose
 *   events live in the metadata database, and ClickHouse, which has no transactions: there the
 *   metadata database's transaction records the batch id, counts, and inserts into ClickHouse as
 *   its last step, deduplicated by the batch id should a commit go unheard. Several processes may
 *   write one database this way.
 * - `watermark`: the store records each batch with a number in its own log, in commit order, and
 *   the fold counts the batches after a watermark kept in the metadata database, in one transaction
 *   with the counting (DuckDB: one process owns the file, so its batches are numbered in one order).
 *   A crash between the store's commit and the fold's is repaired by the next fold.
 *
 * @example
 * const log = store.clickLog;
 * if (log.folding === 'inline') await log.store(batchId, columns, (trx, stored) => countClicks(trx, stored));
 * else { const seq = await log.store(batchId, columns); … later: await log.after(watermark) }
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.js';
import type { ClickColumns } from './batch/click-columns.js';

/** A stored click batch as the fold reads it back: its number in the store's log, its id and its clicks. */
export interface StoredClickBatch {
  seq: number;
  batchId: string;
  clicks: ClickColumns;
}

/**
 * Batch ids of imported clicks (`waymark import api --events`) start with this: the fold counts
 * them on their links (clicks, `lastClicked`) but not in the workspace's monthly usage, and tells
 * no subscriber (they are history, not visits).
 */
export const IMPORTED_BATCH_PREFIX = 'imp_';
export const isImportedBatch = (batchId: string): boolean => batchId.startsWith(IMPORTED_BATCH_PREFIX);

/** The counting of stored clicks, in the metadata database's transaction that records it. */
export type CountClicks = (trx: Kysely<Database>, clicks: ClickColumns) => Promise<void>;

export type ClickLog =
  | {
      readonly folding: 'inline';
      /**
       * Stores the batch once: false when its id was stored before (nothing added, nothing counted
       * again). `count` runs in the transaction that stores it.
       */
      store(batchId: string, clicks: ClickColumns, count?: CountClicks): Promise<boolean>;
      /** Forgets the ids of batches stored before `before` (ms): a retry comes within seconds. */
      forgetBatchIds(before: number): Promise<void>;
    }
  | {
      readonly folding: 'watermark';
      /** The log's own id, under which the fold keeps its watermark in the metadata database. */
      readonly id: string;
      /** Stores the batch once; returns its number, or null when its id was stored before. */
      store(batchId: string, clicks: ClickColumns): Promise<number | null>;
      /** The batches numbered after `seq`, in order, with their clicks. */
      after(seq: number): Promise<StoredClickBatch[]>;
      /** Forgets batches numbered up to `upTo` (counted) and stored before `before` (ms). */
      forget(upTo: number, before: number): Promise<void>;
    };

/** How long a stored batch's id is remembered: a retry after an unheard commit comes within seconds. */
export const BATCH_ID_MEMORY_MS = 3_600_000;

/**
 * Records a click batch's id in the metadata database's `click_batches`, inside `trx`: false when
 * it was recorded before (a retry whose first commit went unheard), and the batch is not stored again.
 */
export async function recordBatchOnce(trx: Kysely<Database>, batchId: string): Promise<boolean> {
  const recorded = await trx.insertInto('click_batches').values({ batch_id: batchId, appended_at: Date.now() })
    .onConflict((oc) => oc.column('batch_id').doNothing()).executeTakeFirst();
  return Number(recorded.numInsertedOrUpdatedRows ?? 0) > 0;
}
