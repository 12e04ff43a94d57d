/**
 * The log thread's side of the port: it owns the event log's store (and so its engine: a DuckDB
 * instance may have one owner per process), completes the click writer's raw clicks (enrich.ts),
 * stores each batch once through the fold (fold.ts), answers every read and erasure the main
 * thread sends (protocol.ts `LogApi`), and runs the store's timers: the fold (about once a second,
 * at once when a listener has someone waiting), the column store's upkeep (column/lifecycle.ts:
 * copies, backups, compaction) and forgetting old batch ids. Requests are served as they come;
 * each one's failure goes back to its caller.
 *
 * @example
 * const service = createLogService({ stores, enrich, listeners, foldIntervalMs: 1000, notify });
 * port.on('message', (m) => service.handle(m, (reply) => port.postMessage(reply)));
 */
import type { StoredEvent } from '../event-store.js';
import type { EventStores } from '../open.js';
import type { GeoLocator } from '../../visitors/geo.js';
import { columnLifecycle } from '../column/lifecycle.js';
import { serveBackupRequests } from '../column/backup-requests.js';
import { BATCH_ID_MEMORY_MS } from '../click-log.js';
import { COMPACTION_HOLD_MS, COMPACTION_PERIOD_DAYS } from '../duckdb/compaction.js';
import { createClickFold, nextFoldDelay, type ClickListener } from './fold.js';
import { unpackClicks, type RawClick } from './raw-click.js';
import { createReadSlots } from './read-slots.js';
import { createRingReader, type RingReader } from './ring-reader.js';
import type { ColumnEnricher } from './column-enrich.js';
import { checkColumns, type ClickColumns } from '../batch/click-columns.js';
import { columnsOf } from '../batch/wide-rows.js';
import { clickIdOf } from '../../visitors/click-id.js';
import type { FromLog, LogApi, LogError, LogNotice, LogRequest } from './protocol.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import { NO_TRACES, type Traces } from '../../tracing/traces.js';
import { getHeapStatistics } from 'node:v8';
import { collectIfExposed, heapFigures } from '../../heap-figures.js';

export interface LogServiceOptions {
  /** The metadata database, on the log thread's own connection (the fold's transactions). */
  db: Kysely<Database>;
  stores: EventStores;
  /** Raw click → stored click row (packed raw clicks: a spill's replay, the array buffer's batches). */
  enrich: (raw: RawClick) => StoredEvent;
  /** The ring's clicks, enriched once per distinct value into columns. */
  enrichColumns: ColumnEnricher;
  /** The location data the enricher reads (loaded on first use). */
  geo: Pick<GeoLocator, 'start' | 'ready'>;
  listeners: readonly ClickListener[];
  /** The fold's base interval (`CLICK_FOLD_INTERVAL_MS`); slow folds stretch it (fold.ts). */
  foldIntervalMs: number;
  /** Read queries at once (`EVENT_READ_CONCURRENCY`, read-slots.ts); appends never wait for them. Default 2; 0: unbounded. */
  maxConcurrentReads?: number;
  /** The metadata database's refusal of a lock another connection holds (`Dialect.isBusy`): retried here. */
  isBusy(err: unknown): boolean;
  notify(notice: LogNotice): void;
  /** This thread's spans: one per stored click batch (`events.append_clicks`) and per fold. */
  traces?: Traces;
  /** The store's kind, an attribute of the batch spans. */
  kind?: string;
}

export interface LogService {
  handle(request: LogRequest, reply: (message: FromLog, transfer?: ArrayBuffer[]) => void): void;
  /** Resolves once `close` was handled. */
  readonly closed: Promise<void>;
}

const errorOf = (err: unknown): LogError => {
  const e = err as { message?: unknown; code?: unknown };
  return { message: String(e?.message ?? err), ...(typeof e?.code === 'string' ? { code: e.code } : {}) };
};

/** How often ids of stored batches older than BATCH_ID_MEMORY_MS are forgotten (inline stores). */
const FORGET_IDS_EVERY_MS = 600_000;
/** Pause between tries of a write the metadata database refused as busy, and how long to keep trying. */
const BUSY_RETRY_MS = 10;
const BUSY_GIVE_UP_MS = 5_000;
/** Read queries at once by default: two of the pool's four threads, the other two for appends and the process's own I/O. */
const DEFAULT_CONCURRENT_READS = 2;

export function createLogService(options: LogServiceOptions): LogService {
  const { stores, listeners, notify } = options;
  const store = stores.events;
  const column = stores.column;
  const warn = (msg: string, err: unknown) => notify({ notice: 'log', level: 'warn', msg, fields: { err: errorOf(err).message } });
  /**
   * Runs `fn` again while the metadata database refuses it as busy (an API write, a checkpoint, a
   * transaction of the main thread's waiting on this thread): each try waits only briefly inside
   * SQLite, so this thread reads its messages in between. Every retried write is one transaction,
   * rolled back whole when refused.
   */
  async function whileBusy<T>(fn: () => Promise<T>): Promise<T> {
    const giveUpAt = Date.now() + BUSY_GIVE_UP_MS;
    for (;;) {
      try {
        return await fn();
      } catch (err) {
        if (!options.isBusy(err) || Date.now() > giveUpAt) throw err;
        // Through setImmediate: messages queued while SQLite held the thread are read first.
        await new Promise((r) => setTimeout(() => setImmediate(r), BUSY_RETRY_MS));
      }
    }
  }

  const traces = options.traces ?? NO_TRACES;
  const fold = createClickFold({
    db: options.db,
    log: store.clickLog,
    listeners,
    traces,
    onCounted: (written) => notify({ notice: 'counted', written: [...written] }),
  });
  const watermark = store.clickLog.folding === 'watermark';

  let closing = false;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));

  // The fold's timer (a store that counts in the append's transaction has none).
  let foldTimer: NodeJS.Timeout | undefined;
  let folding: Promise<unknown> = Promise.resolve();
  const scheduleFold = (delayMs: number) => {
    if (closing || !watermark) return;
    clearTimeout(foldTimer);
    foldTimer = setTimeout(foldRound, delayMs);
    foldTimer.unref();
  };
  // The batches stored and not counted before this start are read back before anything is
  // counted: a fold would otherwise move the watermark past them.
  let recoveredOk = false;
  const recover = () => whileBusy(() => fold.recover()).then(() => void (recoveredOk = true));
  /** Counts what is stored, once the read-back succeeded. */
  async function countStored(): Promise<void> {
    if (!recoveredOk) await recover();
    await whileBusy(() => fold.fold());
  }
  function foldRound(): void {
    const started = performance.now();
    folding = countStored().then(
      () => scheduleFold(nextFoldDelay(options.foldIntervalMs, performance.now() - started)),
      (err) => {
        warn('clicks stored and not counted yet (link counters, usage, deliveries); the next fold retries', err);
        scheduleFold(options.foldIntervalMs);
      },
    );
  }
  const recovered = recover().then(
    () => scheduleFold(fold.urgent() ? 0 : options.foldIntervalMs),
    (err) => {
      warn('reading back the clicks stored and not counted failed; the next fold retries', err);
      scheduleFold(options.foldIntervalMs);
    },
  );

  // The column store's upkeep, and forgetting the ids of old batches (inline stores).
  const duckDb = stores.duckDb;
  const lifecycle = columnLifecycle(column, (err) => warn('a copy into the column store, an event-file backup or a compaction failed; the next round retries', err), {
    backups: duckDb ? { db: options.db, engine: duckDb } : undefined,
    compact: duckDb ? () => duckDb.compact(Date.now() - COMPACTION_HOLD_MS, Number.MAX_SAFE_INTEGER, COMPACTION_PERIOD_DAYS) : undefined,
  });
  lifecycle.start?.();
  const clickLog = store.clickLog;
  const forgetTimer = clickLog.folding === 'inline'
    ? setInterval(() => void clickLog.forgetBatchIds(Date.now() - BATCH_ID_MEMORY_MS).catch((err) => warn('forgetting old click batch ids failed', err)), FORGET_IDS_EVERY_MS)
    : undefined;
  forgetTimer?.unref();

  let geoStarted = false;
  const geoReady = () => {
    if (!geoStarted) {
      geoStarted = true;
      options.geo.start();
    }
    return options.geo.ready();
  };

  // Reads take at most these many of libuv's pool threads, so an append always finds one free;
  // while an append runs, no waiting read starts.
  const reads = createReadSlots(options.maxConcurrentReads ?? DEFAULT_CONCURRENT_READS);

  /** Completes clicks (once the location data is read) and stores them once by batch id. */
  async function storeClicks(batchId: string, complete: () => ClickColumns, size: number): Promise<void> {
    const span = traces.start('events.append_clicks', { kind: 'consumer', attributes: { 'waymark.batch.id': batchId, 'waymark.batch.clicks': size, 'waymark.event_store': options.kind } });
    try {
      // Locations need the location data, read once on first use (~0.6 s).
      await geoReady();
      const clicks = complete();
      await recovered;
      await reads.first(() => whileBusy(() => fold.append(batchId, clicks, span)));
    } catch (err) {
      span.fail(err);
      throw err;
    } finally {
      span.end();
    }
    if (fold.urgent()) scheduleFold(0);
  }
  let ring: RingReader | undefined;

  const api: LogApi = {
    describe: async () => ({ kind: stores.kind }),
    appendRawClicks: (batchId, packed) => {
      const rows = unpackClicks(packed);
      return storeClicks(batchId, () => columnsOf(rows.map(options.enrich)), rows.length);
    },
    async attachClickRing(buffer) {
      ring = createRingReader(buffer, clickIdOf);
    },
    appendClickRing(batchId, batch) {
      const reader = ring;
      if (!reader) return Promise.reject(new Error('no click ring attached'));
      // The values are taken now, in the batches' order; the rows stay in the ring (its tail
      // behind them until this resolves) and are read once the location data is.
      reader.accept(batch);
      return storeClicks(batchId, () => reader.columns(batch, options.enrichColumns), batch.to - batch.from);
    },
    clicksReady: () => geoReady(),
    memory: async (collect) => {
      if (collect) collectIfExposed();
      return { heap: heapFigures(getHeapStatistics()), ...(duckDb ? { duckDb: await duckDb.memory() } : {}) };
    },
    async fold() {
      await recovered;
      await folding;
      await countStored();
    },

    append: (events) => store.append(events),
    // Clicks already complete (the migration's imported batches): stored and counted as the ring's are.
    async appendClicks(batchId, clicks) {
      checkColumns(clicks);
      await recovered;
      await reads.first(() => whileBusy(() => fold.append(batchId, clicks)));
      if (fold.urgent()) scheduleFold(0);
    },
    copyConversions: (ids) => store.copyConversions(ids),
    findClick: (workspaceId, clickId) => reads.run(() => store.findClick(workspaceId, clickId)),
    existingClickIds: (ids) => reads.run(() => store.existingClickIds(ids)),
    scopeLinkIds: (input, max) => reads.run(() => store.scopeLinkIds(input, max)),
    aggregate: (spec, range, boundaries) => reads.run(() => store.aggregate(spec, range, boundaries)),
    page: (spec, range, page) => reads.run(() => store.page(spec, range, page)),
    buyerConversions: (spec, range, since) => reads.run(() => store.buyerConversions(spec, range, since)),
    creditAggregate: (spec, range, model) => reads.run(() => store.creditAggregate(spec, range, model)),
    forgetLinks: (workspaceId, linkIds) => store.forgetLinks(workspaceId, linkIds),
    forgetIp: (ip) => store.forgetIp(ip),
    forgetClick: (clickId) => store.forgetClick(clickId),
    applyErasures: () => store.applyErasures(),
    expire: (before, limit) => store.expire(before, limit),
    expireSummaries: (before, limit) => store.expireSummaries(before, limit),

    async close() {
      closing = true;
      clearTimeout(foldTimer);
      clearInterval(forgetTimer);
      await recovered;
      await folding;
      // What is stored is counted now, or by the next start (recover).
      await countStored().catch((err) => warn('counting the last clicks at shutdown failed; the next start counts them', err));
      // Backup requests a moment old are written before the file closes.
      if (duckDb) await serveBackupRequests(options.db, duckDb).catch(() => undefined);
      await lifecycle.close?.();
      if (!column) await stores.close();
    },
  };

  return {
    closed,
    handle(request, reply) {
      const method = api[request.method] as (...args: unknown[]) => Promise<unknown>;
      if (typeof method !== 'function') {
        reply({ id: request.id, error: { message: `unknown event log method ${String(request.method)}` } });
        return;
      }
      method(...(request.args as unknown[])).then(
        (value) => {
          reply({ id: request.id, value });
          if (request.method === 'close') resolveClosed();
        },
        (err) => {
          reply({ id: request.id, error: errorOf(err) });
          if (request.method === 'close') resolveClosed();
        },
      );
    },
  };
}
