/**
 * Opens the event log `EVENTS_URL` names, for the app (app.ts) and for the command-line tools
 * that read or erase events (cli/): the SQL store always (leads' and sales' look-ups, and the
 * store itself with `sql`), and with `duckdb` or a ClickHouse URL the column store over it, after
 * moving an older installation's events into it (column/upgrade.ts).
 *
 * Unset, `EVENTS_URL` means DuckDB beside a SQLite file and the SQL store on PostgreSQL, whose
 * deployments may run several processes (a DuckDB file belongs to one process;
 * `eventsUrlFor`).
 *
 * @example
 * const stores = await openEventStores({ config, database });
 * await stores.events.aggregate(…);
 * await stores.close();
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Capabilities, OpenDatabase } from '../db/open.js';
import type { EventStore } from './event-store.js';
import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.js';
import type { ClickColumn } from './column/journal-feed.js';
import { createSqlEventStore, type SqlEventStore } from './sql/store.js';
import type { SqlRunner } from './sql/sql-runner.js';
import { openColumnEventStore, type ColumnEventStore } from './column/store.js';
import { upgradeToColumnStore } from './column/upgrade.js';
import { COMPACTION_HOLD_MS, COMPACTION_PERIOD_DAYS, openDuckDbEngine, type DuckDbEngine } from './duckdb/engine.js';
import { duckDbPathFor, ensureFolder } from './duckdb/path.js';
import { openClickHouseEngine } from './clickhouse/engine.js';
import { isClickHouseUrl, openServerExecutor } from './clickhouse/executor.js';

/** The event store an unset `EVENTS_URL` means for this database: DuckDB beside SQLite, the SQL store on PostgreSQL. */
export function eventsUrlFor(eventsUrl: string | undefined, capabilities: Pick<Capabilities, 'singleProcess'>): string {
  if (eventsUrl) return eventsUrl;
  return capabilities.singleProcess ? 'duckdb' : 'sql';
}

/** The settings of the event log (config.ts reads them from the environment). */
export interface EventLogSettings {
  /** `EVENTS_URL` (`eventsUrlFor` when unset). */
  eventsUrl?: string;
  /** `DUCKDB_MEMORY_LIMIT`, `DUCKDB_THREADS`. */
  duckdbMemoryLimit: string;
  duckdbThreads: number;
}

export interface EventStores {
  /** What modules use: the column store when there is one, else the SQL store. */
  events: EventStore<Kysely<Database>>;
  sqlEvents: SqlEventStore;
  column?: ColumnEventStore;
  /**
   * DuckDB's engine, to which the click writer hands its batches (events/column/click-journal.ts),
   * and the batch folder: `<event file>.batches` beside the event file (a temporary folder for
   * an in-memory one).
   */
  clickColumn?: { engine: ClickColumn; batchDir: string };
  /** The same engine with all it offers (backups). */
  duckDb?: DuckDbEngine;
  /** Closes the column store (the SQL store lives on the database's connection). */
  close(): Promise<void>;
}

export interface OpenEventStoresOptions {
  config: EventLogSettings;
  database: OpenDatabase;
  /** The SQL store's runner for long reads (app.ts: a reader thread). */
  runner?: SqlRunner;
  /** The upgrade's progress lines. */
  log?: (message: string, fields: Record<string, unknown>) => void;
  /** A lead or sale not copied into the column store yet (retried). */
  onFeedError?: (err: unknown) => void;
}

/** Whether an error is DuckDB's refusal of a file another process holds. */
export const isDuckDbLocked = (err: unknown): boolean => /could not set lock|conflicting lock/i.test(String((err as Error)?.message));

export async function openEventStores(options: OpenEventStoresOptions): Promise<EventStores> {
  const { config, database } = options;
  const sqlEvents = createSqlEventStore({ database, runner: options.runner });
  const url = eventsUrlFor(config.eventsUrl, database.capabilities);
  if (url === 'sql') return { events: sqlEvents, sqlEvents, close: async () => undefined };

  let duckDb: DuckDbEngine | undefined;
  let batchDir: string | undefined;
  let temporary = false;
  if (!isClickHouseUrl(url)) {
    const path = duckDbPathFor(url, database.localFiles);
    ensureFolder(path);
    temporary = path === ':memory:';
    batchDir = temporary ? mkdtempSync(join(tmpdir(), 'waymark-click-batches-')) : `${path}.batches`;
    mkdirSync(batchDir, { recursive: true });
    try {
      duckDb = await openDuckDbEngine({ path, memoryLimit: config.duckdbMemoryLimit, threads: config.duckdbThreads, log: options.log });
    } catch (err) {
      if (isDuckDbLocked(err)) {
        throw new Error(`the event file ${path} is in use by another process (a running Waymark?): DuckDB lets one process open it; stop that process and try again`);
      }
      throw err;
    }
  }
  // EVENTS_URL=clickhouse://…: a ClickHouse server that several Waymark processes may share.
  const engine = duckDb ?? (await openClickHouseEngine({ executor: openServerExecutor(url) }));
  try {
    // An installation that kept its events in the SQL store moves them first (resumable).
    const upgrade = await upgradeToColumnStore({ db: database.db, engine, log: options.log });
    // The history just copied is in workspace order already: the first compaction need not rewrite it.
    if (upgrade.outcome === 'complete' && duckDb) await duckDb.markCompacted(Date.now() - COMPACTION_HOLD_MS, COMPACTION_PERIOD_DAYS);
    const column = await openColumnEventStore({ database, engine, feed: { onError: options.onFeedError } });
    return {
      events: column,
      sqlEvents,
      column,
      clickColumn: duckDb && batchDir ? { engine: duckDb, batchDir } : undefined,
      duckDb,
      close: async () => {
        await column.close();
        if (temporary && batchDir) rmSync(batchDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await engine.close().catch(() => undefined);
    throw err;
  }
}
