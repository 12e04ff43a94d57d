/**
 * The column store's owner's side of the click journal (click-journal.ts): appends each batch's
 * CSV file to the column store as soon as its journal row committed (`take`), and, at start and
 * on a timer, the journal's batches the column store may still lack (`catchUp`: an append that
 * failed, a crash before an acknowledgement). The column store records each file's name in the
 * append's transaction and skips a file it recorded, so taking a batch twice adds nothing; a
 * catch-up also skips stored ids, for files an earlier version appended without recording them.
 * Every append is acknowledged so the journal row (and its file, which the journal's writer
 * deletes with it) can go.
 *
 * @example
 * const feed = createJournalFeed({ db, engine, dir, acknowledge: (seqs) => sink.stored(seqs) });
 * await feed.catchUp(0);                 // at start
 * await feed.take(await sink.write(rows)); // after each batch
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import { mergeBumps, type JournaledBatch } from './click-journal.js';
import type { LinkBump, LinkCounters } from '../../links/counters.js';

/** How `appendCsvFile` keeps an append idempotent. */
export interface CsvAppendOptions {
  /**
   * Each file's name is recorded in the append's transaction, and a file recorded before is
   * skipped (default true: the click journal never reuses a batch file's name).
   */
  once?: boolean;
  /**
   * Rows whose id is stored already are skipped, looked for among the stored events of the files'
   * workspaces and time span (an event's copies share both). For files an earlier version may have
   * appended without recording them, and for the upgrade, whose batches may repeat rows.
   */
  skipStoredIds?: boolean;
}

/** What the feed needs of the column store: DuckDB's CSV append (duckdb/engine.ts). */
export interface CsvAppender {
  /** One file, or several in one transaction, idempotently as `options` says (by default a file is appended once). */
  appendCsvFile(path: string | readonly string[], options?: CsvAppendOptions): Promise<number>;
  /** Forgets the names of files appended before `before` (ms). */
  forgetAppendedFiles?(before: number): Promise<number>;
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
  /** The link counters, which `finish` adds the batches it stored to (the writer has stopped by then). */
  counters?: Pick<LinkCounters, 'addClicks'>;
  onError?(err: unknown): void;
  now?: () => number;
}

export interface JournalFeed {
  /**
   * Queues a just-committed batch for appending and returns at once: the batch is durable in the
   * journal, and while an append runs the next ones gather into one statement. A failed append
   * stays in the journal for `catchUp`.
   */
  take(batch: JournaledBatch | void): void;
  /** Resolves once every batch taken before the call has been appended (or its append failed). */
  settled(): Promise<void>;
  /** Appends journal batches not acknowledged and at least `minAgeMs` old; returns how many batches. */
  catchUp(minAgeMs: number): Promise<number>;
  /**
   * At shutdown, once the journal's writer has stopped (its last fold done, so acknowledgements
   * could no longer reach it): appends what the journal still holds and marks it stored here,
   * deleting the rows (and files) that are then finished. Returns the rows deleted.
   */
  finish(): Promise<number>;
}

/** Journal rows read per catch-up query (each holds a batch's CSV). */
const CATCH_UP_ROWS = 20;
/**
 * How long the column store remembers an appended file's name. A journal row goes seconds after
 * its append; one kept longer (its append acknowledged, the row not yet deleted by a crash) is
 * appended by `catchUp`, which skips stored ids as well.
 */
export const APPENDED_FILE_MEMORY_MS = 7 * 86_400_000;
/** Catch-up's appends: by name, and by id for files of an earlier version. */
const CATCH_UP_APPEND = { once: true, skipStoredIds: true } as const;

export function createJournalFeed(deps: JournalFeedDeps): JournalFeed {
  const { db, engine, dir, acknowledge } = deps;
  const now = deps.now ?? Date.now;
  /** Batches being appended by `take` right now: catch-up leaves them alone. */
  const inFlight = new Set<number>();
  // Batches waiting for the append under way: the next append takes them all in one statement
  // (a statement costs milliseconds whatever its size; while DuckDB is busy, appends grow).
  let queued: JournaledBatch[] = [];
  let appending = false;
  /** Batches taken, and batches whose append finished, in take order; waiters by the count they wait for. */
  let taken = 0;
  let finished = 0;
  let waiters: { until: number; resolve: () => void }[] = [];

  async function appendQueued(): Promise<void> {
    appending = true;
    try {
      while (queued.length) {
        const group = queued;
        queued = [];
        try {
          await engine.appendCsvFile(group.map((b) => b.file));
          acknowledge(group.map((b) => b.seq));
        } catch (err) {
          deps.onError?.(err);
        } finally {
          for (const b of group) inFlight.delete(b.seq);
          finished += group.length;
          const ready = waiters.filter((w) => w.until <= finished);
          waiters = waiters.filter((w) => w.until > finished);
          for (const w of ready) w.resolve();
        }
      }
    } finally {
      appending = false;
    }
  }

  return {
    take(batch) {
      if (!batch) return;
      inFlight.add(batch.seq);
      queued.push(batch);
      taken++;
      if (!appending) void appendQueued();
    },

    settled() {
      if (finished >= taken) return Promise.resolve();
      const until = taken;
      return new Promise<void>((resolve) => waiters.push({ until, resolve }));
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
          } else await engine.appendCsvFile(file, CATCH_UP_APPEND);
          done.push(Number(r.seq));
        }
        if (done.length) acknowledge(done);
        taken += done.length;
      }
      await engine.forgetAppendedFiles?.(now() - APPENDED_FILE_MEMORY_MS);
      return taken;
    },

    async finish() {
      await this.settled();
      const rows = await db.selectFrom('click_journal').select(['seq', 'file', 'counted', 'stored', 'bumps']).execute();
      // Not known stored: appended unless recorded (or its ids stored); marked stored only if that worked.
      const unsure = rows.filter((r) => Number(r.stored) === 0 && existsSync(join(dir, r.file)));
      if (unsure.length) await engine.appendCsvFile(unsure.map((r) => join(dir, r.file)), CATCH_UP_APPEND);
      const storedNow = new Set(unsure.map((r) => Number(r.seq)));
      const stored = (r: { seq: unknown; stored: unknown }) => Number(r.stored) === 1 || storedNow.has(Number(r.seq));
      // Stored, not counted yet (counters follow what is stored, click-journal.ts): counted here.
      const countNow = deps.counters ? rows.filter((r) => Number(r.counted) === 0 && stored(r)) : [];
      const finished = rows.filter((r) => (Number(r.counted) === 1 || countNow.includes(r)) && stored(r));
      if (!storedNow.size && !finished.length) return 0;
      await db.transaction().execute(async (trx) => {
        if (countNow.length) {
          await deps.counters!.addClicks(trx, mergeBumps(countNow.map((r) => JSON.parse(r.bumps) as LinkBump[])), []);
          await trx.updateTable('click_journal').set({ counted: 1 }).where('seq', 'in', countNow.map((r) => Number(r.seq))).execute();
        }
        if (storedNow.size) await trx.updateTable('click_journal').set({ stored: 1 }).where('seq', 'in', [...storedNow]).execute();
        await trx.deleteFrom('click_journal').where('counted', '=', 1).where('stored', '=', 1).execute();
      });
      for (const r of finished) rmSync(join(dir, r.file), { force: true });
      return finished.length;
    },
  };
}
