/**
 * The click batch: redirects push raw clicks into memory and never wait for the log while it
 * keeps up. A flush hands up to `maxRows` clicks, as one batch with an id, to the event log
 * (`ClickAppender`: the log thread, events/log/), which stores the batch once by its id and
 * resolves only once it is stored — every `intervalMs`, or at once when `maxRows` are waiting. A
 * batch leaves memory only then: a failed flush keeps the batch as it was, id and rows, and sends
 * it again, so a retry after a store whose answer was lost adds nothing.
 *
 * Guarantee (docs/redirects.md): a click is either stored, in this process's memory, or, after
 * a shutdown, in a spill file (click-spill.ts). What a crash can lose is bounded by `maxLagMs`:
 * once the oldest click not yet committed is that old, `holding` turns true and the redirect
 * thread holds the answers of new clicks (`holdAnswer`) until the writer is back under the bound.
 * So the clicks answered and not committed always lie within `maxLagMs` of clicks, however far
 * the writes fall behind, unless the database fails (nothing is held then) or takes no batch for
 * `maxHoldMs` (an answer never waits longer).
 *
 * @example
 * const writer = createClickWriter({ log: events, intervalMs: 100, maxRows: 2000, maxLagMs: 250 });
 * writer.push(row);                                  // on the redirect path: memory only
 * if (writer.holding) writer.holdAnswer(() => res.end()); else res.end();
 * await writer.close({ deadline: Date.now() + 7000 }); // at shutdown: committed, or spilled
 */
import type { RawClick } from '../events/index.js';
import { createHeldAnswers } from './held-answers.js';
import { createArrayBuffer, type ClickBuffer, type ClickRow } from './click-buffer.js';

/**
 * Where batches go: stored once by batch id (a batch id stored before adds nothing); resolves once
 * stored. `batch` is what the buffer hands out (`ClickBuffer.take`): the rows themselves by default.
 */
export interface ClickAppender<Row extends ClickRow = RawClick, Payload = readonly Row[]> {
  appendRawClicks(batchId: string, batch: Payload): Promise<void>;
}

export interface ClickWriterOptions<Row extends ClickRow = RawClick, Payload = readonly Row[]> {
  log: ClickAppender<Row, Payload>;
  /**
   * Where rows wait (click-buffer.ts): an array of the rows by default; the shared click ring
   * (ring-buffer.ts) in the app.
   */
  buffer?: ClickBuffer<Row, Payload>;
  /**
   * Rows kept beside a full buffer, their answers held meanwhile (as past the lag bound), until
   * the buffer has room (default 0: a click that finds the buffer full is dropped at once).
   */
  overflow?: number;
  intervalMs: number;
  maxRows: number;
  /**
   * Buffered rows beyond which new clicks are dropped (counted and logged): while the database is
   * down, or when clicks come faster than it can take them for long (default 500,000).
   */
  maxBuffered?: number;
  /**
   * Age in ms of the oldest uncommitted click past which `holding` turns true (`CLICK_MAX_LAG_MS`);
   * 0 (the default here) never holds.
   */
  maxLagMs?: number;
  /** Longest an answer is held, ms (`CLICK_MAX_HOLD_MS`, default 2,000). */
  maxHoldMs?: number;
  /**
   * Makes rows durable outside the database (click-spill.ts), synchronously; throws when it
   * cannot. Used at shutdown for what was not committed in time. Without it those rows are lost.
   */
  spill?: (rows: readonly Row[]) => void;
  /** The clock of the rows' timestamps (default Date.now). */
  now?: () => number;
  onError?: (err: unknown, context: string) => void;
}

export interface ClickWriterStats {
  /** Rows accepted into the buffer since start. */
  queued: number;
  /** Rows stored since start. */
  flushed: number;
  /** Rows buffered now (waiting or being written). */
  buffered: number;
  /** Rows refused because the buffer was full. */
  dropped: number;
  flushes: number;
  failures: number;
  /** Answers held because the writer was over its lag bound. */
  held: number;
  /** Of those, answers sent after `maxHoldMs` with the writer still behind (beyond the bound). */
  heldTooLong: number;
  /** Rows written to a spill file at shutdown. */
  spilled: number;
  /** Rows neither committed nor spilled at shutdown (no spill file, or it failed). */
  lost: number;
  /** Answers of new clicks are being held now (`holding`). */
  holding: boolean;
  /** Age in ms of the oldest click not committed yet; 0 when none waits. */
  lagMs: number;
}

export interface ClickWriter<Row extends ClickRow = RawClick> {
  /**
   * True when `push` copies the row before it returns (the ring): the caller may then pass the
   * same object for every click.
   */
  readonly copiesRows: boolean;
  /**
   * True while the oldest uncommitted click is `maxLagMs` old or more: the answer of a new click
   * goes through `holdAnswer`. A plain field, read on every recorded click.
   */
  readonly holding: boolean;
  push(row: Row): void;
  /** Sends `answer` when the writer is back under its bound (at once when it is). */
  holdAnswer(answer: () => void): void;
  /** A click still in memory (not yet committed), by click id. */
  pending(clickId: string): Row | undefined;
  /** Writes everything buffered now; rejects if a flush fails (the rows stay buffered). */
  flush(): Promise<void>;
  /** Sends every held answer now and holds no more (shutdown: what is left is committed or spilled). */
  stopHolding(): void;
  /**
   * Stops the timer and writes everything, retrying failures, until `deadline` (Date.now() ms;
   * without one, up to 10 failed attempts). What is still not stored then is spilled
   * (`stats().spilled`; `lost` if it could not be).
   */
  close(options?: { deadline?: number }): Promise<void>;
  /** Spills every row in memory now (a shutdown out of time); returns how many. Throws if it cannot. */
  spillNow(): number;
  stats(): ClickWriterStats;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What the lag bound keeps free besides twice the slowest recent write. */
const LAG_MARGIN_MS = 20;
/**
 * The shortest interval the lag bound makes: shorter ones mean more commits a second, each with
 * its fixed cost, so slow writes would get slower still (measured: 1.35 × the CPU a click with a
 * 20 ms floor under load, bench/click-append/README.md).
 */
const MIN_INTERVAL_MS = 100;
/** Writes whose durations count as recent. */
const RECENT_WRITES = 16;

/**
 * The interval a batch waits from its oldest click (pure): `intervalMs`, unless the lag bound
 * needs less. A batch commits about `interval + write` after its oldest click, and every commit
 * has a fixed cost (bench/click-append/README.md: most of a 300-click batch's), so the longer the
 * interval the fewer commits; but past `maxLagMs` answers are held. So the interval is at most
 * `maxLagMs` less twice the slowest of the recent writes and a margin, and at least 100 ms (or
 * the setting, if lower).
 *
 * @example
 * flushIntervalWithin({ intervalMs: 200, maxLagMs: 250, slowestWriteMs: 10 }); // → 200
 * flushIntervalWithin({ intervalMs: 200, maxLagMs: 250, slowestWriteMs: 40 }); // → 150
 * flushIntervalWithin({ intervalMs: 200, maxLagMs: 250, slowestWriteMs: 90 }); // → 100
 */
export function flushIntervalWithin(o: { intervalMs: number; maxLagMs: number; slowestWriteMs: number }): number {
  if (o.maxLagMs <= 0) return o.intervalMs;
  const room = o.maxLagMs - 2 * o.slowestWriteMs - LAG_MARGIN_MS;
  return Math.min(o.intervalMs, Math.max(Math.min(MIN_INTERVAL_MS, o.intervalMs), room));
}

/**
 * The wait before the next flush once a write ended. Failures back off (up to 2 s); a full batch
 * or held answers go at once; otherwise the waiting clicks are due `intervalMs` after the oldest
 * of them arrived, not after the write ended: they have waited for that write already, and a
 * click's time to commit (what the lag bound measures) would otherwise be write + interval + write.
 *
 * @example
 * nextFlushDelay({ intervalMs: 100, failures: 0, full: false, holding: false, oldestAgeMs: 70 }); // → 30
 * nextFlushDelay({ intervalMs: 100, failures: 2, full: false, holding: false, oldestAgeMs: 70 }); // → 400
 */
export function nextFlushDelay(o: { intervalMs: number; failures: number; full: boolean; holding: boolean; oldestAgeMs: number }): number {
  if (o.failures > 0) return Math.min(2_000, o.intervalMs * 2 ** o.failures);
  if (o.full || o.holding) return 0;
  return Math.min(o.intervalMs, Math.max(0, o.intervalMs - o.oldestAgeMs));
}

/** A batch: its id, sent again with it on every retry, its rows (the buffer's payload) and their count. */
interface Batch<Payload> {
  id: string;
  payload: Payload;
  size: number;
}

export function createClickWriter<Row extends ClickRow = RawClick, Payload = readonly Row[]>(options: ClickWriterOptions<Row, Payload>): ClickWriter<Row> {
  const { log, maxRows } = options;
  // Batch ids: this writer's own prefix (random: unique across processes and restarts), then a count.
  const epoch = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  let batches = 0;
  const maxBuffered = options.maxBuffered ?? 500_000;
  const maxLagMs = options.maxLagMs ?? 0;
  // The durations of the recent writes, ms (a ring): the interval leaves the lag bound room for
  // them. Worked out once a write, not per click (`push` runs on the redirect's road).
  const writeMs = new Float64Array(RECENT_WRITES);
  let writes = 0;
  let interval = flushIntervalWithin({ intervalMs: options.intervalMs, maxLagMs, slowestWriteMs: 0 });
  const now = options.now ?? Date.now;
  const queue = options.buffer ?? (createArrayBuffer<Row>(maxBuffered) as unknown as ClickBuffer<Row, Payload>);
  const copiesRows = queue.copiesRows;
  // Rows that found the buffer full (`overflow`), oldest first; their answers are held.
  let overflow: Row[] = [];
  const maxOverflow = options.overflow ?? 0;
  // The batch being stored, or kept after its store failed: its rows are "pending" until it is stored.
  let current: Batch<Payload> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let lagTimer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let closed = false;
  // No more holding (shutdown began).
  let holdingStopped = false;
  // Rows were spilled: the write in flight, if any, is no longer ours to retry.
  let abandoned = false;
  let consecutiveFailures = 0;
  const stats: ClickWriterStats = { queued: 0, flushed: 0, buffered: 0, dropped: 0, flushes: 0, failures: 0, held: 0, heldTooLong: 0, spilled: 0, lost: 0, holding: false, lagMs: 0 };
  const held = createHeldAnswers({
    maxHoldMs: options.maxHoldMs ?? 2_000,
    onError: options.onError,
    onExpired: (count) => {
      stats.heldTooLong += count;
      if (stats.heldTooLong === count || Math.floor(stats.heldTooLong / 10_000) !== Math.floor((stats.heldTooLong - count) / 10_000)) {
        options.onError?.(
          new Error('click writer behind'),
          `answers held ${options.maxHoldMs ?? 2_000} ms were sent with their clicks not yet committed (the database takes too long): ${stats.heldTooLong} so far`,
        );
      }
    },
  });

  // After close() the periodic timer stays off, but a late push (a request that was already in
  // flight) still schedules its own flush rather than being forgotten.
  const schedule = (delay: number) => {
    if (timer !== null) return;
    timer = setTimeout(() => {
      timer = null;
      void flushOnce().catch(() => undefined);
    }, delay);
    // The server keeps the process alive; shutdown flushes explicitly through close().
    timer.unref();
  };
  const flushSoon = () => {
    if (running) return;
    if (timer !== null) {
      clearTimeout(timer);
      timer = null;
    }
    schedule(0);
  };

  const oldestStamp = (): number | undefined => queue.oldest() ?? overflow[0]?.timestamp;
  /** Rows in memory, not committed: in the buffer (waiting or in flight) and beside it. */
  const buffered = () => queue.waiting + queue.inFlight + overflow.length;
  /** Moves what waits beside the buffer into it while it has room. */
  const refill = () => {
    let moved = 0;
    while (moved < overflow.length && queue.push(overflow[moved]!)) moved++;
    if (moved) overflow = overflow.slice(moved);
  };

  const setHolding = (on: boolean) => {
    if (writer.holding === on) return;
    (writer as { holding: boolean }).holding = on;
    if (on) flushSoon();
    else held.releaseAll();
  };

  /**
   * Holding follows the age of the oldest uncommitted click (the head of the batch in flight, else
   * of the queue). Checked when that click changes (a push into an empty writer, a write's end)
   * and by a timer set for the moment it reaches the bound; so the redirect thread only reads a
   * field. A failing database is not waited for: nothing is held while writes fail.
   */
  function checkLag(): void {
    if (maxLagMs <= 0 && maxOverflow <= 0) return;
    if (lagTimer !== null) {
      clearTimeout(lagTimer);
      lagTimer = null;
    }
    const oldest = oldestStamp();
    const age = oldest === undefined ? -1 : now() - oldest;
    // A full buffer holds as the lag bound does (and, as it, not while the writes fail).
    if (overflow.length > 0 && consecutiveFailures === 0 && !holdingStopped) return setHolding(true);
    if (maxLagMs > 0 && age >= maxLagMs && consecutiveFailures === 0 && !holdingStopped) return setHolding(true);
    setHolding(false);
    if (maxLagMs > 0 && oldest !== undefined && age < maxLagMs && !holdingStopped) {
      // A clock set back makes the age negative: check again within one bound at most.
      lagTimer = setTimeout(checkLag, Math.max(1, Math.min(maxLagMs, maxLagMs - age)));
      lagTimer.unref();
    }
  }

  /** One batch of at most maxRows rows: the one kept from a failed attempt, else the next from the queue. */
  async function flushOnce(): Promise<void> {
    if (running) return running;
    if (!current) {
      if (queue.waiting === 0) return;
      const size = Math.min(queue.waiting, maxRows);
      current = { id: `${epoch}-${++batches}`, payload: queue.take(size), size };
    }
    const batch = current;
    running = (async () => {
      try {
        const started = performance.now();
        await log.appendRawClicks(batch.id, batch.payload);
        writeMs[writes++ % RECENT_WRITES] = performance.now() - started;
        interval = flushIntervalWithin({ intervalMs: options.intervalMs, maxLagMs, slowestWriteMs: Math.max(...writeMs) });
        if (current === batch) {
          current = null;
          // Only now do the rows leave memory (the ring's tail moves past them).
          queue.release();
          refill();
        }
        consecutiveFailures = 0;
        stats.flushes++;
        stats.flushed += batch.size;
      } catch (err) {
        stats.failures++;
        consecutiveFailures++;
        if (abandoned) throw err; // spilled meanwhile: the spill file has these rows
        options.onError?.(err, `storing a batch of ${batch.size} clicks failed; keeping it for a retry`);
        throw err;
      } finally {
        running = null;
        checkLag();
        if ((current || queue.waiting > 0 || overflow.length > 0) && !closed) {
          const oldest = queue.oldest();
          schedule(nextFlushDelay({
            intervalMs: interval,
            failures: consecutiveFailures,
            full: queue.waiting >= maxRows,
            holding: writer.holding,
            oldestAgeMs: oldest === undefined ? 0 : now() - oldest,
          }));
        }
      }
    })();
    return running;
  }

  /** Spills `rows` (the caller clears them); false, logged, when there is no spill or it failed. */
  function spill(rows: readonly Row[]): boolean {
    if (!options.spill) {
      options.onError?.(new Error('no spill file'), `giving up: ${rows.length} clicks could not be written at shutdown`);
      return false;
    }
    try {
      options.spill(rows);
    } catch (err) {
      options.onError?.(err, `giving up: ${rows.length} clicks could not be written at shutdown nor spilled`);
      return false;
    }
    stats.spilled += rows.length;
    return true;
  }

  /** How `promise` ended, or 'late' when `deadline` (Date.now() ms) came first. */
  const within = (promise: Promise<unknown>, deadline: number): Promise<'ok' | 'failed' | 'late'> => {
    const outcome = promise.then(
      () => 'ok' as const,
      () => 'failed' as const,
    );
    if (!Number.isFinite(deadline)) return outcome;
    let t: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (t = setTimeout(() => resolve('late'), Math.max(0, deadline - Date.now()))));
    return Promise.race([outcome, late]).finally(() => clearTimeout(t));
  };

  const writer: ClickWriter<Row> = {
    holding: false,
    copiesRows,

    push(row) {
      const wasIdle = buffered() === 0;
      if (overflow.length === 0 && queue.push(row)) {
        stats.queued++;
        if (wasIdle) checkLag();
        if (running) return;
        if (queue.waiting >= maxRows) flushSoon();
        else schedule(interval);
        return;
      }
      if (overflow.length < maxOverflow) {
        overflow.push(copiesRows ? { ...row } : row);
        stats.queued++;
        checkLag();
        return;
      }
      {
        stats.dropped++;
        if (stats.dropped === 1 || stats.dropped % 10_000 === 0) {
          options.onError?.(
            new Error('click buffer full'),
            `${buffered()} clicks waiting (the database is failing or the writes are behind): ${stats.dropped} clicks not recorded so far`,
          );
        }
      }
    },

    holdAnswer(answer) {
      if (!writer.holding) return answer();
      stats.held++;
      held.hold(answer);
    },

    pending(clickId) {
      // A linear search: a lookup is rare (a lead naming a click of the last few milliseconds),
      // while a Map of pending ids would cost every redirect an insert and a delete.
      return overflow.find((r) => r.id === clickId) ?? queue.find(clickId);
    },

    async flush() {
      if (running) await running.catch(() => undefined);
      while (current || queue.waiting > 0 || overflow.length > 0) {
        if (!current && queue.waiting === 0) refill();
        await flushOnce();
      }
    },

    stopHolding() {
      holdingStopped = true;
      if (lagTimer !== null) clearTimeout(lagTimer);
      lagTimer = null;
      setHolding(false);
    },

    async close(closeOptions = {}) {
      closed = true;
      writer.stopHolding();
      if (timer !== null) {
        clearTimeout(timer);
        timer = null;
      }
      const deadline = closeOptions.deadline ?? Infinity;
      let attempts = 0;
      while ((current || queue.waiting > 0 || overflow.length > 0 || running) && Date.now() < deadline) {
        if (!current && !running && queue.waiting === 0) refill();
        const outcome = await within(running ?? flushOnce(), deadline);
        if (outcome === 'late') break;
        if (outcome === 'ok') {
          attempts = 0;
          continue;
        }
        if (++attempts >= 10 && deadline === Infinity) break;
        await sleep(Math.max(0, Math.min(2_000, 100 * 2 ** attempts, deadline - Date.now())));
      }
      // Out of time or attempts: what is not stored goes to the spill file. The batch still in
      // flight may be stored too; the replay skips the clicks already stored (click-spill.ts).
      if (buffered() > 0) {
        const left = [...queue.rows(current !== null), ...overflow];
        abandoned = true;
        if (!spill(left)) stats.lost += left.length;
        queue.clear();
        overflow = [];
        current = null;
      }
    },

    spillNow() {
      const rows = [...queue.rows(!abandoned && current !== null), ...overflow];
      if (!rows.length) return 0;
      if (!options.spill) throw new Error(`no spill file for ${rows.length} clicks`);
      options.spill(rows);
      stats.spilled += rows.length;
      abandoned = true;
      queue.clear();
      overflow = [];
      current = null;
      return rows.length;
    },

    stats() {
      const oldest = oldestStamp();
      return { ...stats, buffered: buffered(), holding: writer.holding, lagMs: oldest === undefined ? 0 : Math.max(0, now() - oldest) };
    },
  };
  return writer;
}
