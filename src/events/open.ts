/**
 * Opens the event log `EVENTS_URL` names, for the log thread (log/start.ts) and for the
 * command-line tools that read or erase events (cli/): the SQL store with `sql`, and with `duckdb`
 * or a ClickHouse URL the column store over the metadata database, after the upgrades an older
 * installation needs (its click journal, its SQL event log: `openEventStores`).
 *
 * Unset, `EVENTS_URL` means DuckDB beside a SQLite file and the SQL store on PostgreSQL
 * (store-kind.ts). Only the engine selected is loaded: DuckDB's native module and ClickHouse's
 * client are imported on demand, so a process on the SQL store loads neither.
 *
 * @example
 * const stores = await openEventStores({ config, database });
 * await stores.events.aggregate(…);
 * await stores.close();
 */
import type { OpenDatabase } from '../db/open.js';
import type { ConversionStore, EventLog } from './event-store.js';
import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.js';
import type { ClickLog } from './click-log.js';
import { createSqlEventStore } from './sql/store.js';
import { createColumnConversions } from './column/conversions.js';
import { sqlConversions } from './conversions.js';
import type { SqlRunner } from './sql/sql-runner.js';
import { foldClicksLeftUnfolded } from './upgrades/fold-clicks.js';
import type { ColumnEventStore } from './column/store.js';
import type { DuckDbEngine } from './duckdb/duckdb-engine.js';
import type { ColumnEngine } from './column/column-engine.js';
import { duckDbPathFor, ensureFolder } from './duckdb/path.js';
import { COMPACTION_HOLD_MS, COMPACTION_PERIOD_DAYS } from './duckdb/compaction.js';
import { eventsUrlFor, isClickHouseUrl, isDuckDbLocked, type EventStoreKind } from './store-kind.js';

export { eventStoreKind, eventsUrlFor, isDuckDbLocked, type EventStoreKind } from './store-kind.js';

/** The settings of the event log (config.ts reads them from the environment). */
export interface EventLogSettings {
  /** `EVENTS_URL` (`eventsUrlFor` when unset). */
  eventsUrl?: string;
  /** `DUCKDB_MEMORY_LIMIT`, `DUCKDB_THREADS`. */
  duckdbMemoryLimit: string;
  duckdbThreads: number;
  /** `DUCKDB_CHECKPOINT_MB` (the engine's default when absent). */
  duckdbCheckpointMb?: number;
}

/** The event log's store, as the log thread (or a command-line tool) holds it: the interface plus its click batches. */
export type LogStore = EventLog & { readonly clickLog: ClickLog };

export interface EventStores {
  kind: EventStoreKind;
  events: LogStore;
  /** The metadata share, for a process that holds the log itself (command-line tools, tests). */
  conversions: ConversionStore<Kysely<Database>>;
  /** The column store, when there is one. */
  column?: ColumnEventStore;
  /** DuckDB's engine with all it offers (compaction, backups). */
  duckDb?: DuckDbEngine;
  /** Closes the column store (the SQL store lives on the database's connection). */
  close(): Promise<void>;
}

export interface OpenEventStoresOptions {
  config: EventLogSettings;
  database: OpenDatabase;
  /** The SQL store's runner for long reads (a reader thread on a SQLite file). */
  runner?: SqlRunner;
  /** The upgrades' progress lines. */
  log?: (message: string, fields: Record<string, unknown>) => void;
  /** A lead or sale not copied into the column store yet (retried). */
  onFeedError?: (err: unknown) => void;
  /**
   * The column engine, opened by the caller, instead of the one `EVENTS_URL` names (which still
   * says which kind it is): tests run DuckDB in memory and ClickHouse through chdb.
   */
  engine?: ColumnEngine;
}

/**
 * Opens the store, after the upgrades an earlier version's data needs (each a no-op once done):
 * clicks the SQL store's old fold left uncounted, the click journal's batches, and the move of
 * an SQL event log into the column store.
 */
export async function openEventStores(options: OpenEventStoresOptions): Promise<EventStores> {
  const { config, database } = options;
  const counted = await foldClicksLeftUnfolded(database);
  if (counted) options.log?.('clicks an earlier version left uncounted are counted', { clicks: counted });
  const url = eventsUrlFor(config.eventsUrl, database.capabilities);
  if (url === 'sql') {
    const events = createSqlEventStore({ database, runner: options.runner });
    return { kind: 'sql', events, conversions: sqlConversions(events), close: async () => undefined };
  }

  // Only the engine selected is loaded (each brings a native module or a client library).
  const [{ openColumnEventStore }, { upgradeToColumnStore }] = await Promise.all([import('./column/store.js'), import('./upgrades/to-column-store.js')]);
  let duckDb: DuckDbEngine | undefined;
  // The history an upgrade just copied is rewritten once in workspace-key order: the first compaction need not rewrite it.
  let markCompacted: (() => Promise<unknown>) | undefined;
  if (!isClickHouseUrl(url) && !options.engine) {
    const path = duckDbPathFor(url, database.localFiles);
    ensureFolder(path);
    const [{ openDuckDbEngine }, { replayClickJournal }] = await Promise.all([import('./duckdb/duckdb-engine.js'), import('./upgrades/journal-replay.js')]);
    try {
      duckDb = await openDuckDbEngine({ path, memoryLimit: config.duckdbMemoryLimit, threads: config.duckdbThreads, checkpointMb: config.duckdbCheckpointMb, log: options.log });
    } catch (err) {
      if (isDuckDbLocked(err)) {
        throw new Error(`the event file ${path} is in use by another process (a running Waymark?): DuckDB lets one process open it; stop that process and try again`);
      }
      throw err;
    }
    const engine = duckDb;
    markCompacted = () => engine.markCompacted(Date.now() - COMPACTION_HOLD_MS, COMPACTION_PERIOD_DAYS);
    try {
      await replayClickJournal({ db: database.db, dialect: database.dialect, engine: duckDb, eventFile: path, log: options.log });
    } catch (err) {
      await duckDb.close().catch(() => undefined);
      throw err;
    }
  }
  // EVENTS_URL=clickhouse://…: a ClickHouse server that several Waymark processes may share.
  const engine = options.engine ?? duckDb ?? (await openClickHouse(url));
  try {
    // An installation that kept its events in the SQL store moves them first (resumable).
    const upgrade = await upgradeToColumnStore({ db: database.db, engine, log: options.log });
    if (upgrade.outcome === 'complete' && markCompacted) await markCompacted();
    const column = await openColumnEventStore({ database, engine, feed: { onError: options.onFeedError }, log: options.log });
    const conversions = createColumnConversions({ database, log: column, copiesCredits: !isClickHouseUrl(url) });
    return { kind: isClickHouseUrl(url) ? 'clickhouse' : 'duckdb', events: column, conversions, column, duckDb, close: () => column.close() };
  } catch (err) {
    await engine.close().catch(() => undefined);
    throw err;
  }
}

/** A ClickHouse server's engine; its client library is loaded only when one is named. */
async function openClickHouse(url: string) {
  const [{ openClickHouseEngine }, { openServerExecutor }] = await Promise.all([import('./clickhouse/clickhouse-engine.js'), import('./clickhouse/executor.js')]);
  return openClickHouseEngine({ executor: openServerExecutor(url) });
}
