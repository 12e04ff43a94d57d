/**
 * Redirect module: short-link redirects and click recording (issue 4). `tryHandle` runs in the raw
 * node:http server before Fastify (app.ts); `clicks` lets conversions find a click, stored or
 * not; `lifecycle` checkpoints SQLite's log on a thread of its own, relays cache invalidations over
 * PostgreSQL, and flushes the click batch to the event log at shutdown, spilling what the grace
 * does not allow to a file (click-spill.ts) that `replaySpilledClicks` stores at the next start.
 *
 * Design notes and the durability guarantee: docs/redirects.md.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppContext } from '../context.js';
import type { Lifecycle } from '../lifecycle.js';
import type { LinksModule } from '../links/module.js';
import { createClickRing, duckDbPathFor, eventStoreKind, eventsUrlFor, type EventLogClient, type RawClick, type RingBatch, type StoredEvent } from '../events/index.js';
import { startCheckpointing, type Checkpointer } from '../db/checkpointer.js';
import { createRedirectStore } from './store.js';
import { createLinkCache } from './link-cache.js';
import { createClickWriter } from './click-writer.js';
import { createRingBuffer, type RingRow } from './ring-buffer.js';
import { clickIdOf } from '../visitors/click-id.js';
import { createGeoLocator } from '../visitors/geo.js';
import { classifyUa } from '../visitors/visitor.js';
import { createClickDeduplicator } from './dedup.js';
import { createAttemptLimiter } from './password.js';
import { createRedirectHandler, type RedirectHandlerDeps } from './handler.js';
import { createChangeRelay, type ChangeRelay } from '../db/change-relay.js';
import { freeBytesOf, replaySpilledClicks, spillDirFor, spillSharesVolume, warnOfSpillVolume, writeSpillFile } from './click-spill.js';
import { createLineLogger, toStderr } from '../log-line.js';

/**
 * The end of the shutdown grace kept for after the last store attempt: the spill file (write and
 * fsync), the event log's close, the database's close.
 */
export const SHUTDOWN_RESERVE_MS = 1_000;

/** Rows of the click ring (48 B each: 3 MiB). At 20,000 clicks a second it holds over 3 s of them. */
export const CLICK_RING_ROWS = 65_536;

/**
 * Finds a click of a workspace by its id, whether already stored or still in the in-memory batch
 * (a lead may arrive milliseconds after its click). Returns the click event row, whose
 * dimensions (country, device, …) lead and sale events copy.
 */
export interface ClickLookup {
  findClick(workspaceId: string, clickId: string): Promise<StoredEvent | undefined>;
}

export function createRedirectModule(ctx: AppContext, _deps: { links: LinksModule; bio?: RedirectHandlerDeps['bio'] }) {
  const { config, database } = ctx;
  const log = createLineLogger(config.logLevel, toStderr);
  const onError = (err: unknown, context: string) => log('error', context, { err: err instanceof Error ? err.message : String(err) });
  const warn = (msg: string, fields: Record<string, unknown>) => log('warn', msg, fields);

  const store = createRedirectStore(database.db);
  const cache = createLinkCache(store, { onError });
  const unsubscribe = ctx.bus.subscribe((change) => cache.invalidate(change));
  // Changes may have been missed (the relay reconnected): the cache starts over.
  const unsubscribeResync = ctx.bus.onResync(() => cache.clear());
  // Clicks go to the event log's thread as raw clicks (events/log/): it completes them (geo, user
  // agent, referer, UTM), stores each batch once and counts it (link counters, usage, outbox rows,
  // webhook deliveries), so neither the 130 MB of city data nor the database's writes burden the
  // redirect thread.
  const events: EventLogClient = ctx.events;
  const spillDir = spillDirFor(config.clickSpillDir, database.localFiles);
  const identity = database.identity;
  // New clicks are rows of the ring shared with the log thread (ring-buffer.ts); what finds it
  // full waits beside it, its answer held, up to CLICK_BUFFER_MAX clicks in all.
  const ringRows = Math.min(CLICK_RING_ROWS, config.clickBufferMax);
  const buffer = createRingBuffer(createClickRing({ capacity: ringRows, clickIdOf }));
  void events.attachClickRing(buffer.ring.buffer).catch((err) => onError(err, 'sharing the click ring with the event log failed; clicks are not stored'));
  const writer = createClickWriter<RingRow, RingBatch>({
    log: { appendRawClicks: (batchId, batch) => events.appendClickRing(batchId, batch) },
    buffer,
    overflow: config.clickBufferMax - ringRows,
    intervalMs: config.clickFlushIntervalMs,
    maxRows: config.clickFlushMaxRows,
    maxLagMs: config.clickMaxLagMs,
    maxHoldMs: config.clickMaxHoldMs,
    // The clock the redirect stamps clicks with: the lag is the oldest one's age.
    now: ctx.now,
    spill: spillDir
      ? (rows) => {
          const file = writeSpillFile(spillDir, identity, rows);
          warn('clicks not stored within the shutdown grace were spilled; the next start stores them', { clicks: rows.length, file });
        }
      : undefined,
    onError,
  });
  // Set by beginShutdown (main.ts, on SIGTERM): when the grace ends.
  let shutdownDeadline: number | undefined;
  // Geo targeting needs the country only: the small country data, loaded on the first visit that needs it.
  const targetingGeo = createGeoLocator({ dbPath: config.geoipDb, precision: 'country', trustHeaders: config.trustGeoHeaders, onError });
  const handler = createRedirectHandler({
    apiHosts: config.apiHosts,
    clientAddress: ctx.clientAddress.of,
    clickIdParam: config.clickIdParam,
    secureCookies: config.shortLinkProtocol === 'https',
    clickIdCookieSeconds: config.clickIdCookieSeconds,
    cache,
    writer,
    // Called once per distinct user agent: the handler's agent table (agents.ts) keeps the traits.
    classify: classifyUa,
    targetingGeo,
    trustGeoHeaders: config.trustGeoHeaders,
    dedup: createClickDeduplicator(),
    limiter: createAttemptLimiter(),
    now: ctx.now,
    random: Math.random,
    onError,
    bio: _deps.bio,
  });

  let relay: ChangeRelay | null = null;
  let checkpointer: Checkpointer | null = null;

  /** Handles the request when its Host is a short-link domain; returns false for API hosts. */
  const tryHandle = (req: IncomingMessage, res: ServerResponse): boolean => handler.tryHandle(req, res);

  const clicks: ClickLookup = {
    async findClick(workspaceId, clickId) {
      const pending = writer.pending(clickId);
      if (pending) {
        if (pending.workspaceId !== workspaceId) return undefined;
        // The row is completed where it is stored: store it now (a lead right after its click
        // waits one flush, milliseconds).
        await writer.flush();
      }
      // Rows leave the batch only once stored, so a miss here is in the event log (or nowhere).
      return events.findClick(workspaceId, clickId);
    },
  };

  const lifecycle: Lifecycle = {
    async start() {
      checkpointer = await startCheckpointing(database, { onError, nice: config.clickWriterNice });
      if (spillDir) {
        const eventFile = eventStoreKind(config, database) === 'duckdb' ? duckDbPathFor(eventsUrlFor(config.eventsUrl, database.capabilities), database.localFiles) : undefined;
        const shared = spillSharesVolume(spillDir, [database.sqlitePath, eventFile === ':memory:' ? undefined : eventFile]);
        const freeBytes = freeBytesOf(spillDir);
        if (warnOfSpillVolume(shared, freeBytes)) {
          warn(`the click spill folder ${spillDir} is on the same volume as ${shared}, which has ${Math.round((freeBytes ?? 0) / 1024 ** 2)} MB free: when that disk is full, a shutdown cannot spill the clicks it could not store, and they are lost. Free space, or set CLICK_SPILL_DIR to a folder on another volume (docs/redirects.md, "A full disk")`, { spillDir, shared, freeBytes });
        }
      }
      if (database.capabilities.changeRelay) {
        relay = createChangeRelay({
          url: database.url,
          schema: database.pgSchema,
          db: database.db,
          bus: ctx.bus,
          // Every cache that listens to the bus starts over: the link cache, the TLS allow list (on
          // the API thread too).
          onReconnect: () => ctx.bus.resync(),
          onError,
        });
        await relay.start();
      }
    },
    async close() {
      const deadline = shutdownDeadline ?? Date.now() + config.clickShutdownGraceMs;
      // The checkpoint thread stops first: its RESTART checkpoints take the write lock, and the
      // last batches and the fold should not have to wait for one.
      await checkpointer?.stop();
      checkpointer = null;
      // The event log closes after this (app.ts), counting what the last batches stored.
      await writer.close({ deadline: deadline - SHUTDOWN_RESERVE_MS });
      await relay?.close();
      relay = null;
      unsubscribe();
      unsubscribeResync();
    },
  };

  return {
    tryHandle,
    clicks,
    lifecycle,
    /** Stores every buffered click now and counts it (link counters, usage, deliveries): tests, benchmarks. */
    flushClicks: async () => {
      await writer.flush();
      await events.fold();
    },
    /**
     * Has the event log load what completing a click needs now instead of with the first batch
     * (main.ts; tests load it lazily), so the first clicks are neither kept waiting nor their
     * answers held (the GeoIP data takes ~0.6 s).
     */
    startWriter: () => events.clicksReady(),
    /**
     * Shutdown begins (SIGTERM): held answers go out now and none is held any more, and the
     * clicks are committed until SHUTDOWN_RESERVE_MS before `deadline` (Date.now() ms), spilled after.
     */
    beginShutdown: (deadline: number) => {
      shutdownDeadline = deadline;
      writer.stopHolding();
    },
    /** Spills every click still in memory now (a shutdown out of time); returns how many. Throws if it cannot. */
    spillNow: () => writer.spillNow(),
    /**
     * Writes the clicks earlier shutdowns spilled (click-spill.ts), before this process serves.
     * Never throws; a file that cannot be replayed is logged and kept.
     */
    replaySpilledClicks: async () => {
      if (!spillDir) return { replayed: 0, kept: [], written: 0, alreadyStored: 0 };
      return replaySpilledClicks({
        dir: spillDir,
        database: identity,
        log: events,
        batchRows: config.clickFlushMaxRows,
        onError,
        onReplayed: (file, written, alreadyStored) => warn('spilled clicks replayed', { file, written, alreadyStored }),
      });
    },
    /** Loads the country data of geo targeting now instead of on the first visit that needs it. */
    geoReady: () => targetingGeo.ready(),
    /** Counters of answers and clicks since start (benchmark, diagnostics). */
    stats: () => ({ ...handler.stats(), writer: writer.stats(), cachedLinks: cache.size }),
  };
}
export type RedirectModule = ReturnType<typeof createRedirectModule>;
