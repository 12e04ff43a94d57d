/**
 * The event log as the app runs it: one owner for the store `EVENTS_URL` selects, and one road per
 * click (docs/architecture.md, "The event log").
 *
 * - The log thread (thread.ts, started through src/worker-thread.ts, at the click
 *   writer's nice value) opens the store on a connection of its own and owns it: a DuckDB instance
 *   may have one owner per process. It completes raw clicks, stores each batch once and runs the
 *   fold. An in-memory metadata database cannot be opened twice, so then the same service runs in
 *   this thread, over a MessageChannel: the same protocol either way.
 * - `ctx.events` is the client over that port (client.ts), a plain proxy of the `EventLog`;
 *   `ctx.conversions` is the main thread's transactional share (../conversions.ts), which tells
 *   the log after a commit what to copy or erase, never from inside a transaction.
 * - The fold's listeners come from the module the app names (`listeners.module`, exporting
 *   `clickListeners`: src/click-listeners/), imported where the log is served; their settings are
 *   sent whenever `listeners.watch` says they changed. After a fold that wrote anything, the main
 *   thread is told (`onCounted`).
 *
 * @example
 * const log = startEventLog({ config, database, kind, listeners: { module, settings, watch }, onCounted, onLog });
 * ctx.events = log.events;
 * await log.events.appendRawClicks('b1', clicks);
 */
import { MessageChannel, type MessagePort, type Worker } from 'node:worker_threads';
import type { OpenDatabase } from '../../db/open.js';
import { DATABASE_PACKAGES, startModuleWorker } from '../../worker-thread.js';
import { openEventStores, type EventLogSettings } from '../open.js';
import { createSqlRunner } from '../sql/sql-runner.js';
import { createConversionStore } from '../conversions.js';
import type { ConversionStore } from '../event-store.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { ClickListenerModule } from './fold.js';
import type { ColumnEngine } from '../column/column-engine.js';
import { createLogService } from './service.js';
import { createEventLogClient, type EventLogClient, type LogPort } from './client.js';
import type { LogNotice, ToLog } from './protocol.js';
import { createClickEnricher } from './enrich.js';
import { createColumnEnricher } from './column-enrich.js';
import { createGeoLocator } from '../../visitors/geo.js';
import { createUaClassifier } from '../../visitors/visitor.js';
import type { VisitorIpMode } from '../../visitors/visitor-ip.js';
import type { TracingSettings } from '../../tracing/model.js';
import { startTraces } from '../../tracing/traces.js';

/** What the log thread is started with (plain data: it crosses to the worker). */
export interface EventLogOptions extends EventLogSettings {
  geoipDb?: string;
  visitorIp: VisitorIpMode;
  /** `CLICK_FOLD_INTERVAL_MS`. */
  clickFoldIntervalMs: number;
  /** `CLICK_WRITER_NICE`: the log thread's nice value (Linux), below the redirect thread's. */
  clickWriterNice: number;
  /** `WORKER_POOL_NICE`: the nice value of libuv's pool threads (thread-priority.ts `lowerPoolPriority`); 0 or absent leaves them. */
  workerPoolNice?: number;
  /** `EVENT_READ_CONCURRENCY`: read queries at once (read-slots.ts; 0: unbounded). */
  eventReadConcurrency: number;
  /** The listeners' module (a file URL's href): exports `clickListeners` (ClickListenerModule). */
  listenersModule: string;
  /** OTEL_*: the log thread's spans (a batch, a fold) go to the same collector; undefined: none. */
  tracing?: TracingSettings;
}

/**
 * Opens the store and serves the log on `port` until it is asked to close: on the log thread, or
 * in this thread (`database` is then the app's own connection, which the log does not close).
 */
export async function serveEventLog(port: MessagePort, options: { database: OpenDatabase; config: EventLogOptions; ownsDatabase: boolean; engine?: ColumnEngine }): Promise<void> {
  const { database, config } = options;
  // Clients beside the first (the API thread's: src/api-thread/) hear what a fold wrote too.
  const clients: MessagePort[] = [];
  const notify = (notice: LogNotice) => {
    port.postMessage(notice);
    if (notice.notice === 'counted') for (const c of clients) c.postMessage(notice);
  };
  const log = (msg: string, fields: Record<string, unknown>) => notify({ notice: 'log', level: 'info', msg, fields });
  // Until the main thread sends the first (it does at once): none.
  let settings: unknown = undefined;
  // Messages that arrive while the store opens (an upgrade may take minutes) wait for it.
  const early: ToLog[] = [];
  const onEarly = (m: ToLog) => void early.push(m);
  port.on('message', onEarly);
  const runner = createSqlRunner(database);
  const stores = await openEventStores({
    config,
    database,
    runner,
    log,
    engine: options.engine,
    onFeedError: (err) => notify({ notice: 'log', level: 'warn', msg: 'events not copied to the column store yet; retried, and copied at the next start at the latest', fields: { err: String((err as Error)?.message ?? err) } }),
  });
  const traces = await startTraces(config.tracing, 'event-log');
  const geo = createGeoLocator({ dbPath: config.geoipDb, trustHeaders: false, onError: (err, context) => notify({ notice: 'log', level: 'warn', msg: context, fields: { err: String((err as Error)?.message ?? err) } }) });
  const service = createLogService({
    db: database.db,
    stores,
    enrich: createClickEnricher({ geo, classify: createUaClassifier(), ipMode: config.visitorIp }),
    enrichColumns: createColumnEnricher({ geo, classify: createUaClassifier(), ipMode: config.visitorIp }),
    geo,
    listeners: (await importListeners(config.listenersModule)).clickListeners({ dialect: database.dialect, settings: () => settings }),
    foldIntervalMs: config.clickFoldIntervalMs,
    maxConcurrentReads: config.eventReadConcurrency,
    isBusy: (err) => database.dialect.isBusy(err),
    notify,
    traces,
    kind: stores.kind,
  });
  const handleOn = (from: MessagePort) => (m: ToLog) => {
    if ('settings' in m) settings = m.settings;
    else if ('attachClient' in m) {
      const client = m.attachClient;
      clients.push(client);
      client.on('message', handleOn(client));
      // Its thread ended (the front restarts a crashed API thread with a new port): forgotten.
      client.once('close', () => {
        const at = clients.indexOf(client);
        if (at >= 0) clients.splice(at, 1);
      });
    } else service.handle(m, (reply, transfer) => from.postMessage(reply, transfer ?? []));
  };
  const handle = handleOn(port);
  port.off('message', onEarly);
  port.on('message', handle);
  for (const m of early) handle(m);
  await service.closed;
  for (const c of clients) c.close();
  await traces.close().catch(() => undefined);
  await runner.close();
  if (options.ownsDatabase) await database.close();
}

/** Under tsx (tests' sources, `npm run dev`) the module is the `.ts` file beside the named `.js`. */
function importListeners(href: string): Promise<ClickListenerModule> {
  return import(import.meta.url.endsWith('.ts') ? href.replace(/\.js$/, '.ts') : href) as Promise<ClickListenerModule>;
}

export interface StartedEventLog {
  /** `ctx.events`. */
  events: EventLogClient;
  /** `ctx.conversions`: leads, sales and a customer's erasure in the caller's transactions. */
  conversions: ConversionStore<Kysely<Database>>;
  /** Settles once the store is open (rejects if it could not be); calls made before wait for it. */
  opened: Promise<void>;
  /** Counts what is stored, closes the store, ends the thread. */
  close(): Promise<void>;
}

/**
 * Starts the log (a worker with its own connection, or this thread for an in-memory database) and
 * returns its client at once: the thread starts and opens the store meanwhile (`opened`), so the
 * caller's own start (app.ts: the routes) runs alongside.
 */
export function startEventLog(options: {
  /** The app's settings the log reads (config.ts). */
  config: Omit<EventLogOptions, 'listenersModule'>;
  database: OpenDatabase;
  kind: 'sql' | 'duckdb' | 'clickhouse';
  /**
   * The fold's listeners: their module (ClickListenerModule), the settings they read (plain
   * data: it crosses to the thread), and when those change.
   */
  listeners: { module: URL; settings(): unknown; watch(changed: () => void): void };
  /** After a fold that wrote outbox rows or deliveries. */
  onCounted(written: readonly string[]): void;
  onLog(level: 'info' | 'warn' | 'error', msg: string, fields: Record<string, unknown>): void;
  /**
   * Serve the log on this thread, over a MessageChannel, as for an in-memory database (test apps:
   * a thread per app costs its start again, through tsx, in every test).
   */
  inThread?: boolean;
}): StartedEventLog {
  const { config, database } = options;
  const logOptions: EventLogOptions = {
    eventsUrl: config.eventsUrl, duckdbMemoryLimit: config.duckdbMemoryLimit, duckdbThreads: config.duckdbThreads, duckdbCheckpointMb: config.duckdbCheckpointMb,
    geoipDb: config.geoipDb, visitorIp: config.visitorIp, clickFoldIntervalMs: config.clickFoldIntervalMs,
    clickWriterNice: config.clickWriterNice, workerPoolNice: config.workerPoolNice, eventReadConcurrency: config.eventReadConcurrency, listenersModule: options.listeners.module.href,
    tracing: config.tracing,
  };
  const onNotice = (notice: LogNotice) => {
    if (notice.notice === 'counted') options.onCounted(notice.written);
    else options.onLog(notice.level, notice.msg, notice.fields);
  };
  let port: LogPort;
  let worker: Worker | undefined;
  let served: Promise<void> | undefined;
  let channel: MessageChannel | undefined;
  if (database.capabilities.writerThread && !options.inThread) {
    worker = startModuleWorker(new URL('./thread.js', import.meta.url), {
      workerData: { url: database.url, pgSchema: database.pgSchema, config: logOptions } satisfies EventLogThreadData,
      // The engine's package only for the store selected (events/open.ts loads no other).
      preload: [...DATABASE_PACKAGES, 'maxmind', 'ua-parser-js', 'isbot', 'nanoid', ...(options.kind === 'duckdb' ? ['@duckdb/node-api'] : options.kind === 'clickhouse' ? ['@clickhouse/client'] : [])],
    });
    port = worker as unknown as LogPort;
  } else {
    channel = new MessageChannel();
    served = serveEventLog(channel.port2, { database, config: logOptions, ownsDatabase: false });
    port = channel.port1 as unknown as LogPort;
    channel.port2.unref();
  }
  const events = createEventLogClient(port, { onNotice });
  worker?.on('error', (err) => events.fail(err instanceof Error ? err : new Error(String(err))));
  worker?.on('exit', (code) => events.fail(new Error(`the event log thread stopped (exit code ${code})`)));
  served?.catch((err) => events.fail(err instanceof Error ? err : new Error(String(err))));
  const settingsChanged = () => events.setListenerSettings(options.listeners.settings());
  settingsChanged();
  options.listeners.watch(settingsChanged);
  // The store is open once it answers (an upgrade runs first); requests sent meanwhile wait for it.
  const opened = events.describe().then((described) => {
    if (described.kind !== options.kind) throw new Error(`the event log opened a ${described.kind} store, not ${options.kind}`);
  });
  // A store that never opened has nothing to close cleanly: the start's own error says why.
  let openFailed = false;
  opened.catch(() => (openFailed = true));
  return {
    events,
    conversions: createConversionStore(options.kind, database, events),
    opened,
    async close() {
      await events.close().catch((err) => {
        if (!openFailed) options.onLog('warn', 'the event log did not close cleanly; the next start counts what is left', { err: String((err as Error)?.message ?? err) });
      });
      await served?.catch(() => undefined);
      // Each port's listener would keep the process alive.
      channel?.port1.close();
      channel?.port2.close();
      if (worker) await worker.terminate();
    },
  };
}

/** What the log thread's module is started with. */
export interface EventLogThreadData {
  url: string;
  pgSchema?: string;
  config: EventLogOptions;
}

