/**
 * The click flush worker (SQLite files only). better-sqlite3 is synchronous: a flush of 2,000
 * clicks plus the analytics rollups holds the thread for tens of milliseconds, which on the main
 * thread would stall every redirect in that time. Here it runs on its own thread with its own
 * connection (WAL lets the main thread keep reading). The worker is a plain executor: the batching,
 * retries and the crash guarantee stay in click-writer.ts on the main thread.
 *
 * Messages in: `{ type: 'stage', batch, rows }` (a slice of the next batch), `{ type: 'write', id,
 * batch, count }` (write the staged batch, which must hold `count` rows), `{ type: 'existing', id,
 * ids }`, `{ type: 'close' }`.
 * Messages out: `{ type: 'done', id }`, `{ type: 'failed', id, message, code }`,
 * `{ type: 'existing', id, found }`, `{ type: 'closed' }`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../db/open.js';
import { createEventWriter, type StoredEvent } from '../analytics/event-writer.js';
import { createRedirectStore } from './store.js';
import { writeClickBatch } from './click-writer.js';

export type WorkerRequest =
  | { type: 'stage'; batch: number; rows: StoredEvent[] }
  | { type: 'write'; id: number; batch: number; count: number }
  | { type: 'existing'; id: number; ids: string[] }
  | { type: 'close' };

export type WorkerReply =
  | { type: 'done'; id: number }
  | { type: 'failed'; id: number; message: string; code?: string }
  | { type: 'existing'; id: number; found: string[] }
  | { type: 'closed' };

const port = parentPort!;
const { url } = workerData as { url: string };
// The main thread migrated the database before starting us.
const database = await openDatabase(url, { migrate: false, reuseStatements: true });
// The same EventWriter app.ts builds: events and rollups are written the one way.
const events = createEventWriter(database.dialect);
const store = createRedirectStore(database.db);

// Rows of the batch being received; a slice of another batch starts over (an abandoned batch).
let staged: { batch: number; rows: StoredEvent[] } = { batch: 0, rows: [] };

// One message at a time: the main thread sends the next batch only after this one's reply.
port.on('message', async (msg: WorkerRequest) => {
  if (msg.type === 'stage') {
    if (staged.batch !== msg.batch) staged = { batch: msg.batch, rows: [] };
    for (const row of msg.rows) staged.rows.push(row);
    return;
  }
  if (msg.type === 'close') {
    await database.close().catch(() => undefined);
    port.postMessage({ type: 'closed' } satisfies WorkerReply);
    return;
  }
  try {
    if (msg.type === 'write') {
      const rows = staged.batch === msg.batch ? staged.rows : [];
      staged = { batch: 0, rows: [] };
      // A worker started after part of the batch was sent has only the rest: refuse, so the
      // main thread sends the whole batch again.
      if (rows.length !== msg.count) throw new Error(`click batch ${msg.batch} incomplete: ${rows.length} of ${msg.count} rows received`);
      await writeClickBatch(database.db, events, store, rows);
      port.postMessage({ type: 'done', id: msg.id } satisfies WorkerReply);
    } else {
      port.postMessage({ type: 'existing', id: msg.id, found: await store.existingClickIds(msg.ids) } satisfies WorkerReply);
    }
  } catch (err) {
    const e = err as { message?: string; code?: string };
    port.postMessage({ type: 'failed', id: msg.id, message: String(e?.message ?? err), code: e?.code } satisfies WorkerReply);
  }
});
