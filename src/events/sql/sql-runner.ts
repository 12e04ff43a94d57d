/**
 * Where analytics SQL runs. better-sqlite3 is synchronous: a 100 ms aggregate on the main thread
 * would hold every redirect for 100 ms (storage-benchmarks.md §2). So on a SQLite file the
 * queries go to one `worker_threads` worker with its own read-only connection (WAL lets it read
 * beside the writer); a batch of queries runs in one read transaction, so its parts see one
 * snapshot. PostgreSQL queries run on the server and only their results cross the event loop
 * (a batch in one repeatable-read transaction); `:memory:` SQLite cannot be shared with a worker
 * and runs in process.
 *
 * @example
 * const runner = createSqlRunner(ctx.database);
 * const [rows] = await runner.run([db.selectFrom('events').select('id').compile()]);
 */
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import type { CompiledQuery, Kysely } from 'kysely';
import type { OpenDatabase } from '../../db/open.js';
import { LOWER_PRIORITY_SOURCE } from '../../thread-priority.js';

export interface SqlRunner {
  /** Runs the queries (one snapshot where the engine allows) and returns each one's rows. */
  run(queries: readonly CompiledQuery[]): Promise<Record<string, unknown>[][]>;
  close(): Promise<void>;
}

/**
 * The worker's source. Kept as plain CommonJS evaluated by `new Worker(…, { eval: true })`, so it
 * runs the same from `src/` under tsx and from `dist/`, with no loader in the worker.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
// Lower this thread's CPU priority (Linux: a thread has its own nice value), so on a busy
// machine redirects run first and analytics wait.
${LOWER_PRIORITY_SOURCE}
const Database = require(workerData.driver);
const db = new Database(workerData.file, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 5000');
db.pragma('cache_size = -131072');
db.pragma('temp_store = MEMORY');
db.pragma('mmap_size = 268435456');
const statements = new Map();
function prepare(sql) {
  let s = statements.get(sql);
  if (!s) {
    if (statements.size > 500) statements.clear();
    s = db.prepare(sql);
    statements.set(sql, s);
  }
  return s;
}
const runAll = db.transaction((queries) => queries.map((q) => prepare(q.sql).all(...q.parameters)));
parentPort.on('message', (msg) => {
  try {
    parentPort.postMessage({ id: msg.id, results: runAll(msg.queries) });
  } catch (err) {
    parentPort.postMessage({ id: msg.id, error: { message: String(err && err.message || err), code: err && err.code } });
  }
});
`;

/**
 * Nice value of the analytics worker thread. At 10 it gets about a tenth of a core's share when
 * it competes with redirects (nice 0) and all of an idle core: analytics slow down under load
 * instead of redirects.
 */
export const WORKER_NICE = 10;

interface Pending {
  resolve(rows: Record<string, unknown>[][]): void;
  reject(err: Error): void;
}

function workerRunner(file: string): SqlRunner {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  let worker: Worker | undefined;
  let nextId = 1;
  const pending = new Map<number, Pending>();

  const failAll = (err: Error) => {
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };

  function start(): Worker {
    const w = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, file, nice: WORKER_NICE } });
    w.on('message', (msg: { id: number; results?: Record<string, unknown>[][]; error?: { message: string; code?: string } }) => {
      const p = pending.get(msg.id);
      if (!p) return;
      pending.delete(msg.id);
      if (!pending.size) w.unref();
      if (msg.error) p.reject(Object.assign(new Error(msg.error.message), { code: msg.error.code }));
      else p.resolve(msg.results!);
    });
    w.on('error', (err) => {
      failAll(err);
      worker = undefined;
    });
    w.on('exit', () => {
      failAll(new Error('analytics worker exited'));
      worker = undefined;
    });
    // Referenced only while a query is pending: an idle worker must not keep the process alive,
    // a busy one must (after the listeners: adding a 'message' listener refs the port again).
    w.unref();
    return w;
  }

  return {
    run(queries) {
      if (!queries.length) return Promise.resolve([]);
      worker ??= start();
      const id = nextId++;
      const w = worker;
      return new Promise((resolve, reject) => {
        if (!pending.size) w.ref();
        pending.set(id, { resolve, reject });
        w.postMessage({ id, queries: queries.map((q) => ({ sql: q.sql, parameters: q.parameters })) });
      });
    },
    async close() {
      const w = worker;
      worker = undefined;
      if (w) await w.terminate();
    },
  };
}

export function inProcessRunner(db: Kysely<any>): SqlRunner {
  const runAll = async (conn: Kysely<any>, queries: readonly CompiledQuery[]) => {
    const out: Record<string, unknown>[][] = [];
    for (const q of queries) out.push((await conn.executeQuery<Record<string, unknown>>(q)).rows);
    return out;
  };
  return {
    run(queries) {
      if (queries.length < 2) return runAll(db, queries);
      // One snapshot for the parts of an aggregate: a subtraction part must see the same events
      // as the rollup it corrects, even while clicks are being flushed.
      return db.transaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute((trx) => runAll(trx, queries));
    },
    async close() {},
  };
}

/** The runner for this database: a worker on a SQLite file, in process otherwise. */
export function createSqlRunner(database: OpenDatabase, options: { inProcess?: boolean } = {}): SqlRunner {
  if (database.capabilities.readerWorker && database.sqlitePath && !options.inProcess) return workerRunner(database.sqlitePath);
  return inProcessRunner(database.db);
}
