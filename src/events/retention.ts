/**
 * Retention of the event log (`EVENTS_RETENTION_DAYS`, `ROLLUPS_RETENTION_DAYS`; docs/analytics.md,
 * docs/privacy.md): raw events, and separately the rollups, older than their horizon are deleted
 * by `EventLog.expire` / `expireSummaries` in bounded batches, one transaction each, with a
 * pause between that keeps deleting to a tenth of the time (`pauseAfter`), so neither the click writer nor the API waits long for the database. A pass runs
 * on a timer inside the process (first shortly after start, then hourly); retention-module.ts
 * decides where it runs (a thread of its own on a SQLite file) and that one process of several
 * runs it (PostgreSQL advisory lock).
 *
 * @example
 * const pass = retentionPass(Date.now(), { eventsDays: 90 }); // { eventsBefore: now - 90 days }
 * await purge(store, pass, { batch: 5000, pauseMs: 50 });   // { events: 12000, summaries: 0 }
 */
import type { EventLog } from './event-store.js';

const DAY_MS = 86_400_000;

export interface RetentionSettings {
  /** Days raw events are kept; undefined: forever. */
  eventsDays?: number;
  /** Days rollup rows are kept; undefined: forever. */
  summariesDays?: number;
}

/** The horizons of one pass: what is stamped before them goes. */
export interface RetentionPass {
  eventsBefore?: number;
  summariesBefore?: number;
}

export interface PurgeResult {
  events: number;
  summaries: number;
}

/** The horizons at `now`, or undefined when everything is kept forever (pure). */
export function retentionPass(now: number, settings: RetentionSettings): RetentionPass | undefined {
  const pass: RetentionPass = {};
  if (settings.eventsDays !== undefined) pass.eventsBefore = now - settings.eventsDays * DAY_MS;
  if (settings.summariesDays !== undefined) pass.summariesBefore = now - settings.summariesDays * DAY_MS;
  return pass.eventsBefore === undefined && pass.summariesBefore === undefined ? undefined : pass;
}

export interface PurgeOptions {
  /** Rows per transaction. */
  batch: number;
  /** Shortest pause between batches, ms: the writers' turn. */
  pauseMs: number;
  /** Longest share of the pass's time spent deleting (default 0.1): slow batches get longer pauses. */
  timeShare?: number;
  /** Checked between batches: a shutdown stops the pass there. */
  stopped?: () => boolean;
  sleep?: (ms: number) => Promise<void>;
  /** Milliseconds clock that times a batch (default `performance.now`; tests pass their own). */
  clock?: () => number;
}

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * The pause after a batch that took `batchMs`: at least `pauseMs`, and long enough that deleting
 * takes at most `share` of the time. On SQLite a batch holds the one write lock while it runs, and
 * the click writer waits for it; at 5,000 rows a batch took ~200 ms on a loaded 2-core machine and
 * a 200 ms pause cost redirects a quarter of their throughput (BENCHMARKS.md, retention).
 */
export function pauseAfter(pauseMs: number, batchMs: number, share = 0.1): number {
  return Math.max(pauseMs, Math.ceil((batchMs * (1 - share)) / share));
}

/** Runs one pass: batches until each kind has nothing older than its horizon left. */
export async function purge(store: Pick<EventLog, 'expire' | 'expireSummaries'>, pass: RetentionPass, options: PurgeOptions): Promise<PurgeResult> {
  const sleep = options.sleep ?? defaultSleep;
  const clock = options.clock ?? (() => performance.now());
  const result: PurgeResult = { events: 0, summaries: 0 };
  const steps: [keyof PurgeResult, number | undefined, (before: number, limit: number) => Promise<number>][] = [
    ['events', pass.eventsBefore, (b, l) => store.expire(b, l)],
    ['summaries', pass.summariesBefore, (b, l) => store.expireSummaries(b, l)],
  ];
  for (const [kind, before, expire] of steps) {
    if (before === undefined) continue;
    for (;;) {
      if (options.stopped?.()) return result;
      const started = clock();
      const n = await expire(before, options.batch);
      result[kind] += n;
      if (n < options.batch) break;
      await sleep(pauseAfter(options.pauseMs, clock() - started, options.timeShare));
    }
  }
  return result;
}

export interface RetentionTimer {
  /** Runs a pass now (after the one in flight); undefined when another process ran it or nothing is configured. */
  runNow(): Promise<PurgeResult | undefined>;
  close(): Promise<void>;
}

/** Runs `run` after `firstDelayMs`, then every `intervalMs`, one pass at a time. */
export function startRetentionTimer(deps: {
  run: () => Promise<PurgeResult | undefined>;
  firstDelayMs: number;
  intervalMs: number;
  onError: (err: unknown) => void;
}): RetentionTimer {
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  let inFlight: Promise<PurgeResult | undefined> = Promise.resolve(undefined);
  const runOnce = () => {
    inFlight = inFlight.catch(() => undefined).then(() => deps.run());
    return inFlight;
  };
  const schedule = (delay: number) => {
    if (closed) return;
    timer = setTimeout(() => {
      runOnce()
        .catch(deps.onError)
        .finally(() => schedule(deps.intervalMs));
    }, delay);
    timer.unref();
  };
  schedule(deps.firstDelayMs);
  return {
    runNow: runOnce,
    async close() {
      closed = true;
      clearTimeout(timer);
      await inFlight.catch(() => undefined);
    },
  };
}
