/**
 * When and by whom the retention pass runs (retention.ts). The events' deletes are calls of the
 * event log (`events`), which its own thread serves, so they never hold the redirect thread. The
 * pass runs only in the one process of several that holds the advisory lock `RETENTION_LOCK_KEY`
 * (Dialect.exclusively; a SQLite file has one serving process); the others skip it.
 *
 * @example
 * const retention = createRetention({ config, database, events, now, onError });
 * await retention.lifecycle.start?.(); // first pass a minute after start, then hourly
 */
import type { OpenDatabase } from '../db/open.js';
import type { Lifecycle } from '../lifecycle.js';
import type { EventLog } from './event-store.js';
import { purge, retentionPass, startRetentionTimer, type PurgeResult, type RetentionPass, type RetentionTimer } from './retention.js';

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
  /** `EVENTS_RETENTION_DAYS`, `ROLLUPS_RETENTION_DAYS` (unset: kept for ever), `AUDIT_RETENTION_DAYS`. */
  config: { eventsRetentionDays?: number; rollupsRetentionDays?: number; auditRetentionDays?: number };
  database: OpenDatabase;
  events: Pick<EventLog, 'expire' | 'expireSummaries'>;
  now: () => number;
  onError: (err: unknown) => void;
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
  let timer: RetentionTimer | undefined;
  let closing = false;

  const inProcess = (pass: RetentionPass) =>
    database.dialect.exclusively(database.db, RETENTION_LOCK_KEY, () => purge(deps.events, pass, { batch, pauseMs, stopped: () => closing }));

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
    const result = await inProcess(pass);
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
