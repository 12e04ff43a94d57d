/**
 * Writing click batches, and folding them into what counts them: the analytics rollups and the
 * links' `clicks`/`lastClicked`. Two modes:
 *
 * - `each`: every batch's events, rollups and counters in one transaction. For PostgreSQL, where
 *   several processes write at once and none can know how far the others got.
 * - `coalesced` (one writer: SQLite): a batch's transaction holds its events and the workspaces'
 *   `usage`; every second or so (the worker's timer, `nextFoldDelay`) one fold transaction adds
 *   the clicks written since to the rollups and link counters and moves the watermark `folded_before` (migration 0008):
 *   every click event before it is counted, none after it. Per-link work is what a click costs
 *   most (a rollup row and a link row per link, each on its own page), and a fold of a second's
 *   clicks touches each busy link once instead of once per batch (BENCHMARKS.md, redirects).
 *   While folds are slow, the timer waits longer between them (up to 5 s by default), so each
 *   one takes more clicks for the same per-link work.
 *
 * Analytics stay exact: the planner reads raw events from the watermark on (analytics/planner.ts),
 * and the watermark only moves to the start of a millisecond whose clicks are all folded, so the
 * rollup buckets before it never change again. A click stamped before the watermark (the clock
 * went back) is stamped at the watermark instead. `links.clicks` and `lastClicked` lag by at most
 * one fold. After a crash, the clicks at or after the watermark are read back and folded.
 *
 * @example
 * const fold = createClickFold({ db, writer: events.writer, counters: createLinkCounters(dialect), mode: 'coalesced' });
 * await fold.recover();           // at start: re-reads unfolded clicks
 * await fold.write(rows);         // a flush
 * await fold.fold();              // on the fold timer: rollups, counters, watermark
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { EventWriter, StoredEvent } from './event-writer.js';
import { linkBumps, workspaceBumps, type LinkCounters } from '../counters.js';

export type FoldMode = 'each' | 'coalesced';

export interface ClickFold {
  readonly mode: FoldMode;
  /** One flush: the batch's events (and, in `each` mode, everything that counts them). */
  write(batch: readonly StoredEvent[]): Promise<void>;
  /**
   * Folds the written clicks. Without `all`, the clicks of the newest millisecond wait for the
   * next fold while more may still come with that stamp (for `holdMs`); with `all` (shutdown,
   * tests) everything goes. Returns the watermark, null in `each` mode.
   */
  fold(options?: { all?: boolean }): Promise<number | null>;
  /** Coalesced mode, at start: reads the watermark and the clicks written after it. */
  recover(): Promise<number | null>;
  /** Clicks written and not folded yet. */
  pending(): number;
  /** The current watermark (null in `each` mode). */
  foldedBefore(): number | null;
}

export interface ClickFoldDeps {
  db: Kysely<Database>;
  writer: EventWriter;
  /** The links' and workspaces' click counters (events/counters.ts), updated in the fold's transactions. */
  counters: Pick<LinkCounters, 'addClicks'>;
  /**
   * Writes, in each batch's transaction, `link.clicked` to the outbox (../outbox.ts) and webhook
   * deliveries for the clicks someone subscribes to (redirect/click-announce.ts filters them), so
   * other clicks cost nothing extra.
   */
  announce?: (trx: Kysely<Database>, batch: readonly StoredEvent[]) => Promise<void>;
  mode: FoldMode;
  /** Rows read back per workspace and query during recovery. */
  recoverPage?: number;
  /**
   * How long after its millisecond a click may still arrive (flush interval plus the hand-over;
   * default 500 ms). A later one is stamped at the watermark.
   */
  holdMs?: number;
  now?: () => number;
}

/** A fold may take this share of the writer's time at most, before the next one is put off. */
export const FOLD_TIME_SHARE = 0.1;
/** How far a busy writer puts folds off: up to this many base intervals. */
export const FOLD_STRETCH_MAX = 5;

/**
 * The wait before the next fold. A fold costs per link it touches, not per click, so while folds
 * are slow (many links clicked) waiting longer lets each one count more clicks for the same work:
 * the wait grows until the last fold took at most FOLD_TIME_SHARE of it, up to FOLD_STRETCH_MAX
 * base intervals. An idle writer folds every base interval.
 *
 * @example
 * nextFoldDelay(1000, 20);  // → 1000: a cheap fold, the base interval
 * nextFoldDelay(1000, 300); // → 3000: folding stays at a tenth of the time
 * nextFoldDelay(1000, 900); // → 5000: the ceiling
 */
export function nextFoldDelay(baseMs: number, lastFoldMs: number): number {
  return Math.min(baseMs * FOLD_STRETCH_MAX, Math.max(baseMs, Math.ceil(lastFoldMs / FOLD_TIME_SHARE)));
}

export function createClickFold(deps: ClickFoldDeps): ClickFold {
  const { db, writer, counters, mode, announce } = deps;
  const recoverPage = deps.recoverPage ?? 10_000;
  const holdMs = deps.holdMs ?? 500;
  const now = deps.now ?? Date.now;
  // Written, not folded; in write order, which is timestamp order but for clock steps.
  let pending: StoredEvent[] = [];
  let watermark: number | null = null;
  // Writes and folds run one at a time, in call order: a fold must not take rows whose write
  // has not committed, nor miss rows written while it ran.
  let queue: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn, fn);
    queue = run.catch(() => undefined);
    return run;
  };

  const setWatermark = (trx: Kysely<Database>, value: number) =>
    trx.updateTable('click_rollup_state').set({ folded_before: value }).where('id', '=', 1).execute();

  async function writeEach(batch: readonly StoredEvent[]): Promise<void> {
    await db.transaction().execute(async (trx) => {
      await writer.append(trx, batch);
      await counters.addClicks(trx, linkBumps(batch), workspaceBumps(batch));
      if (announce) await announce(trx, batch);
    });
  }

  async function writeCoalesced(batch: readonly StoredEvent[]): Promise<void> {
    let rows = batch;
    if (watermark !== null) {
      const w = watermark;
      // Folded buckets are final: a click stamped before the watermark joins the first open millisecond.
      if (rows.some((r) => Number(r.timestamp) < w)) rows = rows.map((r) => (Number(r.timestamp) < w ? { ...r, timestamp: w } : r));
    }
    const first = watermark === null ? Math.min(...rows.map((r) => Number(r.timestamp))) : null;
    await db.transaction().execute(async (trx) => {
      await writer.appendUnrolled(trx, rows);
      await counters.addClicks(trx, [], workspaceBumps(rows));
      if (announce) await announce(trx, rows);
      if (first !== null) await setWatermark(trx, first);
    });
    if (first !== null) watermark = first;
    for (const r of rows) pending.push(r);
  }

  return {
    mode,

    write(batch) {
      if (!batch.length) return Promise.resolve();
      return exclusive(() => (mode === 'each' ? writeEach(batch) : writeCoalesced(batch)));
    },

    fold(options = {}) {
      return exclusive(() => foldPending(options.all ?? false));
    },

    recover() {
      return exclusive(recoverPending);
    },

    pending: () => pending.length,
    foldedBefore: () => watermark,
  };

  async function foldPending(all: boolean): Promise<number | null> {
    if (mode === 'each' || !pending.length) return watermark;
    let newest = -Infinity;
    for (const r of pending) newest = Math.max(newest, Number(r.timestamp));
    // The newest millisecond waits while clicks stamped with it may still be on their way.
    const cut = all || now() - newest > holdMs ? newest + 1 : newest;
    const take = pending.filter((r) => Number(r.timestamp) < cut);
    if (!take.length) return watermark;
    await db.transaction().execute(async (trx) => {
      await writer.rollUp(trx, take);
      await counters.addClicks(trx, linkBumps(take), []);
      await setWatermark(trx, cut);
    });
    pending = pending.filter((r) => Number(r.timestamp) >= cut);
    watermark = cut;
    return watermark;
  }

  async function recoverPending(): Promise<number | null> {
    if (mode === 'each') return null;
    const state = await db.selectFrom('click_rollup_state').select('folded_before').where('id', '=', 1).executeTakeFirst();
    const w = state?.folded_before ?? null;
    if (w === null) {
      // Nothing written in this mode yet: everything stored is counted.
      watermark = null;
      pending = [];
      return null;
    }
    watermark = Number(w);
    const found: StoredEvent[] = [];
    const workspaces = await db.selectFrom('workspaces').select('id').execute();
    for (const { id } of workspaces) {
      let after: { timestamp: number; id: string } | null = null;
      for (;;) {
        let q = db
          .selectFrom('events')
          .selectAll()
          .where('workspace_id', '=', id)
          .where('kind', '=', 'click')
          .where('timestamp', '>=', watermark)
          .orderBy('timestamp')
          .orderBy('id')
          .limit(recoverPage);
        if (after) {
          const a: { timestamp: number; id: string } = after;
          q = q.where((eb) => eb(eb.refTuple('timestamp', 'id'), '>', eb.tuple(a.timestamp, a.id)));
        }
        const rows = (await q.execute()) as StoredEvent[];
        for (const r of rows) found.push({ ...r, timestamp: Number(r.timestamp) });
        if (rows.length < recoverPage) break;
        const last = rows[rows.length - 1]!;
        after = { timestamp: Number(last.timestamp), id: last.id };
      }
    }
    found.sort((a, b) => Number(a.timestamp) - Number(b.timestamp));
    pending = found;
    return watermark;
  }
}
