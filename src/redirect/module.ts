/**
 * Redirect module: short-link redirects and click recording (issue 4). `tryHandle` runs in the raw
 * node:http server before Fastify (app.ts); `clicks` lets conversions find a click, flushed or
 * not; `lifecycle` loads the GeoIP data, relays cache invalidations over PostgreSQL, and flushes
 * the click batch at shutdown, spilling what the grace does not allow to a file (click-spill.ts)
 * that `replaySpilledClicks` writes at the next start.
 *
 * Design notes and the durability guarantee: docs/redirects.md.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppContext, Lifecycle } from '../context.js';
import type { LinksModule } from '../links/module.js';
import type { StoredEvent } from '../events/event-store.js';
import { createLinkCounters } from '../links/counters.js';
import { createClickAnnouncer } from './click-announce.js';
import { startCheckpointing, type Checkpointer } from '../db/checkpointer.js';
import { createRedirectStore } from './store.js';
import { createLinkCache } from './link-cache.js';
import { createClickWriter, createDirectSink } from './click-writer.js';
import { createWorkerSink } from './flush-client.js';
import { createGeoLocator, type GeoLocator, type GeoOptions } from './geo.js';
import { createUaClassifier } from './visitor.js';
import { createClickDeduplicator } from './dedup.js';
import { createClickEnricher } from './click-enrich.js';
import { createClickFold } from '../events/sql/click-fold.js';
import { createAttemptLimiter } from './password.js';
import { createRedirectHandler } from './handler.js';
import { createChangeRelay, type ChangeRelay } from '../db/change-relay.js';
import { databaseIdentity, replaySpilledClicks, spillDirFor, spillSharesVolume, writeSpillFile } from './click-spill.js';
import { createClickJournal, type ClickJournal } from '../events/column/click-journal.js';
import { createJournalFeed } from '../events/column/journal-feed.js';
import type { ClickSink } from './click-writer.js';
import type { RawClick } from './click-record.js';

/** How often, and after how long, journal batches the column store has not acknowledged are appended again. */
const JOURNAL_CATCH_UP_MS = 5_000;
const JOURNAL_CATCH_UP_AGE_MS = 15_000;

/**
 * The end of the shutdown grace kept for after the last commit attempt: the spill file (write and
 * fsync), the flush worker's close, the database's close.
 */
export const SHUTDOWN_RESERVE_MS = 1_000;

/**
 * Finds a click of a workspace by its id, whether already flushed to the database or still in the
 * in-memory batch (a lead may arrive milliseconds after its click). Returns the click event row,
 * whose dimensions (country, device, …) lead and sale events copy.
 */
export interface ClickLookup {
  findClick(workspaceId: string, clickId: string): Promise<StoredEvent | undefined>;
}

/** A city-precision locator, loading in the background. */
function startedGeo(options: GeoOptions): GeoLocator {
  const geo = createGeoLocator(options);
  geo.start();
  return geo;
}

/** A ClickSink over a click journal on this thread (in-memory SQLite with DuckDB). */
function journalSink(journal: ClickJournal, enrich: (raw: RawClick) => StoredEvent): ClickSink {
  let recovered: Promise<void> | undefined;
  const ready = () => (recovered ??= journal.recover());
  return {
    write: async (batch) => {
      await ready();
      return journal.write(batch.map(enrich));
    },
    existingClickIds: (ids) => journal.existingClickIds(ids),
    settle: () => journal.fold(),
    start: ready,
    close: async (options) => {
      if (!options?.abandon) await journal.fold();
    },
  };
}

export function createRedirectModule(ctx: AppContext, _deps: { links: LinksModule }) {
  const { config, database } = ctx;
  const onError = (err: unknown, context: string) => {
    if (config.logLevel === 'silent') return;
    const message = err instanceof Error ? err.message : String(err);
    console.error(JSON.stringify({ level: 50, time: Date.now(), msg: context, err: message }));
  };
  const warn = (msg: string, fields: Record<string, unknown>) => {
    if (['silent', 'fatal', 'error'].includes(config.logLevel)) return;
    console.error(JSON.stringify({ level: 40, time: Date.now(), msg, ...fields }));
  };

  const store = createRedirectStore(database.db);
  const cache = createLinkCache(store, { onError });
  const unsubscribe = ctx.bus.subscribe((change) => cache.invalidate(change));
  const classify = createUaClassifier();
  // Clicks are completed (geo, user agent, referer, UTM) and written on a worker thread, so
  // neither SQLite's synchronous writes nor the 130 MB of city data burden the redirect thread.
  // Only a database a worker cannot open (in-memory SQLite) is written from here.
  // Clicks go to the outbox only for links someone subscribes to (events/outbox.ts,
  // ClickSubscriptions): every click for a subscriber to all of them, else those of the workspaces
  // and links that webhooks cover, kept up to date as webhooks change (watchClicks).
  // Webhooks' clicks (ClickSubscriptions.routes) are recorded by the batch itself, one row per
  // batch that the dispatcher expands (click-announce.ts, webhooks/click-batches.ts), not through
  // the outbox.
  const announcer = createClickAnnouncer({ subscriptions: ctx.outbox.clickSubscriptions(), writeOutbox: (trx, entries) => ctx.outbox.write(trx, entries), now: ctx.now });
  // With DuckDB, batches are committed to the click journal and handed over as CSV files in
  // `clickDir`, which this thread (DuckDB's owner) appends (events/column/click-journal.ts).
  const column = ctx.clickColumn?.engine;
  const clickDir = ctx.clickColumn?.batchDir;
  const workerSink = database.capabilities.writerThread
    ? createWorkerSink(
        { url: database.url, pgSchema: database.pgSchema, geoipDb: config.geoipDb, foldIntervalMs: config.clickFoldIntervalMs, nice: config.clickWriterNice, clicks: ctx.outbox.clickSubscriptions(), visitorIp: config.visitorIp, column: clickDir ? { dir: clickDir } : undefined },
        { onError, onHorizon: column ? undefined : (foldedBefore) => ctx.sqlEvents.horizon.update(foldedBefore) },
      )
    : undefined;
  ctx.outbox.watchClicks(() => {
    const current = ctx.outbox.clickSubscriptions();
    announcer.set(current);
    workerSink?.setClicks(current);
  });
  const enrichHere = () => createClickEnricher({ geo: startedGeo({ dbPath: config.geoipDb, trustHeaders: false, onError }), classify, ipMode: config.visitorIp });
  // In-memory SQLite with DuckDB: the journal on this thread, folded after every batch.
  const directJournal: ClickJournal | undefined = column && !workerSink
    ? createClickJournal({ db: database.db, counters: createLinkCounters(database.dialect), dir: clickDir!, announce: (trx, rows) => announcer.announce(trx, rows), now: ctx.now })
    : undefined;
  const journalFeed = column
    ? createJournalFeed({
        db: database.db,
        engine: column,
        dir: clickDir!,
        acknowledge: (seqs) => (workerSink ? workerSink.stored(seqs) : directJournal!.stored(seqs)),
        counters: createLinkCounters(database.dialect),
        onError: (err) => onError(err, 'clicks not appended to the column store yet; the click journal keeps them and they are appended again'),
      })
    : undefined;
  const baseSink: ClickSink = workerSink
    ?? (directJournal ? journalSink(directJournal, enrichHere()) : undefined)
    ?? createDirectSink(
        createClickFold({
          db: database.db,
          writer: ctx.sqlEvents.writer,
          counters: createLinkCounters(database.dialect),
          mode: 'each',
          announce: (trx, rows) => announcer.announce(trx, rows),
        }),
        ctx.sqlEvents,
        enrichHere(),
      );
  const spillDir = spillDirFor(config.clickSpillDir, database);
  const identity = databaseIdentity(database);
  // Announced clicks go out as soon as their batch commits, not at the publisher's next poll.
  const written: ClickSink = {
    ...baseSink,
    write: async (batch) => {
      const journaled = await baseSink.write(batch);
      // The batch is committed: the column store appends it meanwhile (the journal keeps it until then).
      journalFeed?.take(journaled);
      if (directJournal) await directJournal.fold().catch((err) => onError(err, 'click counters not folded yet; the next batch retries'));
      if (announcer.writesOutbox) ctx.outbox.nudge();
      if (announcer.routes) ctx.outbox.clicksRouted();
    },
    // A batch whose outcome is unknown may be in the journal or already in the column store.
    existingClickIds: async (ids) => {
      const found = new Set(await baseSink.existingClickIds(ids));
      if (column) for (const id of await column.existingIds(ids)) found.add(id);
      return [...found];
    },
  };
  const sink = written;
  const writer = createClickWriter({
    sink: written,
    intervalMs: config.clickFlushIntervalMs,
    maxRows: config.clickFlushMaxRows,
    maxBuffered: config.clickBufferMax,
    maxLagMs: config.clickMaxLagMs,
    maxHoldMs: config.clickMaxHoldMs,
    // The clock the redirect stamps clicks with: the lag is the oldest one's age.
    now: ctx.now,
    spill: spillDir
      ? (rows) => {
          const file = writeSpillFile(spillDir, identity, rows);
          warn('clicks not committed within the shutdown grace were spilled; the next start writes them', { clicks: rows.length, file });
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
    classify,
    targetingGeo,
    trustGeoHeaders: config.trustGeoHeaders,
    dedup: createClickDeduplicator(),
    limiter: createAttemptLimiter(),
    now: ctx.now,
    random: Math.random,
    onError,
  });

  let relay: ChangeRelay | null = null;
  let checkpointer: Checkpointer | null = null;
  let journalTimer: NodeJS.Timeout | undefined;
  let journalRound: Promise<unknown> = Promise.resolve();

  /** Handles the request when its Host is a short-link domain; returns false for API hosts. */
  const tryHandle = (req: IncomingMessage, res: ServerResponse): boolean => handler.tryHandle(req, res);

  const clicks: ClickLookup = {
    async findClick(workspaceId, clickId) {
      const pending = writer.pending(clickId);
      if (pending) {
        if (pending.workspaceId !== workspaceId) return undefined;
        // The row is completed where it is written: write it now (a lead right after its click
        // waits one flush, milliseconds).
        await writer.flush();
      }
      // Rows leave the batch only after their flush committed, so a miss here is in the table
      // (with DuckDB, once the appends of the batches committed so far are done).
      await journalFeed?.settled();
      return ctx.events.findClick(workspaceId, clickId);
    },
  };

  const lifecycle: Lifecycle = {
    async start() {
      checkpointer = await startCheckpointing(database, { onError, nice: config.clickWriterNice });
      if (spillDir) {
        const shared = spillSharesVolume(spillDir, [database.sqlitePath, clickDir]);
        if (shared) {
          warn(`the click spill folder ${spillDir} is on the same volume as ${shared}: when that disk is full, a shutdown cannot spill the clicks it could not commit, and they are lost. Set CLICK_SPILL_DIR to a folder on another volume (docs/redirects.md, "A full disk")`, { spillDir, shared });
        }
      }
      // Until the writer reports, the database's watermark (one that lags is safe: events/horizon.ts).
      await ctx.sqlEvents.loadHorizon();
      if (journalFeed) {
        // What the last run committed and the column store did not acknowledge, then now and then.
        // A failure (a full disk) does not stop the start: the timer's rounds retry.
        await journalFeed.catchUp(0).catch((err) => onError(err, 'click journal catch-up failed at start; retried every few seconds'));
        journalTimer = setInterval(() => {
          journalRound = journalRound.then(() => journalFeed.catchUp(JOURNAL_CATCH_UP_AGE_MS)).catch((err) => onError(err, 'click journal catch-up failed; the next round retries'));
        }, JOURNAL_CATCH_UP_MS);
        journalTimer.unref();
      }
      if (database.capabilities.changeRelay) {
        relay = createChangeRelay({
          url: database.url,
          schema: database.pgSchema,
          db: database.db,
          bus: ctx.bus,
          onReconnect: () => cache.clear(),
          onError,
        });
        await relay.start();
      }
    },
    async close() {
      const deadline = shutdownDeadline ?? Date.now() + config.clickShutdownGraceMs;
      // The checkpoint thread stops first: its RESTART checkpoints take the write lock, and the
      // writer's last fold should not have to wait for one (flush-client.ts, close).
      await checkpointer?.stop();
      checkpointer = null;
      clearInterval(journalTimer);
      await journalRound;
      await writer.close({ deadline: deadline - SHUTDOWN_RESERVE_MS, sinkTimeoutMs: SHUTDOWN_RESERVE_MS });
      // The writer has stopped: the last batches' acknowledgements are recorded from here.
      await journalFeed?.finish().catch((err) => onError(err, 'click journal not finished at shutdown; the next start appends what it holds'));
      await relay?.close();
      relay = null;
      unsubscribe();
    },
  };

  return {
    tryHandle,
    clicks,
    lifecycle,
    /** Writes every buffered click now and folds it into rollups and link counters (tests, benchmarks). */
    flushClicks: async () => {
      await writer.flush();
      await journalFeed?.settled();
      await sink.settle?.();
    },
    /**
     * Starts the click writer now instead of with the first batch (main.ts; tests start it
     * lazily): it folds what a crash left unfolded. Resolves once it can write, so the first
     * clicks are neither kept waiting nor their answers held (the GeoIP data takes ~0.6 s).
     */
    startWriter: async () => {
      await sink.start?.();
    },
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
        sink,
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
