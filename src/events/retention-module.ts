/**
 * Where and by whom the retention pass runs (retention.ts). A SQLite file: on a worker thread of
 * its own (retention-worker.ts), so deletes never hold the redirect thread; a file has one
 * serving process, so no lock. PostgreSQL: in this process (the work is the server's), and only
 * in the one process of several that holds the advisory lock `RETENTION_LOCK_KEY`
 * (Dialect.exclusively); the others skip the pass. In-memory SQLite (tests): in process.
 *
 * @example
 * const retention = createRetention({ config, database, events, now, onError });
 * await retention.lifecycle.start?.(); // first pass a minute after start, then hourly
 */
import type { OpenDatabase } from '../db/open.js';
import type { Lifecycle } from '../lifecycle.js';
import type { EventStore } from './event-store.js';
import { startModuleWorker } from '../worker-thread.js';
import { purge, retentionPass, startRetentionTimer, type PurgeResult, type RetentionPass, type RetentionTimer } from './retention.js';
import type { RetentionReply, RetentionRequest, RetentionWorkerData } from './retention-worker.js';

/** Arbitrary, fixed: names the retention job among PostgreSQL advisory locks. */
export const RETENTION_LOCK_KEY = 0x5741_594d_0001;
/**
 * Rows per transaction, and the shortest pause after each (retention.ts, pauseAfter: deleting
 * takes at most a tenth of the time). 2,000 rows keep a batch's hold on SQLite's write lock far
 * below the click writer's lag bound (CLICK_MAX_LAG_MS, 250 ms): 5,000 took ~200 ms on a loaded
 * 2-core machine (BENCHMARKS.md, retention).
 */
export const RETENTION_BATCH = 2000;
export const RETENTION_PAUSE_MS = 200;
const FIRST_RUN_MS = 60_000;
const INTERVAL_MS = 3_600_000;

export function createRetention(deps: {
  /** `EVENTS_RETENTION_DAYS`, `ROLLUPS_RETENTION_DAYS` (unset: kept for ever), `CLICK_WRITER_NICE` (the worker's nice value), `AUDIT_RETENTION_DAYS`. */
  config: { eventsRetentionDays?: number; rollupsRetentionDays?: number; clickWriterNice: number; auditRetentionDays?: number };
  database: OpenDatabase;
  events: Pick<EventStore<unknown>, 'expire' | 'expireSummaries'>;
  now: () => number;
  onError: (err: unknown) => void;
  /**
   * Run in this process even on a SQLite file: `events` is not the SQL store the worker would
   * open (the column store, whose deletes run on DuckDB's threads).
   */
  inProcess?: boolean;
  /**
   * The audit log's step (audit/module.ts): entries older than `auditRetentionDays` go, in the
   * same bounded batches, in this process (they are few: a day's worth an hour).
   */
  audit?: { expire(before: number, limit: number): Promise<number> };
  /** Tests: rows per batch and pause. */
  batch?: number;
  pauseMs?: number;
}) {
  const { database } = deps;
  const settings = { eventsDays: deps.config.eventsRetentionDays, summariesDays: deps.config.rollupsRetentionDays };
  const batch = deps.batch ?? RETENTION_BATCH;
  const pauseMs = deps.pauseMs ?? RETENTION_PAUSE_MS;
  let worker: ReturnType<typeof startWorkerRunner> | undefined;
  let timer: RetentionTimer | undefined;
  let closing = false;

  const inProcess = (pass: RetentionPass) =>
    database.dialect.exclusively(database.db, RETENTION_LOCK_KEY, () => purge(deps.events, pass, { batch, pauseMs, stopped: () => closing }));
  const onWorker = !deps.inProcess && database.capabilities.singleWriter && database.capabilities.writerThread;

  const auditDays = deps.audit ? deps.config.auditRetentionDays : undefined;
  /** Deletes audit entries past their horizon, a batch at a time, under the retention lock. */
  const expireAudit = async (): Promise<number> => {
    if (!deps.audit || auditDays === undefined) return 0;
    const before = deps.now() - auditDays * 86_400_000;
    const audit = deps.audit;
    const gone = await database.dialect.exclusively(database.db, RETENTION_LOCK_KEY, async () => {
      let n = 0;
      for (;;) {
        const batchGone = await audit.expire(before, batch);
        n += batchGone;
        if (batchGone < batch || closing) return n;
      }
    });
    return gone ?? 0;
  };

  // Rows deleted since start (metrics).
  const deleted: PurgeResult & { audit: number } = { events: 0, summaries: 0, audit: 0 };
  async function run(): Promise<PurgeResult | undefined> {
    deleted.audit += await expireAudit();
    const pass = retentionPass(deps.now(), settings);
    if (!pass) return undefined;
    worker ??= onWorker ? startWorkerRunner({ url: database.url, nice: deps.config.clickWriterNice }) : undefined;
    const result = worker ? await worker.purge(pass, batch, pauseMs) : await inProcess(pass);
    deleted.events += result?.events ?? 0;
    deleted.summaries += result?.summaries ?? 0;
    return result;
  }

  const lifecycle: Lifecycle = {
    start() {
      if (retentionPass(0, settings) || auditDays !== undefined) timer = startRetentionTimer({ run, firstDelayMs: FIRST_RUN_MS, intervalMs: INTERVAL_MS, onError: deps.onError });
    },
    async close() {
      closing = true;
      await worker?.close();
      await timer?.close();
    },
  };
  return {
    lifecycle,
    /** A pass now, whatever the timer (tests, operators' scripts). */
    runNow: () => (timer ? timer.runNow() : run()),
    /** Rows the passes of this process deleted since start. */
    stats: () => ({ deleted: { ...deleted } }),
  };
}

function startWorkerRunner(data: RetentionWorkerData) {
  const worker = startModuleWorker(new URL('./retention-worker.js', import.meta.url), { workerData: data });
  worker.unref();
  let seq = 0;
  const waiting = new Map<number, { resolve: (r: PurgeResult) => void; reject: (e: Error) => void }>();
  let closed: (() => void) | undefined;
  worker.on('message', (msg: RetentionReply) => {
    if (msg.type === 'closed') return closed?.();
    const w = waiting.get(msg.id);
    waiting.delete(msg.id);
    if (msg.type === 'done') w?.resolve(msg.result);
    else w?.reject(new Error(`retention failed: ${msg.message}`));
  });
  worker.on('error', (err) => {
    for (const w of waiting.values()) w.reject(err);
    waiting.clear();
  });
  return {
    purge(pass: RetentionPass, batch: number, pauseMs: number): Promise<PurgeResult> {
      const id = ++seq;
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        worker.postMessage({ type: 'purge', id, pass, batch, pauseMs } satisfies RetentionRequest);
      });
    },
    /** Stops after the batch in flight; terminated if it does not answer within 10 s. */
    async close() {
      const done = new Promise<void>((r) => (closed = r));
      worker.postMessage({ type: 'close' } satisfies RetentionRequest);
      const timeout = new Promise<void>((r) => setTimeout(r, 10_000).unref());
      await Promise.race([done, timeout]);
      await worker.terminate();
      for (const w of waiting.values()) w.reject(new Error('retention closed'));
    },
  };
}
