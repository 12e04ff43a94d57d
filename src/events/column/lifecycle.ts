/**
 * The column store's part of the log thread's start and shutdown (log/service.ts): every
 * ROUND_INTERVAL_MS, the erasures whose metadata half committed are applied and the event-file
 * backups `waymark backup` asked for are written (backup-requests.ts); every tenth round, the
 * leads and sales another process wrote to the metadata database are copied too; a minute after
 * start and then hourly, DuckDB rewrites closed weeks in workspace order (`compact`,
 * duckdb/duckdb-engine.ts); at shutdown a last round, then the store closes (DuckDB checkpoints
 * its file). Clicks are not moved here: they reach the column store only through `appendClicks`.
 *
 * @example
 * lifecycles.push(columnLifecycle(columnEvents, (err) => log.warn({ err }), { compact: () => engine.compact(Date.now(), Infinity, 7) }));
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { ColumnEventStore } from './store.js';
import { serveBackupRequests, type EventFileBackup } from './backup-requests.js';

/** How often erasure hand-offs and backup requests are served. */
export const ROUND_INTERVAL_MS = 1000;
/** Rounds between full catch-ups (conversions too): other processes' leads and sales show within ~10 s. */
const CATCH_UP_TICKS = 10;
/** The first compaction a minute after start (an upgrade's history at once), then hourly. */
export const COMPACT_FIRST_MS = 60_000;
export const COMPACT_EVERY_MS = 3_600_000;

export interface ColumnLifecycleOptions {
  /** Event-file backups asked for through the metadata database (DuckDB). */
  backups?: { db: Kysely<Database>; engine: EventFileBackup };
  /** Rewrites closed periods in workspace order (DuckDB); run on its own timer, one run at a time. */
  compact?: () => Promise<unknown>;
  compactFirstMs?: number;
  compactEveryMs?: number;
}

export function columnLifecycle(store: ColumnEventStore | undefined, onError: (err: unknown) => void, options: ColumnLifecycleOptions = {}): { start?(): void; close?(): Promise<void> } {
  if (!store) return {};
  const { backups, compact } = options;
  let timer: NodeJS.Timeout | undefined;
  let compactTimer: NodeJS.Timeout | undefined;
  let compacting: Promise<void> = Promise.resolve();
  let closing = false;
  const runCompaction = () => {
    if (!compact || closing) return;
    compacting = compact().then(
      () => undefined,
      (err) => onError(err),
    ).finally(() => {
      if (closing) return;
      compactTimer = setTimeout(runCompaction, options.compactEveryMs ?? COMPACT_EVERY_MS);
      compactTimer.unref();
    });
  };
  let round: Promise<void> = Promise.resolve();
  let busy = false;
  let ticks = 0;
  const serveRound = () => {
    if (busy) return round;
    busy = true;
    // Every CATCH_UP_TICKS rounds, also the leads and sales written to the metadata database by
    // another process (`waymark import api` while the server runs): compared by counts per workspace.
    // First the erasures whose metadata half committed and whose hand-off was not applied yet.
    const work = ++ticks % CATCH_UP_TICKS === 0 ? store.catchUp() : store.applyErasures();
    round = work.then(async () => {
      if (backups) await serveBackupRequests(backups.db, backups.engine);
    }).then(
      () => undefined,
      (err) => onError(err),
    ).finally(() => {
      busy = false;
    });
    return round;
  };
  return {
    start() {
      timer = setInterval(() => void serveRound(), ROUND_INTERVAL_MS);
      timer.unref();
      if (compact) {
        compactTimer = setTimeout(runCompaction, options.compactFirstMs ?? COMPACT_FIRST_MS);
        compactTimer.unref();
      }
    },
    async close() {
      closing = true;
      if (timer) clearInterval(timer);
      if (compactTimer) clearTimeout(compactTimer);
      // A compaction under way finishes its period (the engine's writer queue would run it anyway).
      await compacting;
      await round;
      await serveRound();
      await store.close();
    },
  };
}
