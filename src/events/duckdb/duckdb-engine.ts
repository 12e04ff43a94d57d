/**
 * The column store's engine on DuckDB (embedded, `@duckdb/node-api`): one `events` table with the
 * columns of `EventRow` (`timestamp` as BIGINT ms) and no index (schema.ts says how appends stay
 * idempotent and how look-ups by id stay fast without one), and the hourly per-link
 * `event_summaries` of expired events. No rollups: groupings are scans.
 *
 * Appends go through DuckDB's Appender inside one transaction (row-appender.ts; a click batch's
 * columns as data chunks, click-chunks.ts), so a batch is
 * visible entirely or not at all; stored ids are looked up without an index (id-lookups.ts). Writes take a connection of their
 * own, serialised here (a DuckDB connection holds one transaction); reads take one of a few
 * connections (one per thread), since a connection runs one statement at a time.
 *
 * @example
 * const engine = await openDuckDbEngine({ path: 'data/events.duckdb', memoryLimit: '512MB', threads: 2 });
 * await engine.append(rows);
 */
import { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { EventRow, StoredEvent } from '../event-store.js';
import type { StoredClickBatch } from '../click-log.js';
import { columnsOf } from '../batch/wide-rows.js';
import {
  SUMMARY_BUCKET_MS, toEventRow, type ColumnEngine, type EventTarget, type Expired,
} from '../column/column-engine.js';
import { quoteIdent, type ColumnParam } from '../column/dialect.js';
import { clickIdTime } from '../../visitors/click-id.js';
import { duckDbDialect } from './dialect.js';
import { createDiskRoom } from './disk-room.js';
import { readDuckDbMemory, type DuckDbMemory } from './memory.js';
import { bindings, openReaders, read, writerQueue } from './connections.js';
import { compactPeriods, markCompacted, type Compacted } from './compact.js';
import { rebuildEventsTable, tableStatements, unkeyClickBatches, upgradeEventsTable } from './schema.js';
import { existingIds, storedAmong } from './id-lookups.js';
import { createEventAppender } from './row-appender.js';
import { createDuckDbCredits } from './credits.js';

export interface DuckDbEngineOptions {
  /** A file path, or `:memory:` (tests). */
  path: string;
  /** DuckDB's `memory_limit` (default 512MB: a small machine shares its memory with Node and the metadata database). */
  memoryLimit?: string;
  /** DuckDB's worker threads (default 2: a 2-core machine; queries use them, appends run on the caller's). */
  threads?: number;
  /**
   * The write-ahead log's size in MB (`DUCKDB_CHECKPOINT_MB`) past which it is written into the
   * file, by a checkpoint beside the appends (DuckDB's own `checkpoint_threshold` is 4 × this).
   * The rows appended since the last checkpoint are held in memory too, about 1.5 × the log's size (bench/redirect-flood/README.md): this bounds that share.
   */
  checkpointMb?: number;
  /** Told about the one-time rebuild of a file an earlier version made (schema.ts `rebuildEventsTable`). */
  log?: (message: string, fields: Record<string, unknown>) => void;
}

/** The log's size that starts a checkpoint beside the appends, unless told (config.ts `DUCKDB_CHECKPOINT_MB` has the app's default). */
export const DEFAULT_CHECKPOINT_MB = 64;
/**
 * DuckDB's own `checkpoint_threshold`, as a multiple of the engine's: only a backstop. Its
 * checkpoint runs inside the COMMIT that crosses it, on the one writer, and stopped every append
 * for 0.35-0.9 s while the lag bound held the redirects (bench/mixed-load/README.md).
 */
const BACKSTOP_FACTOR = 4;
const MB = 1024 * 1024;

/** A click id: 16 characters of the key alphabet, the first 7 its millisecond (visitors/click-id.ts). */
const CLICK_ID = /^[0-9A-Za-z]{16}$/;
/** How far from the time in a click id its event's timestamp is looked for (they are the same instant). */
const CLICK_TIME_SLACK_MS = 86_400_000;

/** A string as an SQL literal (for the few statements sent without parameters, in one call with others). */
const textLiteral = (value: string): string => `'${value.replaceAll("'", "''")}'`;

export interface DuckDbEngine extends ColumnEngine {
  readonly batchLog: NonNullable<ColumnEngine['batchLog']>;
  /** Names go into `copied_batches` with the rows, in one transaction. */
  appendOnce(name: string, rows: readonly StoredEvent[]): Promise<number>;
  /**
   * Writes a consistent copy of the event database to `file` (a new DuckDB file: one snapshot,
   * read on a reader connection, so appends go on meanwhile); `waymark backup` asks a running
   * server for it (column/backup-requests.ts). Returns the events copied.
   */
  backupTo(file: string): Promise<number>;
  /** Writes the write-ahead log into the file now (benchmarks measure the file after it). */
  checkpoint(): Promise<void>;
  /** What DuckDB's buffer manager holds against its memory limit (memory.ts), read on a reader. */
  memory(): Promise<DuckDbMemory>;
  /**
   * Rewrites the UTC days that end at or before `before` never compacted, or with more rows than at
   * their last compaction (late events; deletions, by retention or erasure, leave the order as it
   * is), each ordered by
   * (workspace_key, timestamp) in one transaction (delete, then insert in order), so that DuckDB's
   * zone maps on `workspace_key` skip the other workspaces' row groups in a workspace's scans
   * (schema.ts). Appends wait between statements of the same writer, so none is lost; counts are
   * unchanged. At most `maxDays` periods. `periodDays` rewrites periods of that many days (aligned
   * on the epoch) instead of single days; the app compacts closed weeks (`COMPACTION_PERIOD_DAYS`),
   * since a day of a small installation is less than one row group (122,880 rows).
   */
  compact(before: number, maxDays?: number, periodDays?: number): Promise<Compacted>;
  /**
   * After the upgrade's copy, once: rewrites the history in (workspace key, timestamp) order as a
   * whole, so a workspace's scans skip the others' row groups at least as well as after a
   * compaction (compact.ts), and records the periods that end at or before `before` as compacted,
   * so the app's first compaction need not rewrite all of it. Returns the periods recorded.
   */
  markCompacted(before: number, periodDays: number): Promise<number>;
}

export { COMPACTION_HOLD_MS, COMPACTION_PERIOD_DAYS } from './compaction.js';
export type { Compacted } from './compact.js';

export async function openDuckDbEngine(options: DuckDbEngineOptions): Promise<DuckDbEngine> {
  const checkpointMb = options.checkpointMb ?? DEFAULT_CHECKPOINT_MB;
  const instance = await DuckDBInstance.create(options.path, {
    memory_limit: options.memoryLimit ?? '512MB',
    threads: String(options.threads ?? 2),
    // Scans need not keep row order; DuckDB then streams groupings with less memory.
    preserve_insertion_order: 'false',
    // DuckDB checkpoints its write-ahead log into the file once it reaches this size (16 MB by
    // default). Each checkpoint rewrites the newest row group, so with small appends frequent
    // checkpoints cost more than the appends (with the id index of that time: 23.9 µs of CPU per
    // click at 16 MB, 16.5 at 256 MB). But the rows since the last checkpoint stay in memory too,
    // ~1.5 × the log (IN_MEMORY_TABLE in duckdb_memory()): 256 MB let a flood hold ~370 MB
    // (bench/redirect-flood/README.md), hence 64 MB. After a kill -9 the log is replayed (seconds).
    // The engine checkpoints at that size itself, beside the appends (`checkpointBeside`); DuckDB's
    // own, which stops them, is the backstop.
    checkpoint_threshold: `${checkpointMb * BACKSTOP_FACTOR}MB`,
  });
  const writer = await DuckDBConnection.create(instance);
  for (const statement of tableStatements()) await writer.run(statement);
  const started = performance.now();
  const rebuilt = await rebuildEventsTable(writer);
  await upgradeEventsTable(writer);
  await unkeyClickBatches(writer);
  // The event file's own id: the fold's watermark in the metadata database is kept under it.
  const [identity] = (await writer.runAndReadAll('SELECT id FROM event_log LIMIT 1')).getRowObjectsJS();
  const logId = identity ? String(identity.id) : randomUUID();
  if (!identity) await writer.run(`INSERT INTO event_log VALUES ('${logId}')`);
  const [top] = (await writer.runAndReadAll('SELECT max(seq) AS seq FROM click_batches')).getRowObjectsJS();
  // Batches are numbered in the order they commit (one writer): the fold's watermark is a number.
  let lastSeq = top?.seq == null ? 0 : Number(top.seq);
  // Only `expire` adds summary rows; deletions leave this an upper bound, which is all its use needs.
  const latestBucket = async (): Promise<number | null> => {
    const [row] = (await writer.runAndReadAll('SELECT max(bucket) AS b FROM event_summaries')).getRowObjectsJS();
    return row?.b == null ? null : Number(row.b);
  };
  let latestSummary = await latestBucket();
  if (rebuilt !== null) {
    options.log?.('event file rebuilt in the layout of this version (once): no id index, a workspace key', { events: rebuilt, seconds: Math.round((performance.now() - started) / 100) / 10 });
  }

  // A full volume: the log's budget follows the free space, and no write is tried without room
  // (disk-room.ts: a checkpoint that fails for room invalidates the instance).
  const file = options.path === ':memory:' ? undefined : resolve(options.path);
  const room = createDiskRoom({ dir: file && dirname(file), setBudget: (mb) => writer.run(`SET checkpoint_threshold = '${mb}MB'`), maxBudgetMb: checkpointMb * BACKSTOP_FACTOR });
  const { exclusive, writing, transaction } = writerQueue(writer, room);
  const readers = await openReaders(instance, options.threads ?? 2);
  const { withReader, readPrepared } = readers;
  const appendEvents = createEventAppender(writer);
  const walBytes = (): number => {
    try {
      return file ? statSync(`${file}.wal`).size : 0;
    } catch {
      return 0;
    }
  };
  // Checkpoints beside the appends: on a reader connection, once the log passes `checkpointMb`.
  // Commits that only insert into tables without indexes (an append: `events`, `click_batches`)
  // go on while it runs (DuckDB ≥ 1.5); deletions wait for it on the writer.
  let closed = false;
  let checkpointing = false;
  const checkpointBeside = (): void => {
    if (checkpointing || closed || !file) return;
    const wal = walBytes();
    if (wal < checkpointMb * MB || !room.fits(wal)) return;
    checkpointing = true;
    withReader((c) => c.run('CHECKPOINT'))
      .catch((err: unknown) => {
        if (!closed) options.log?.('a checkpoint beside the appends failed; the next append tries again', { err: String((err as Error)?.message ?? err) });
      })
      .finally(() => (checkpointing = false));
  };
  const targetWhere = (target: EventTarget): { text: string; params: ColumnParam[] } => {
    const params: ColumnParam[] = [{ type: 'texts', value: target.values }];
    let text = `${quoteIdent(target.column)} IN (SELECT unnest($1::VARCHAR[]))`;
    if (target.workspaceId !== undefined) {
      params.push({ type: 'text', value: target.workspaceId });
      text += ' AND workspace_id = $2::VARCHAR';
    }
    return { text, params };
  };

  async function write(text: string, params: readonly ColumnParam[]): Promise<number> {
    const { values, types } = bindings(params);
    const result = await writer.run(text, values, types);
    return result.rowsChanged;
  }

  const compaction = { withReader, read, writing, transaction, write };
  return {
    dialect: duckDbDialect,
    credits: createDuckDbCredits({ writer, writing, transaction }),

    append(rows) {
      if (!rows.length) return Promise.resolve(0);
      // One row per id, the first: a batch may carry a retried event twice.
      const seen = new Set<string>();
      const unique = rows.filter((r) => !seen.has(r.id) && (seen.add(r.id), true));
      return writing(async () => {
        // Writes are serialised here, so nothing can store one of these ids between the look and the append.
        const stored = await storedAmong(unique, writer);
        const fresh = stored.size ? unique.filter((r) => !stored.has(r.id)) : unique;
        if (fresh.length) await transaction(() => appendEvents.rows(fresh, null));
        checkpointBeside();
        return fresh.length;
      });
    },

    appendClicks(batchId, clicks) {
      const id = textLiteral(batchId);
      // Three calls into DuckDB (each a hop to the pool and back to this thread's loop), not
      // nine: statements without parameters go in one call, so BEGIN rides with the look-up and
      // the batch's row with COMMIT (bench/mixed-load/README.md: under a mixed load each hop
      // waits for the loop, and the lag bound waits for the commit).
      return writing(async () => {
        try {
          // Serialised on the writer: no other append can record this batch between the look and the insert.
          const known = (await writer.runAndReadAll(`BEGIN TRANSACTION; SELECT seq FROM click_batches WHERE batch_id = ${id}`)).getRowObjectsJS();
          if (known.length) {
            await writer.run('ROLLBACK');
            return { seq: Number(known[0]!.seq), duplicate: true };
          }
          const seq = lastSeq + 1;
          await appendEvents.clicks(clicks, seq);
          await writer.run(`INSERT INTO click_batches VALUES (${seq}, ${id}, ${Date.now()}, ${clicks.length}); COMMIT`);
          // Numbered once committed: a rolled-back batch leaves no gap that the fold would wait for.
          lastSeq = seq;
          checkpointBeside();
          return { seq, duplicate: false };
        } catch (err) {
          // The INSERT … COMMIT call may have failed before its COMMIT: roll back whatever is open
          // (a ROLLBACK without a transaction fails, and is ignored).
          await writer.run('ROLLBACK').catch(() => undefined);
          throw err;
        }
      });
    },

    batchLog: {
      id: logId,
      async after(seq) {
        const batches = await withReader((c) => read(c, { text: 'SELECT seq, batch_id FROM click_batches WHERE seq > $1::BIGINT ORDER BY seq', params: [{ type: 'int', value: seq }] }));
        if (!batches.length) return [];
        // The rows carry their batch: zone maps on `batch` keep the read to the newest row groups.
        const rows = await withReader((c) => read(c, { text: 'SELECT * EXCLUDE (workspace_key) FROM events WHERE batch > $1::BIGINT', params: [{ type: 'int', value: seq }] }));
        const bySeq = new Map<number, { seq: number; batchId: string; rows: StoredEvent[] }>(batches.map((b) => [Number(b.seq), { seq: Number(b.seq), batchId: String(b.batch_id), rows: [] }]));
        for (const r of rows) {
          const { batch, ...event } = r;
          bySeq.get(Number(batch))?.rows.push(toEventRow(event));
        }
        return [...bySeq.values()].map((b): StoredClickBatch => ({ seq: b.seq, batchId: b.batchId, clicks: columnsOf(b.rows) }));
      },
      forget: (upTo, before) =>
        writing(() => write('DELETE FROM click_batches WHERE seq <= $1::BIGINT AND appended_at < $2::BIGINT', [{ type: 'int', value: upTo }, { type: 'int', value: before }])),
    },

    appendOnce(name, rows) {
      return writing(() =>
        transaction(async () => {
          const known = await read(writer, { text: 'SELECT name FROM copied_batches WHERE name = $1::VARCHAR', params: [{ type: 'text', value: name }] });
          if (known.length) return 0;
          await appendEvents.rows(rows, null);
          await write('INSERT INTO copied_batches VALUES ($1::VARCHAR, $2::BIGINT)', [{ type: 'text', value: name }, { type: 'int', value: Date.now() }]);
          return rows.length;
        }),
      );
    },

    existingIds: (ids) => withReader((c) => existingIds(ids, c)),
    storedEvents: (keys) => withReader((c) => storedAmong(keys, c)),

    backupTo: (file) =>
      withReader(async (c) => {
        const alias = `wm_backup_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
        const [source] = await read(c, { text: 'SELECT current_database() AS name', params: [] });
        await c.run(`ATTACH '${file.replaceAll("'", "''")}' AS ${alias}`);
        try {
          await c.run(`COPY FROM DATABASE ${quoteIdent(String(source!.name))} TO ${alias}`);
          const [row] = await read(c, { text: `SELECT count(*) AS n FROM ${alias}.events`, params: [] });
          return Number(row!.n);
        } finally {
          await c.run(`DETACH ${alias}`);
        }
      }),

    async eventById(id) {
      const byId = (extra: string, params: ColumnParam[]) =>
        withReader((c) => readPrepared(c, { text: `SELECT * EXCLUDE (workspace_key, batch) FROM events WHERE id = $1::VARCHAR${extra} LIMIT 1`, params: [{ type: 'text', value: id }, ...params] }));
      // A click id says when its click was: a bounded scan finds it among the few row groups of
      // that time. An id of another form (or an imported click's) is looked for everywhere.
      let rows: Record<string, unknown>[] = [];
      if (CLICK_ID.test(id)) {
        const t = clickIdTime(id);
        rows = await byId(' AND "timestamp" >= $2::BIGINT AND "timestamp" <= $3::BIGINT', [{ type: 'int', value: t - CLICK_TIME_SLACK_MS }, { type: 'int', value: t + CLICK_TIME_SLACK_MS }]);
      }
      if (!rows.length) rows = await byId('', []);
      return rows[0] ? (toEventRow(rows[0]) as EventRow) : undefined;
    },

    query: (q) => withReader((c) => readPrepared(c, q)),

    deleteEvents(target) {
      if (!target.values.length) return Promise.resolve(0);
      return writing(() =>
        transaction(async () => {
          const where = targetWhere(target);
          const removed = await write(`DELETE FROM events WHERE ${where.text}`, where.params);
          if (target.column === 'link_id') await write(`DELETE FROM event_summaries WHERE ${where.text}`, where.params);
          return removed;
        }),
      );
    },

    expire(before, limit) {
      if (limit <= 0) return Promise.resolve({ count: 0, conversionIds: [] } satisfies Expired);
      return writing(() =>
        transaction(async () => {
          await write(
            `CREATE OR REPLACE TEMP TABLE expiring AS SELECT id, kind FROM events WHERE "timestamp" < $1::BIGINT ORDER BY "timestamp", id LIMIT $2::BIGINT`,
            [{ type: 'int', value: before }, { type: 'int', value: limit }],
          );
          await write(
            `INSERT INTO event_summaries
               SELECT workspace_id, ("timestamp" // ${SUMMARY_BUCKET_MS}) * ${SUMMARY_BUCKET_MS} AS bucket, link_id,
                 sum(CASE WHEN kind = 'click' THEN 1 ELSE 0 END), sum(CASE WHEN kind = 'lead' THEN 1 ELSE 0 END),
                 sum(CASE WHEN kind = 'sale' AND amount >= 0 THEN 1 ELSE 0 END), sum(CASE WHEN kind = 'sale' THEN amount ELSE 0 END)
               FROM events WHERE id IN (SELECT id FROM expiring) GROUP BY ALL
             ON CONFLICT (workspace_id, bucket, link_id) DO UPDATE SET
               clicks = clicks + excluded.clicks, leads = leads + excluded.leads,
               sales = sales + excluded.sales, sale_amount = sale_amount + excluded.sale_amount`,
            [],
          );
          const conversions = await read(writer, { text: `SELECT id FROM expiring WHERE kind <> 'click'`, params: [] });
          const count = await write('DELETE FROM events WHERE id IN (SELECT id FROM expiring)', []);
          await write('DROP TABLE expiring', []);
          const latest = await latestBucket();
          // Raised before the commit: a reader may look for summaries a moment early, never too late.
          if (latest !== null) latestSummary = Math.max(latestSummary ?? latest, latest);
          return { count, conversionIds: conversions.map((r) => String(r.id)) };
        }),
      );
    },

    latestSummaryBucket: () => latestSummary,

    expireSummaries(before, limit) {
      if (limit <= 0) return Promise.resolve(0);
      return writing(() =>
        write(
          `DELETE FROM event_summaries WHERE rowid IN (
             SELECT rowid FROM event_summaries WHERE bucket <= $1::BIGINT ORDER BY bucket LIMIT $2::BIGINT)`,
          [{ type: 'int', value: before - SUMMARY_BUCKET_MS }, { type: 'int', value: limit }],
        ),
      );
    },

    // Only with room for the log's rows in the file (disk-room.ts); else a no-op until there is.
    memory: () => withReader(readDuckDbMemory),
    checkpoint: () => writing(async () => void (room.fits(walBytes()) && (await writer.run('CHECKPOINT')))),

    markCompacted: (before, periodDays) => markCompacted(compaction, before, periodDays),
    compact: (before, maxDays, periodDays) => compactPeriods(compaction, before, maxDays, periodDays),

    close: () =>
      exclusive(async () => {
        closed = true;
        // Reads in flight finish first (an export whose client left may still be reading a page).
        await readers.drain();
        // Without room the log stays as it is: the next open replays it.
        if (options.path !== ':memory:' && room.fits(walBytes())) await writer.run('CHECKPOINT').catch(() => undefined);
        writer.closeSync();
        readers.closeSync();
        instance.closeSync();
      }),
  };
}
