/**
 * The retention pass on a thread of its own, for a SQLite file: better-sqlite3 is synchronous,
 * and a 5,000-event delete on the redirect thread would hold every redirect for its length. Here
 * it runs on the thread's own connection at the click writer's nice value; SQLite's one write
 * lock is taken a batch at a time, and the pause between batches lets the click writer commit.
 *
 * Messages in: `{ type: 'purge', id, pass, batch, pauseMs }`, `{ type: 'close' }` (stop after
 * the batch in flight, close the connection). Out: `{ type: 'done', id, result }`,
 * `{ type: 'failed', id, message }`, `{ type: 'closed' }`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../db/open.js';
import { createSqlEventStore } from './sql/store.js';
import { purge, type PurgeResult, type RetentionPass } from './retention.js';
import { lowerThreadPriority } from '../thread-priority.js';

export interface RetentionWorkerData {
  url: string;
  nice?: number;
}

export type RetentionRequest = { type: 'purge'; id: number; pass: RetentionPass; batch: number; pauseMs: number } | { type: 'close' };
export type RetentionReply = { type: 'done'; id: number; result: PurgeResult } | { type: 'failed'; id: number; message: string } | { type: 'closed' };

const port = parentPort!;
const { url, nice } = workerData as RetentionWorkerData;
lowerThreadPriority(nice ?? 0);
// Checkpoints run on the app's checkpoint thread (db/checkpointer.ts).
const database = await openDatabase(url, { migrate: false, walAutocheckpoint: 0 });
const store = createSqlEventStore({ database });
let closing = false;

/** Pause before trying a batch again that found the database locked. */
const BUSY_RETRY_MS = 50;

/**
 * A batch's transaction reads before it deletes; in WAL mode, when another connection (the click
 * writer) commits in between, SQLite refuses the upgrade at once (SQLITE_BUSY_SNAPSHOT) without
 * waiting on busy_timeout. The batch rolled back whole, so it is simply tried again, as the click
 * writer does (events/log/service.ts, whileBusy). Closing ends the tries: 0 stops the pass.
 */
function retryingBusy(fn: (before: number, limit: number) => Promise<number>) {
  return async (before: number, limit: number): Promise<number> => {
    for (;;) {
      if (closing) return 0;
      try {
        return await fn(before, limit);
      } catch (err) {
        if (!database.dialect.isBusy(err)) throw err;
        await new Promise((r) => setTimeout(r, BUSY_RETRY_MS));
      }
    }
  };
}
const events = { expire: retryingBusy(store.expire), expireSummaries: retryingBusy(store.expireSummaries) };
let running: Promise<unknown> = Promise.resolve();

port.on('message', (msg: RetentionRequest) => {
  if (msg.type === 'close') {
    closing = true;
    void running.finally(async () => {
      await database.close().catch(() => undefined);
      port.postMessage({ type: 'closed' } satisfies RetentionReply);
    });
    return;
  }
  running = purge(events, msg.pass, { batch: msg.batch, pauseMs: msg.pauseMs, stopped: () => closing }).then(
    (result) => port.postMessage({ type: 'done', id: msg.id, result } satisfies RetentionReply),
    (err) => port.postMessage({ type: 'failed', id: msg.id, message: String((err as Error)?.message ?? err) } satisfies RetentionReply),
  );
});
