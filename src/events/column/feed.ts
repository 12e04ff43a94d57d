/**
 * Feeds the column store from the metadata database, so nothing is half-written across the two:
 * leads and sales commit first in the metadata database's `events` table (in the caller's
 * transaction: conversions.ts), the durable source; they are copied into the column store after
 * the commit, idempotently by event id (the engine skips stored ids). Clicks never come this way:
 * they reach the column store only through the event log's `appendClicks`. Two paths:
 *
 * - `schedule(ids)`: right after such an append, the ids are retried a few times until their
 *   transaction has committed (then they are copied) or for `giveUpMs` (rolled back, or still open:
 *   the catch-up takes them).
 * - `catchUp()`: at start, and whenever asked, copies every lead and sale the column store lacks
 *   (found by comparing counts per workspace, then ids of the workspaces that differ). A crash
 *   between a commit and its copy loses nothing.
 *
 * @example
 * const feed = createFeed(db, engine);
 * await feed.catchUp();      // at start
 * feed.schedule(['evt_1']);  // after an append in the caller's transaction
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { ColumnEngine } from './column-engine.js';
import { conversionCountsQuery } from './query-sql.js';
import { conversionCounts, ID_CHUNK, rowsByIds } from './metadata-events.js';

export interface Feed {
  schedule(ids: readonly string[]): void;
  /** Copies the leads and sales the column store lacks; returns how many it copied. */
  catchUp(): Promise<number>;
  /** Waits for scheduled copies now (tests, shutdown). */
  drain(): Promise<void>;
  stop(): void;
}

export interface FeedOptions {
  /** First retry delay of a scheduled copy, doubled each time (default 10 ms). */
  retryMs?: number;
  /** How long a scheduled id is retried before the catch-up is left to take it (default 30 s). */
  giveUpMs?: number;
  onError?(err: unknown): void;
}

/** Copies the rows with these ids that the metadata database has committed; returns the ids it found. */
async function copy(db: Kysely<Database>, engine: ColumnEngine, ids: readonly string[]): Promise<Set<string>> {
  const rows = (await rowsByIds(db, ids)).filter((r) => r.kind !== 'click');
  if (rows.length) await engine.append(rows);
  return new Set(rows.map((r) => r.id));
}

export function createFeed(db: Kysely<Database>, engine: ColumnEngine, options: FeedOptions = {}): Feed {
  const retryMs = options.retryMs ?? 10;
  const giveUpMs = options.giveUpMs ?? 30_000;
  /** Scheduled ids and when they were first scheduled. */
  const pending = new Map<string, number>();
  let timer: NodeJS.Timeout | undefined;
  let delay = retryMs;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;

  async function round(): Promise<void> {
    const ids = [...pending.keys()];
    if (!ids.length) return;
    const found = await copy(db, engine, ids);
    const now = Date.now();
    for (const id of ids) if (found.has(id) || now - pending.get(id)! > giveUpMs) pending.delete(id);
  }

  function arm(): void {
    if (timer || stopped || !pending.size) return;
    timer = setTimeout(() => {
      timer = undefined;
      running = running.then(round).then(
        () => {
          delay = pending.size ? Math.min(delay * 2, 2000) : retryMs;
          arm();
        },
        (err) => {
          options.onError?.(err);
          delay = Math.min(delay * 2, 2000);
          arm();
        },
      );
    }, delay);
    timer.unref();
  }

  return {
    schedule(ids) {
      const now = Date.now();
      for (const id of ids) if (!pending.has(id)) pending.set(id, now);
      delay = retryMs;
      arm();
    },

    async drain() {
      await running;
      running = running.then(round);
      await running;
    },

    async catchUp() {
      let copied = 0;
      // Leads and sales: only workspaces whose counts differ are compared id by id.
      const want = await conversionCounts(db);
      const have = new Map((await engine.query(conversionCountsQuery(engine.dialect))).map((r) => [String(r.workspace_id), Number(r.n)]));
      for (const [workspaceId, n] of want) {
        if ((have.get(workspaceId) ?? 0) >= n) continue;
        let after = '';
        for (;;) {
          const page = await db.selectFrom('events').select('id').where('workspace_id', '=', workspaceId).where('kind', '<>', 'click')
            .where('id', '>', after).orderBy('id').limit(ID_CHUNK).execute();
          if (!page.length) break;
          after = page[page.length - 1]!.id;
          const ids = page.map((r) => r.id);
          const stored = new Set(await engine.existingIds(ids));
          const missing = ids.filter((id) => !stored.has(id));
          if (missing.length) copied += (await copy(db, engine, missing)).size;
        }
      }
      return copied;
    },

    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}
