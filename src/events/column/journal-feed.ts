/**
 * The column store's owner's side of the click journal (click-journal.ts): appends each batch's
 * CSV file to the column store as soon as its journal row committed (`take`), and, at start and
 * on a timer, the journal's batches the column store may still lack (`catchUp`: an append that
 * failed, a crash before an acknowledgement). Each append skips stored ids, so taking a batch
 * twice adds nothing; every append is acknowledged so the journal row (and its file, which the
 * journal's writer deletes with it) can go.
 *
 * @example
 * const feed = createJournalFeed({ db, engine, dir, acknowledge: (seqs) => sink.stored(seqs) });
 * await feed.catchUp(0);                 // at start
 * await feed.take(await sink.write(rows)); // after each batch
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { JournaledBatch } from './click-journal.js';

/** What the feed needs of the column store: DuckDB's CSV append (duckdb/engine.ts). */
export interface CsvAppender {
  appendCsvFile(path: string): Promise<number>;
}

/** The column store as the click writer sees it: CSV appends, and which click ids it holds. */
export interface ClickColumn extends CsvAppender {
  existingIds(ids: readonly string[]): Promise<string[]>;
}

export interface JournalFeedDeps {
  db: Kysely<Database>;
  engine: CsvAppender;
  /** The batch folder (the journal rows name files in it). */
  dir: string;
  /** Tells the journal's writer that the column store holds these batches. */
  acknowledge(seqs: readonly number[]): void;
  onError?(err: unknown): void;
  now?: () => number;
}

export interface JournalFeed {
  /** Appends a just-committed batch. Never throws: a failed append stays in the journal for `catchUp`. */
  take(batch: JournaledBatch | void): Promise<void>;
  /** Appends journal batches not acknowledged and at least `minAgeMs` old; returns how many batches. */
  catchUp(minAgeMs: number): Promise<number>;
}

/** Journal rows read per catch-up query (each holds a batch's CSV). */
const CATCH_UP_ROWS = 20;

export function createJournalFeed(deps: JournalFeedDeps): JournalFeed {
  const { db, engine, dir, acknowledge } = deps;
  const now = deps.now ?? Date.now;
  /** Batches being appended by `take` right now: catch-up leaves them alone. */
  const inFlight = new Set<number>();

  return {
    async take(batch) {
      if (!batch) return;
      inFlight.add(batch.seq);
      try {
        await engine.appendCsvFile(batch.file);
        acknowledge([batch.seq]);
      } catch (err) {
        deps.onError?.(err);
      } finally {
        inFlight.delete(batch.seq);
      }
    },

    async catchUp(minAgeMs) {
      const seqs = (await db.selectFrom('click_journal').select('seq').where('stored', '=', 0).where('created_at', '<=', now() - minAgeMs).orderBy('seq').execute())
        .map((r) => Number(r.seq))
        .filter((s) => !inFlight.has(s));
      let taken = 0;
      for (let i = 0; i < seqs.length; i += CATCH_UP_ROWS) {
        const rows = await db.selectFrom('click_journal').select(['seq', 'file', 'clicks']).where('seq', 'in', seqs.slice(i, i + CATCH_UP_ROWS)).execute();
        const done: number[] = [];
        for (const r of rows) {
          const file = join(dir, r.file);
          if (!existsSync(file)) {
            // Only a file deleted by hand gets here: its clicks are counted and cannot be stored.
            deps.onError?.(new Error(`click batch file ${file} is missing: its ${r.clicks} clicks cannot be added to the column store`));
          } else await engine.appendCsvFile(file);
          done.push(Number(r.seq));
        }
        if (done.length) acknowledge(done);
        taken += done.length;
      }
      return taken;
    },
  };
}
