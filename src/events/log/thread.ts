/**
 * The log thread (start.ts): opens its own connection to the metadata database, lowers
 * its priority below the redirect thread's (CLICK_WRITER_NICE: redirects take the core first, the
 * log catches up in the gaps with fuller batches) and that of libuv's pool (WORKER_POOL_NICE: the
 * DuckDB calls, analytics queries among them), and serves the event log on its port until
 * asked to close. Started through src/worker-thread.ts.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { openDatabase } from '../../db/open.js';
import { stat } from 'node:fs/promises';
import { lowerPoolPriority, lowerThreadPriority } from '../../thread-priority.js';
import { serveEventLog, type EventLogThreadData } from './start.js';

/**
 * SQLite: the longest wait for a lock inside one call. The thread waits inside SQLite without
 * reading its messages (better-sqlite3 is synchronous), and one terminated while SQLite waits
 * aborts the whole process (Node 20): so it waits briefly there and retries between calls
 * (service.ts, `whileBusy`).
 */
const SQLITE_BUSY_WAIT_MS = 100;

const data = workerData as EventLogThreadData;
lowerThreadPriority(data.config.clickWriterNice);
// The pool that runs DuckDB's calls (its analytics among them) exists once anything used it.
await stat('.');
lowerPoolPriority(data.config.workerPoolNice ?? 0);
// The main thread migrated the database before starting this thread. Checkpoints run on the app's
// checkpoint thread (db/checkpointer.ts), not in this thread's commits.
const database = await openDatabase(data.url, { migrate: false, pgSchema: data.pgSchema, poolSize: 4, walAutocheckpoint: 0, busyTimeoutMs: SQLITE_BUSY_WAIT_MS });
await serveEventLog(parentPort as MessagePort, { database, config: data.config, ownsDatabase: true });
