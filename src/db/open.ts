/**
 * `DATABASE_URL` → an open, migrated database. The only place an engine is chosen.
 *
 * - `file:./data/waymark.db`, a plain path, or `:memory:` → SQLite (better-sqlite3, WAL mode);
 * - `postgres://…` / `postgresql://…` → PostgreSQL (pg pool).
 *
 * @example
 * const database = await openDatabase('file:./data/waymark.db');
 * await database.db.selectFrom('links').selectAll().execute();
 * await database.close();
 */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { Kysely, Migrator, PostgresDialect } from 'kysely';
import { ImmediateSqliteDialect } from './sqlite-driver.js';
import type { Database } from './tables.js';
import { postgresDialect, sqliteDialect, type Dialect } from './dialect.js';
import { migrationsFor } from './migrations/index.js';
import { withStatementCache } from './statement-cache.js';

/**
 * SQLite: write-ahead log size above which a checkpoint restarts the log (db/checkpointer.ts);
 * also the size a commit trims the file back to.
 */
export const WAL_LIMIT_BYTES = 64 * 1024 * 1024;

// int8 (counts, sums, millisecond timestamps) and numeric come back from pg as strings;
// every such value here stays far below 2^53, so numbers are safe and match SQLite's output.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

/**
 * What the engine and the database's place (a file, memory, a server) allow, decided here once so
 * that no module outside db/ asks which engine runs; each says why it follows from the engine.
 */
export interface Capabilities {
  /**
   * One process writes (SQLite: the file takes one writer at a time, and one Waymark process owns
   * it). So the click writer folds clicks into rollups and link counters coalesced, a second's
   * worth at a time behind a watermark, instead of in each batch's transaction (click-fold.ts).
   */
  singleWriter: boolean;
  /**
   * Analytics read on a worker thread with a read-only connection of its own (a SQLite file: WAL
   * lets it read beside the writer, and the main thread is not held by synchronous queries).
   * PostgreSQL runs queries on the server, and `:memory:` cannot be opened twice.
   */
  readerWorker: boolean;
  /**
   * The write-ahead log is checkpointed on a thread of its own, not in the writers' commits (a
   * SQLite file: db/checkpointer.ts). PostgreSQL checkpoints on the server; `:memory:` has no log.
   */
  checkpointer: boolean;
  /**
   * Link and domain changes must be relayed to the other processes on the database, which cache
   * links (PostgreSQL, several processes on one server: change-relay.ts, LISTEN/NOTIFY). A SQLite
   * file has one process.
   */
  changeRelay: boolean;
  /**
   * A worker thread can open a connection of its own to the same database (a SQLite file or
   * PostgreSQL), so clicks are written off the main thread. Not `:memory:`, private to its connection.
   */
  writerThread: boolean;
}

export interface OpenDatabase {
  db: Kysely<Database>;
  dialect: Dialect;
  /** What this engine and topology allow (above). */
  capabilities: Capabilities;
  /** The engine for people (the start banner): `PostgreSQL`, `SQLite (<file>)` or `SQLite (:memory:)`. */
  engine: string;
  /**
   * Answers when the database serves the tables (GET /ready): reads one workspace row. Throws
   * when the database cannot be reached or is not migrated.
   */
  ping(): Promise<void>;
  /** SQLite file path (absolute), when the engine is SQLite and the database is a file. */
  sqlitePath?: string;
  /** Connection string, for processes (workers, LISTEN) that need their own connection. */
  url: string;
  /** PostgreSQL schema in use (tests isolate themselves in one). */
  pgSchema?: string;
  /** PostgreSQL: the pool under `db`, for the few statements kept prepared by name on each connection (db/rate-counters.ts). */
  pgPool?: pg.Pool;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** Run migrations (default true). */
  migrate?: boolean;
  /** PostgreSQL only: schema to create (if missing) and use through `search_path`. */
  pgSchema?: string;
  /** PostgreSQL only: pool size (default 10). */
  poolSize?: number;
  /**
   * SQLite only: `wal_autocheckpoint` of this connection (SQLite's default, 1,000 pages, when
   * unset). 0 leaves checkpoints to db/checkpointer.ts, off the threads that write.
   */
  walAutocheckpoint?: number;
}

/** True when the URL selects PostgreSQL. */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/** Path of the SQLite file named by a `file:` URL or a plain path. */
export function sqliteFileFromUrl(url: string): string {
  if (url === ':memory:' || url === 'file::memory:') return ':memory:';
  const path = url.startsWith('file:') ? url.slice('file:'.length).replace(/^\/\/(?=\/)/, '') : url;
  return resolve(path);
}

/**
 * `postgres://…/db?schema=name` selects a schema (created if missing); the parameter is removed
 * before the URL reaches `pg`, which would reject it.
 */
export function splitPgSchema(url: string): { url: string; schema?: string } {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema') ?? undefined;
  if (!schema) return { url };
  parsed.searchParams.delete('schema');
  return { url: parsed.toString(), schema };
}

export async function openDatabase(rawUrl: string, options: OpenOptions = {}): Promise<OpenDatabase> {
  let url = rawUrl;
  if (isPostgresUrl(rawUrl) && !options.pgSchema) {
    const split = splitPgSchema(rawUrl);
    url = split.url;
    if (split.schema) options = { ...options, pgSchema: split.schema };
  }
  const opened = isPostgresUrl(url) ? await openPostgres(url, options) : openSqlite(url, options);
  if (options.migrate !== false) await migrate(opened.db, opened.dialect, opened.pgSchema);
  return opened;
}

function openSqlite(url: string, options: OpenOptions = {}): OpenDatabase {
  const file = sqliteFileFromUrl(url);
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const sqlite = new SQLite(file);
  // WAL lets the analytics reader run beside the writer; NORMAL keeps commits durable across a
  // process crash (the WAL is written before the commit returns) and loses at most the last
  // transactions on a power cut (storage-benchmarks.md §6).
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('cache_size = -65536');
  sqlite.pragma('temp_store = MEMORY');
  // After the log starts over (db/checkpointer.ts), a commit trims the file back to this size,
  // so one burst of writes does not keep its disk space for good.
  sqlite.pragma(`journal_size_limit = ${WAL_LIMIT_BYTES}`);
  if (options.walAutocheckpoint !== undefined) sqlite.pragma(`wal_autocheckpoint = ${Math.max(0, Math.floor(options.walAutocheckpoint))}`);
  // Every connection keeps its prepared statements (db/statement-cache.ts).
  const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: withStatementCache(sqlite) }) });
  const onDisk = file !== ':memory:';
  return {
    db,
    dialect: sqliteDialect,
    capabilities: { singleWriter: true, readerWorker: onDisk, checkpointer: onDisk, changeRelay: false, writerThread: onDisk },
    engine: `SQLite (${file})`,
    ping: () => ping(db),
    sqlitePath: onDisk ? file : undefined,
    url,
    close: async () => {
      await db.destroy();
    },
  };
}

async function openPostgres(url: string, options: OpenOptions): Promise<OpenDatabase> {
  const schema = options.pgSchema;
  if (schema && !/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`Invalid schema name ${schema}`);
  if (schema) {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`create schema if not exists ${schema}`);
    await admin.end();
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  // A connection lost while it waits in the pool, or while it is checked out between two queries
  // (a transaction, the retention lock), reports an 'error' event that would end the process
  // without a listener. The pool drops such a connection (at once, or when it is released) and
  // opens a new one when needed; the queries it fails report themselves, and GET /ready says 503.
  const lost = () => {};
  pool.on('error', lost);
  pool.on('connect', (client) => client.on('error', lost));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    dialect: postgresDialect,
    capabilities: { singleWriter: false, readerWorker: false, checkpointer: false, changeRelay: true, writerThread: true },
    engine: 'PostgreSQL',
    ping: () => ping(db),
    url,
    pgSchema: schema,
    pgPool: pool,
    close: async () => {
      await db.destroy();
    },
  };
}

async function ping(db: Kysely<Database>): Promise<void> {
  await db.selectFrom('workspaces').select('id').limit(1).execute();
}

/** What reading the server's catalog says when another schema is dropped as it reads. */
export const CATALOG_RACE = /^(?:(?:schema|relation) ".+"|column ".+" of relation ".+") does not exist$/;

async function migrate(db: Kysely<Database>, dialect: Dialect, pgSchema?: string): Promise<void> {
  const migrations = migrationsFor(dialect);
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableName: 'waymark_migrations',
    migrationLockTableName: 'waymark_migrations_lock',
    // Without the schema, Kysely looks for its tables in every schema of the server, finds another
    // test schema's lock table, skips creating its own and fails ("waymark_migrations_lock does not exist").
    ...(pgSchema ? { migrationTableSchema: pgSchema } : {}),
    // Migration numbers are handed out per feature and land in any order (0006 before 0003):
    // a database that already ran a higher number must still run the lower one when it arrives.
    // The migrations of different features touch different tables and indexes, so their order does not matter.
    allowUnorderedMigrations: true,
  });
  for (let attempt = 1; ; attempt++) {
    const { error, results } = await migrator.migrateToLatest();
    const failed = results?.find((r) => r.status === 'Error');
    if (!error && !failed) return;
    const message = String((error as Error)?.message ?? error);
    // Kysely's migrator reads the catalog of every schema on the server (to find its own tables),
    // and a schema dropped meanwhile by someone else (a concurrent test, another app) fails that
    // read ("schema … does not exist", "relation … does not exist" for a table of that schema
    // listed a moment before, or "column … of relation … does not exist" from its column query).
    // Nothing of ours was changed: read again.
    if (!failed && attempt < 10 && dialect.name === 'postgres' && CATALOG_RACE.test(message)) {
      await new Promise((r) => setTimeout(r, 50 * attempt));
      continue;
    }
    throw new Error(`Database migration ${failed?.migrationName ?? ''} failed: ${message}`);
  }
}
