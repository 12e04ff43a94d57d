/**
 * The column store's part of the app's start and shutdown (app.ts): every MOVE_INTERVAL_MS, the
 * clicks left in the metadata database are moved into the column store (with ClickHouse, all the
 * click writer's clicks once the click fold has counted them; with DuckDB, whose clicks come
 * through the click journal, only those of appends joined to a transaction), and the event-file
 * backups `waymark backup` asked for are written (backup-requests.ts); every tenth round, the
 * leads and sales another process wrote to the metadata database are copied too; at shutdown, after the
 * click writer's last flush, a last move, then the store closes (DuckDB checkpoints its file).
 *
 * @example
 * lifecycles.push(columnLifecycle(columnEvents, (err) => log.warn({ err })));
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { ColumnEventStore } from './store.js';
import { serveBackupRequests, type EventFileBackup } from './backup-requests.js';

/** How often written clicks are moved: analytics see a click within about this long. */
export const MOVE_INTERVAL_MS = 1000;
/** Rounds between full catch-ups (conversions too): other processes' leads and sales show within ~10 s. */
const CATCH_UP_TICKS = 10;

export function columnLifecycle(store: ColumnEventStore | undefined, onError: (err: unknown) => void, backups?: { db: Kysely<Database>; engine: EventFileBackup }): { start?(): void; close?(): Promise<void> } {
  if (!store) return {};
  let timer: NodeJS.Timeout | undefined;
  let round: Promise<void> = Promise.resolve();
  let busy = false;
  let ticks = 0;
  const move = () => {
    if (busy) return round;
    busy = true;
    // Every CATCH_UP_TICKS rounds, also the leads and sales written to the metadata database by
    // another process (`waymark import api` while the server runs): compared by counts per workspace.
    const work = ++ticks % CATCH_UP_TICKS === 0 ? store.catchUp() : store.moveClicks();
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
      timer = setInterval(() => void move(), MOVE_INTERVAL_MS);
      timer.unref();
    },
    async close() {
      if (timer) clearInterval(timer);
      await round;
      await move();
      await store.close();
    },
  };
}
