/**
 * The column store's part of the app's start and shutdown (app.ts): until the click writer writes
 * the column store itself (it writes the SQL store today: redirect/flush-worker.ts), the clicks it
 * wrote are moved into the column store once the click fold has counted them, every
 * MOVE_INTERVAL_MS; at shutdown, after the click writer's last flush, a last move, then the
 * store closes (DuckDB checkpoints its file).
 *
 * @example
 * lifecycles.push(columnLifecycle(columnEvents, (err) => log.warn({ err })));
 */
import type { ColumnEventStore } from './store.js';

/** How often written clicks are moved: analytics see a click within about this long. */
export const MOVE_INTERVAL_MS = 1000;

export function columnLifecycle(store: ColumnEventStore | undefined, onError: (err: unknown) => void): { start?(): void; close?(): Promise<void> } {
  if (!store) return {};
  let timer: NodeJS.Timeout | undefined;
  let round: Promise<void> = Promise.resolve();
  let busy = false;
  const move = () => {
    if (busy) return round;
    busy = true;
    round = store.moveClicks().then(
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
