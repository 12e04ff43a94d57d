/**
 * Copies a SQLite file's write-ahead log back into the database from a thread of its own. By
 * default SQLite does this inside whichever commit finds the log over 1,000 pages, and waits for
 * the disk there: on the click writer that stalled the writes (under bench/redirect's load the
 * clicks of a 10 s run were committed 5-9 s after it, 1.4-2.3 s with this thread), and on the
 * redirect thread an API write could have stalled the redirects. So connections that write set
 * `wal_autocheckpoint = 0` (openDatabase's `walAutocheckpoint`) and this thread runs a PASSIVE
 * checkpoint every `intervalMs`: it never blocks a reader or a writer, it copies what it can.
 *
 * A PASSIVE checkpoint alone does not bound the log. SQLite only starts the log over when a
 * writer finds every frame copied back, and under a steady stream of click batches a new batch
 * always lands while the copy runs: in bench/redirect the log grew by ~50 MB a second (570 MB
 * after one 12 s run). So once the log holds more than `walLimitBytes`, the next checkpoint is a
 * RESTART: it holds new writers back while it copies the rest (waiting at most `restartWaitMs`
 * for a writer or reader in progress), and the next commit then writes from the start of the
 * file again. `journal_size_limit` on the writing connections (db/open.ts) trims the file back.
 *
 * The thread starts once the log first holds more than `startAboveBytes` (4 MiB, about what
 * SQLite's own default leaves before it checkpoints): until then this thread only looks at the
 * log's size every `intervalMs`. Starting a thread costs ~260 ms of CPU (a new isolate loading
 * the driver), which a database that is barely written to (a test app; a quiet install) never needs.
 *
 * @example
 * const checkpointer = startCheckpointer('/data/waymark.db');
 * await checkpointer.stop();
 */
import { Worker } from 'node:worker_threads';
import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { sql } from 'kysely';
import { LOWER_PRIORITY_SOURCE } from '../thread-priority.js';
import { WAL_LIMIT_BYTES, type OpenDatabase } from './open.js';

export interface CheckpointerOptions {
  /** Time between checkpoints (default 500 ms). */
  intervalMs?: number;
  /** Log size that makes the next checkpoint a RESTART (default `WAL_LIMIT_BYTES`). */
  walLimitBytes?: number;
  /** How long a RESTART waits for a transaction in progress (default 200 ms). */
  restartWaitMs?: number;
  /** Log size that starts the thread (default 4 MiB; 0 starts it at once). */
  startAboveBytes?: number;
  /** Nice value of the thread (Linux; 0, the default, leaves it): background work like the click writer's. */
  nice?: number;
  onError?: (err: unknown, context: string) => void;
  /** Called after every checkpoint with what it did (tests; costs a message per checkpoint). */
  onCheckpoint?: (report: CheckpointReport) => void;
}

/** One checkpoint: the log's size in frames, the frames copied back, and whether it restarted the log. */
export interface CheckpointReport {
  logFrames: number;
  copiedFrames: number;
  /** A RESTART ran because the log was over the limit. */
  restartTried: boolean;
  /** That RESTART got its locks and copied everything (busy = 0): the next commit starts the log over. */
  restarted: boolean;
  /** When the checkpoint began (ms since the epoch, sub-millisecond): it saw every commit before. */
  startedAt: number;
}

export interface Checkpointer {
  stop(): Promise<void>;
}

// Plain JavaScript, so the thread needs no TypeScript loader; better-sqlite3 is passed in by path.
// A RESTART that cannot get its locks in time gives up (SQLITE_BUSY) after copying what it could;
// the next interval tries again, so a long reader never holds the writers back for long.
const SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
${LOWER_PRIORITY_SOURCE}
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = ' + workerData.restartWaitMs);
const pageSize = db.pragma('page_size', { simple: true });
const timer = setInterval(() => {
  try {
    const startedAt = performance.timeOrigin + performance.now();
    const [state] = db.pragma('wal_checkpoint(PASSIVE)');
    let restart = null;
    if (state && state.log * pageSize > workerData.walLimitBytes) [restart] = db.pragma('wal_checkpoint(RESTART)');
    if (workerData.report) {
      parentPort.postMessage({ report: {
        logFrames: (restart || state).log,
        copiedFrames: (restart || state).checkpointed,
        restartTried: restart !== null,
        restarted: restart !== null && restart.busy === 0,
        startedAt,
      } });
    }
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

/** The log size below which no thread is started: about SQLite's own checkpoint point (1,000 pages of 4 KiB). */
const THREAD_START_BYTES = 4 * 1024 * 1024;

export function startCheckpointer(file: string, options: CheckpointerOptions = {}): Checkpointer {
  const intervalMs = options.intervalMs ?? 500;
  const startAboveBytes = options.startAboveBytes ?? THREAD_START_BYTES;
  let worker: Worker | null = null;
  let stopped: Promise<void> | null = null;
  let watch: NodeJS.Timeout | null = null;

  const start = () => {
    const workerData = {
      driver: createRequire(import.meta.url).resolve('better-sqlite3'),
      file,
      intervalMs,
      walLimitBytes: options.walLimitBytes ?? WAL_LIMIT_BYTES,
      restartWaitMs: options.restartWaitMs ?? 200,
      nice: options.nice ?? 0,
      report: options.onCheckpoint !== undefined,
    };
    const started = new Worker(SOURCE, { eval: true, workerData });
    started.on('message', (msg: { error?: string; report?: CheckpointReport }) => {
      if (msg.error) options.onError?.(new Error(msg.error), 'WAL checkpoint failed');
      if (msg.report) options.onCheckpoint?.(msg.report);
    });
    started.on('error', (err) => options.onError?.(err, 'WAL checkpoint thread failed'));
    // The thread must not keep the process alive on its own.
    started.unref();
    worker = started;
  };

  if (startAboveBytes <= 0) start();
  else {
    let looking = false;
    watch = setInterval(() => {
      if (looking) return;
      looking = true;
      stat(`${file}-wal`)
        .then((log) => {
          if (log.size <= startAboveBytes || stopped) return;
          clearInterval(watch!);
          start();
        })
        // No log yet (nothing written since the file opened): keep looking.
        .catch(() => undefined)
        .finally(() => (looking = false));
    }, intervalMs);
    watch.unref();
  }

  return {
    stop() {
      if (watch) clearInterval(watch);
      stopped ??= new Promise<void>((resolve) => {
        const running = worker;
        if (!running) return resolve();
        const timer = setTimeout(() => void running.terminate().then(() => resolve()), 5_000);
        running.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        running.postMessage('stop');
      });
      return stopped;
    },
  };
}

/**
 * Where the database has a checkpoint thread (a SQLite file), hands its checkpoints to one: this
 * connection stops copying the write-ahead log back at its commits (an API write must not do it
 * on the redirect thread either), and the thread starts. Returns null elsewhere.
 */
export async function startCheckpointing(database: Pick<OpenDatabase, 'db' | 'capabilities' | 'sqlitePath'>, options: CheckpointerOptions = {}): Promise<Checkpointer | null> {
  if (!database.capabilities.checkpointer || !database.sqlitePath) return null;
  await sql`pragma wal_autocheckpoint = 0`.execute(database.db);
  return startCheckpointer(database.sqlitePath, options);
}
