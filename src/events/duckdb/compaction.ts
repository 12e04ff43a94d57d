/**
 * The DuckDB engine's compaction in the background (engine.ts `compact`): closed UTC days are
 * rewritten in (workspace_id, timestamp) order so that a small workspace's scans skip the row
 * groups of the others. A day counts as closed an hour after it ends (late clicks moved from the
 * metadata database still arrive then; a day that gains rows later is simply rewritten again). The
 * first round runs a minute after start, then every `intervalMs`; a round rewrites at most
 * `maxDaysPerRound` days (an upgraded installation's history is spread over several rounds), each
 * day one short hold of the writer.
 *
 * @example
 * lifecycles.push(duckDbCompaction(engine, { log: (msg, f) => app.log.info(f, msg), onError }));
 */
import type { Lifecycle } from '../../context.js';
import type { DuckDbEngine } from './engine.js';

export interface CompactionOptions {
  intervalMs?: number;
  firstDelayMs?: number;
  maxDaysPerRound?: number;
  /** How long after its end a day counts as closed (default 1 hour). */
  graceMs?: number;
  now?: () => number;
  log?: (message: string, fields: Record<string, unknown>) => void;
  onError: (err: unknown) => void;
}

export function duckDbCompaction(engine: DuckDbEngine, options: CompactionOptions): Lifecycle & { runOnce(): Promise<void> } {
  const intervalMs = options.intervalMs ?? 3_600_000;
  const maxDays = options.maxDaysPerRound ?? 31;
  const grace = options.graceMs ?? 3_600_000;
  const now = options.now ?? Date.now;
  let timer: NodeJS.Timeout | undefined;
  let round: Promise<void> = Promise.resolve();
  let closed = false;

  async function runOnce(): Promise<void> {
    const started = performance.now();
    const done = await engine.compact(now() - grace, maxDays);
    if (done.days) options.log?.('closed days rewritten in workspace order', { days: done.days, rows: done.rows, left: done.left, ms: Math.round(performance.now() - started) });
  }
  function schedule(delay: number): void {
    if (closed) return;
    timer = setTimeout(() => {
      round = runOnce().catch(options.onError).finally(() => schedule(intervalMs));
    }, delay);
    timer.unref();
  }
  return {
    runOnce,
    start: () => schedule(options.firstDelayMs ?? 60_000),
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      await round;
    },
  };
}
