/**
 * Copies a SQLite file's write-ahead log back into the database from a thread of its own. By
 * default SQLite does this inside whichever commit finds the log over 1,000 pages, and waits for
 * the disk there: on the click writer that stalled the writes (under bench/redirect's load the
 * clicks of a 10 s run were committed 5-9 s after it, 1.4-2.3 s with this thread), and on the
 * redirect thread an API write could have stalled the redirects. So connections that write set
 * `wal_autocheckpoint = 0` (openDatabase's `walAutocheckpoint`) and this thread runs a PASSIVE
 * checkpoint every `intervalMs`: it never blocks a reader or a writer, it copies what it can.
 *
 * @example
 * const checkpointer = startCheckpointer('/data/waymark.db');
 * await checkpointer.stop();
 */
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';

export interface CheckpointerOptions {
  /** Time between checkpoints (default 500 ms). */
  intervalMs?: number;
  onError?: (err: unknown, context: string) => void;
}

export interface Checkpointer {
  stop(): Promise<void>;
}

// Plain JavaScript, so the thread needs no TypeScript loader; better-sqlite3 is passed in by path.
const SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (err) {
    parentPort.postMessage({ error: String(err && err.message || err) });
  }
}, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch {}
  db.close();
  parentPort.close();
});
`;

export function startCheckpointer(file: string, options: CheckpointerOptions = {}): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(SOURCE, { eval: true, workerData: { driver, file, intervalMs: options.intervalMs ?? 500 } });
  worker.on('message', (msg: { error?: string }) => {
    if (msg.error) options.onError?.(new Error(msg.error), 'WAL checkpoint failed');
  });
  worker.on('error', (err) => options.onError?.(err, 'WAL checkpoint thread failed'));
  // The thread must not keep the process alive on its own.
  worker.unref();
  let stopped: Promise<void> | null = null;
  return {
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        const timer = setTimeout(() => void worker.terminate().then(() => resolve()), 5_000);
        worker.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        worker.postMessage('stop');
      });
      return stopped;
    },
  };
}
