/**
 * The click writer's side of the column store: each batch is written as a CSV file in the batch
 * folder, then commits once, in the metadata database, as a `click_journal` row (migration 0017)
 * naming that file, in one transaction with the workspaces' usage and the batch's outbox rows; the
 * column store then takes the file, idempotently by event id (journal-feed.ts, on the thread that
 * owns the DuckDB instance). So no click row is written to the metadata database's indexed
 * `events` table, and nothing is half-written across the two databases: the row and its file are
 * the durable copy until both of the row's flags are set. The file is written before the commit
 * and, like SQLite's commits (`synchronous = NORMAL`), survives the process's death, not the
 * machine's power loss; a file whose row never committed is deleted at the next start (`recover`).
 *
 * - `counted`: the link counters (`clicks`, `lastClicked`) include the batch. Like the SQL store's
 *   coalesced fold, counters are added about once a second for every batch stored since (`fold`),
 *   so a busy link's row is written once per fold, not once per batch; the journal row's `bumps`
 *   (per-link counts) let a restart add what a crash left uncounted (`recover`). A batch is counted
 *   only once the column store holds it, so the counters never run ahead of the events analytics
 *   read, however long the column store refuses appends (a full disk: issue 26).
 * - `stored`: the column store holds the batch (the owner's acknowledgement, `stored(seqs)`, set
 *   in the next fold). A row whose acknowledgement was lost (a crash) is appended again at the
 *   next start: the column store skips a file it recorded as appended.
 *
 * Batch numbers start from the clock (µs) at `recover`, so a number is never reused: an
 * acknowledgement meant for an earlier worker cannot mark a new batch.
 *
 * @example
 * const journal = createClickJournal({ db, counters, dir });
 * await journal.recover();
 * const { seq, file } = await journal.write(rows); // committed; the column store takes the file
 * journal.stored([seq]);                           // once the column store took the file
 * await journal.fold();                            // counters, flags, finished rows deleted
 */
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { StoredEvent } from '../event-store.js';
import { linkBumps, workspaceBumps, type LinkBump, type LinkCounters } from '../../links/counters.js';
import { csvEventIds, eventsCsv } from './csv.js';

/** A committed batch, and the CSV file holding it. */
export interface JournaledBatch {
  seq: number;
  /** Its path (the batch folder and the row's `file`). */
  file: string;
}

/** A batch's file name in the batch folder. */
export const batchFileName = (seq: number) => `clicks-${seq}.csv`;

export interface ClickJournal {
  /** Writes the batch's CSV file into `dir`, then commits it (journal row, usage, outbox). */
  write(batch: readonly StoredEvent[]): Promise<JournaledBatch>;
  /** The column store holds these batches (applied at the next fold). */
  stored(seqs: readonly number[]): void;
  /** Adds the batches stored since to the link counters, sets the flags, deletes finished rows. */
  fold(): Promise<void>;
  /** At start: the next batch number, and the batches a crash left uncounted. */
  recover(): Promise<void>;
  /** Acknowledgements not applied yet, and stored batches not counted yet: what a fold has to do. */
  pending(): number;
  /** Which of these click ids are in batches the column store may not hold yet. */
  existingClickIds(ids: readonly string[]): Promise<string[]>;
}

export interface ClickJournalDeps {
  db: Kysely<Database>;
  counters: Pick<LinkCounters, 'addClicks'>;
  /** The batch folder: a durable place beside the event file (events/open.ts). */
  dir: string;
  /** Outbox rows and webhook deliveries of the batch, in its transaction (redirect/click-announce.ts). */
  announce?: (trx: Kysely<Database>, batch: readonly StoredEvent[]) => Promise<void>;
  now?: () => number;
}

/** Journal rows touched per statement. */
const SEQ_CHUNK = 500;

/** The bumps of several batches as one: clicks added, the newest click kept. */
export function mergeBumps(lists: readonly (readonly LinkBump[])[]): LinkBump[] {
  const merged = new Map<string, LinkBump>();
  for (const list of lists) {
    for (const b of list) {
      const m = merged.get(b.id);
      if (m) {
        m.clicks += b.clicks;
        m.lastClicked = Math.max(m.lastClicked, b.lastClicked);
      } else merged.set(b.id, { ...b });
    }
  }
  return [...merged.values()];
}

export function createClickJournal(deps: ClickJournalDeps): ClickJournal {
  const { db, counters, dir, announce } = deps;
  const now = deps.now ?? Date.now;
  let nextSeq = now() * 1000;
  /** Written, not counted: batch number → its bumps. */
  let uncounted = new Map<number, LinkBump[]>();
  /** Acknowledged by the column store's owner, flag not set yet. */
  let acknowledged = new Set<number>();
  /** Stored (the flag set by an earlier run), not counted yet. */
  const storedUncounted = new Set<number>();
  // Writes and folds one at a time, in call order (a fold must see every committed write).
  let queue: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn, fn);
    queue = run.catch(() => undefined);
    return run;
  };

  async function setFlag(trx: Kysely<Database>, flag: 'counted' | 'stored', seqs: readonly number[]): Promise<void> {
    for (let i = 0; i < seqs.length; i += SEQ_CHUNK) {
      await trx.updateTable('click_journal').set({ [flag]: 1 }).where('seq', 'in', seqs.slice(i, i + SEQ_CHUNK)).execute();
    }
  }

  return {
    write(batch) {
      return exclusive(async () => {
        const seq = nextSeq++;
        const name = batchFileName(seq);
        const file = join(dir, name);
        const bumps = linkBumps(batch);
        writeFileSync(file, eventsCsv(batch));
        try {
          await db.transaction().execute(async (trx) => {
            await trx.insertInto('click_journal').values({ seq, created_at: now(), clicks: batch.length, file: name, bumps: JSON.stringify(bumps), counted: 0, stored: 0 }).execute();
            await counters.addClicks(trx, [], workspaceBumps(batch));
            if (announce) await announce(trx, batch);
          });
        } catch (err) {
          rmSync(file, { force: true });
          throw err;
        }
        uncounted.set(seq, bumps);
        return { seq, file };
      });
    },

    stored(seqs) {
      for (const s of seqs) acknowledged.add(s);
    },

    fold() {
      return exclusive(async () => {
        if (!acknowledged.size && !storedUncounted.size) return;
        const storing = acknowledged;
        // Only batches the column store holds are counted: the counters follow the events.
        const counting = new Map([...uncounted].filter(([s]) => storing.has(s) || storedUncounted.has(s)));
        let finished: { file: string }[] = [];
        for (const s of counting.keys()) uncounted.delete(s);
        acknowledged = new Set();
        try {
          await db.transaction().execute(async (trx) => {
            if (counting.size) {
              await counters.addClicks(trx, mergeBumps([...counting.values()]), []);
              await setFlag(trx, 'counted', [...counting.keys()]);
            }
            await setFlag(trx, 'stored', [...storing]);
            finished = await trx.selectFrom('click_journal').select('file').where('counted', '=', 1).where('stored', '=', 1).execute();
            await trx.deleteFrom('click_journal').where('counted', '=', 1).where('stored', '=', 1).execute();
          });
        } catch (err) {
          // Nothing committed: the next fold takes these again.
          for (const [s, b] of counting) uncounted.set(s, b);
          for (const s of storing) acknowledged.add(s);
          throw err;
        }
        for (const s of counting.keys()) storedUncounted.delete(s);
        // After the commit; a file left by a crash here is removed by the next `recover`.
        for (const f of finished) rmSync(join(dir, f.file), { force: true });
      });
    },

    recover() {
      return exclusive(async () => {
        const top = await db.selectFrom('click_journal').select((eb) => eb.fn.max('seq').as('seq')).executeTakeFirst();
        nextSeq = Math.max(nextSeq, Number(top?.seq ?? 0) + 1, now() * 1000);
        const rows = await db.selectFrom('click_journal').select(['seq', 'bumps', 'counted', 'stored', 'file']).execute();
        for (const r of rows) {
          if (Number(r.counted) !== 0) continue;
          uncounted.set(Number(r.seq), JSON.parse(r.bumps) as LinkBump[]);
          if (Number(r.stored) === 1) storedUncounted.add(Number(r.seq));
        }
        // Files no row names: written by a batch whose commit never happened, or left after their row went.
        mkdirSync(dir, { recursive: true });
        const named = new Set(rows.map((r) => r.file));
        for (const f of readdirSync(dir)) if (/^clicks-\d+\.csv$/.test(f) && !named.has(f)) rmSync(join(dir, f), { force: true });
      });
    },

    pending: () => acknowledged.size + storedUncounted.size,

    async existingClickIds(ids) {
      const wanted = new Set(ids);
      const out: string[] = [];
      const rows = await db.selectFrom('click_journal').select('file').where('stored', '=', 0).execute();
      for (const r of rows) {
        let text: string;
        try {
          text = readFileSync(join(dir, r.file), 'utf8');
        } catch {
          continue;
        }
        for (const id of csvEventIds(text)) if (wanted.has(id)) out.push(id);
      }
      return out;
    },
  };
}
