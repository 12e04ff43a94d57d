/**
 * The column store's engine on ClickHouse (../column/column-engine.ts), reached through an executor
 * (executor.ts): a server with `@clickhouse/client`, or chdb in-process (tests). Tables:
 * schema.ts. Several Waymark processes may share one server.
 *
 * - Idempotent append: a click batch is one insert deduplicated by its id
 *   (`insert_deduplication_token`); other appends look the ids already stored up first and leave
 *   them out, so a retried batch adds nothing (appends of this process run one at a time, so the look-up is exact here).
 *   Two processes copying the same event at the same moment can still both insert it: the table
 *   is a ReplacingMergeTree keyed by (workspace_id, timestamp, id), and every read runs with
 *   `final = 1`, so such a pair counts once, before and after ClickHouse merges it.
 * - Erasure: lightweight `DELETE FROM`, waited for (`lightweight_deletes_sync = 2`), so the rows
 *   are gone from every read when the call returns.
 * - Expiry: a batch's totals are inserted into `event_summaries` under the batch's id (a hash of
 *   its event ids), then its events deleted; redone after a crash between the two, the same batch
 *   replaces its rows rather than adding to them.
 *
 * @example
 * const engine = await openClickHouseEngine({ executor: openServerExecutor(process.env.EVENTS_URL!) });
 * await engine.append(rows);
 */
import { createHash } from 'node:crypto';
import type { StoredEvent } from '../event-store.js';
import { rowsOf } from '../batch/wide-rows.js';
import {
  EVENT_COLUMNS, INTEGER_COLUMNS, NULLABLE_EVENT_COLUMNS, SUMMARY_BUCKET_MS, spanOf, toEventRow, type ColumnEngine, type EventKey, type EventTarget, type Expired,
} from '../column/column-engine.js';
import { quoteIdent } from '../column/dialect.js';
import { bindParams, clickHouseDialect } from './dialect.js';
import type { ClickHouseExecutor, QueryParams } from './executor.js';
import { schemaStatements } from './schema.js';
import { clickHouseVersionProblem } from './server-version.js';

export interface ClickHouseEngineOptions {
  executor: ClickHouseExecutor;
  /** Rows per INSERT (default 100,000: ClickHouse prefers few large inserts, each a new part). */
  insertRows?: number;
}

/** Ids per look-up of stored ids. */
const ID_CHUNK = 2000;
/**
 * Reads see every event once, whether or not ClickHouse has merged its copies yet. Copies share
 * their timestamp, hence their month: FINAL may merge each partition on its own (in parallel).
 */
const READ = { final: 1, do_not_merge_across_partitions_select_final: 1 } as const;
/** Deletes return once the rows are gone from reads. */
const DELETE = { lightweight_deletes_sync: 2 } as const;

/** An event as the values of EVENT_COLUMNS, in order: integers as numbers, absent values null. */
export function insertRow(row: StoredEvent): unknown[] {
  const r = row as Record<string, unknown>;
  return EVENT_COLUMNS.map((c) => {
    const v = r[c];
    if (INTEGER_COLUMNS.has(c)) return v == null ? (c === 'amount' ? 0 : null) : Math.trunc(Number(v));
    return v ?? null;
  });
}

/** An insert deduplicated the default way (by its data within the window), whatever came before it. */
const NO_TOKEN = { insert_deduplication_token: '' } as const;

/** The columns an event must have a value in (`amount` is 0 when absent). */
const REQUIRED_COLUMNS = EVENT_COLUMNS.filter((c) => !NULLABLE_EVENT_COLUMNS.has(c) && c !== 'amount');

/** The id of an expiry batch: the same events give the same id. */
export function batchId(ids: readonly string[]): string {
  return createHash('sha256').update([...ids].sort().join('\n')).digest('hex').slice(0, 32);
}

function targetWhere(target: EventTarget): { text: string; params: QueryParams } {
  let text = `${quoteIdent(target.column)} IN (SELECT arrayJoin({values:Array(String)}))`;
  const params: QueryParams = { values: [...target.values] };
  if (target.workspaceId !== undefined) {
    text += ' AND "workspace_id" = {workspace:String}';
    params.workspace = target.workspaceId;
  }
  return { text, params };
}

export async function openClickHouseEngine(options: ClickHouseEngineOptions): Promise<ColumnEngine> {
  const { executor } = options;
  const insertRows = options.insertRows ?? 100_000;
  const [answer] = await executor.query('SELECT version() AS version');
  const problem = clickHouseVersionProblem(String(answer?.version ?? ''));
  if (problem) throw new Error(problem);
  for (const statement of schemaStatements()) await executor.command(statement);

  // Writes of this process run one after another: the stored-id look-up of an append then sees
  // every earlier append.
  let queue: Promise<unknown> = Promise.resolve();
  function exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = queue.then(fn, fn);
    queue = run.catch(() => undefined);
    return run;
  }

  async function existingIds(ids: readonly string[]): Promise<string[]> {
    const out: string[] = [];
    for (let i = 0; i < ids.length; i += ID_CHUNK) {
      const rows = await executor.query(
        'SELECT DISTINCT "id" FROM events WHERE "id" IN (SELECT arrayJoin({ids:Array(String)}))',
        { ids: ids.slice(i, i + ID_CHUNK) },
      );
      for (const r of rows) out.push(String(r.id));
    }
    return out;
  }

  /**
   * Which of these rows' ids are stored: the same answer as `existingIds`, but bounded by the rows'
   * workspaces and time span, so ClickHouse reads only the key ranges the rows fall in (a batch of
   * fresh clicks: the last few granules) instead of every granule of the id column.
   */
  async function storedAmong(rows: readonly EventKey[]): Promise<Set<string>> {
    const out = new Set<string>();
    for (let i = 0; i < rows.length; i += ID_CHUNK) {
      const chunk = rows.slice(i, i + ID_CHUNK);
      const { from, to, workspaces } = spanOf(chunk);
      const found = await executor.query(
        `SELECT DISTINCT "id" FROM events
         WHERE "workspace_id" IN (SELECT arrayJoin({workspaces:Array(String)}))
           AND "timestamp" >= {from:Int64} AND "timestamp" <= {to:Int64}
           AND "id" IN (SELECT arrayJoin({ids:Array(String)}))`,
        { workspaces, from, to, ids: chunk.map((r) => r.id) },
      );
      for (const r of found) out.add(String(r.id));
    }
    return out;
  }

  return {
    dialect: clickHouseDialect,

    append(rows) {
      if (!rows.length) return Promise.resolve(0);
      return exclusive(async () => {
        // One row per id, the first: a batch may carry a retried event twice.
        const seen = new Set<string>();
        const unique = rows.filter((r) => !seen.has(r.id) && (seen.add(r.id), true));
        // An event's copies have the same workspace and time (both are in the table's key), so
        // looking only where the rows fall is exact.
        const stored = await storedAmong(unique);
        const fresh = unique.filter((r) => !stored.has(r.id));
        // No deduplication token (named empty: a connection that keeps settings per session, as
        // chdb's does, would otherwise carry the last click batch's token over and drop these rows).
        for (let i = 0; i < fresh.length; i += insertRows) await executor.insert('events', EVENT_COLUMNS, fresh.slice(i, i + insertRows).map(insertRow), NO_TOKEN);
        return fresh.length;
      });
    },

    // One INSERT per batch (a batch is at most the click writer's 2,000 rows), deduplicated by the
    // batch id within the table's window (schema.ts): a retry after an unheard insert adds nothing.
    // ReplacingMergeTree and FINAL reads keep a copy that slipped past the window counted once.
    appendClicks(batchId, clicks) {
      return exclusive(async () => {
        // Wide rows from the columns: LowCardinality columns (schema.ts) do the dictionaries' job.
        const rows = rowsOf(clicks);
        // A null where the table holds none refuses the batch, as the other stores' NOT NULL does
        // (ClickHouse would store an empty value in its place).
        for (const row of rows) {
          const missing = REQUIRED_COLUMNS.find((c) => (row as Record<string, unknown>)[c] == null);
          if (missing) throw new Error(`click batch ${batchId} refused: an event without ${missing}`);
        }
        if (rows.length) await executor.insert('events', EVENT_COLUMNS, rows.map(insertRow), { insert_deduplication_token: batchId });
        return { seq: null, duplicate: false };
      });
    },

    existingIds: (ids) => existingIds(ids),
    storedEvents: (keys) => storedAmong(keys),

    async eventById(id) {
      // Copies of one event are equal, so any one will do: no FINAL, the bloom filter finds the granule.
      const rows = await executor.query('SELECT * FROM events WHERE "id" = {id:String} LIMIT 1', { id });
      return rows[0] ? toEventRow(rows[0]) : undefined;
    },

    query: (q) => executor.query(q.text, bindParams(q.params), READ),

    deleteEvents(target) {
      if (!target.values.length) return Promise.resolve(0);
      return exclusive(async () => {
        const where = targetWhere(target);
        const [counted] = await executor.query(`SELECT count() AS n FROM events WHERE ${where.text}`, where.params, READ);
        await executor.command(`DELETE FROM events WHERE ${where.text}`, where.params, DELETE);
        if (target.column === 'link_id') await executor.command(`DELETE FROM event_summaries WHERE ${where.text}`, where.params, DELETE);
        return Number(counted?.n ?? 0);
      });
    },

    expire(before, limit) {
      if (limit <= 0) return Promise.resolve({ count: 0, conversionIds: [] } satisfies Expired);
      return exclusive(async () => {
        const expiring = await executor.query(
          'SELECT "id", "kind", "timestamp" FROM events WHERE "timestamp" < {before:Int64} ORDER BY "timestamp", "id" LIMIT {limit:Int64}',
          { before, limit: Math.trunc(limit) },
          READ,
        );
        if (!expiring.length) return { count: 0, conversionIds: [] };
        const ids = expiring.map((r) => String(r.id));
        const params: QueryParams = { ids, from: Number(expiring[0]!.timestamp), before, batch: batchId(ids) };
        const these = '"id" IN (SELECT arrayJoin({ids:Array(String)})) AND "timestamp" >= {from:Int64} AND "timestamp" < {before:Int64}';
        await executor.command(
          `INSERT INTO event_summaries
             SELECT "workspace_id", intDiv("timestamp", ${SUMMARY_BUCKET_MS}) * ${SUMMARY_BUCKET_MS} AS bucket, "link_id", {batch:String},
               countIf("kind" = 'click'), countIf("kind" = 'lead'), countIf("kind" = 'sale' AND "amount" >= 0), sumIf("amount", "kind" = 'sale')
             FROM events WHERE ${these}
             GROUP BY "workspace_id", bucket, "link_id"`,
          params,
          { ...READ, ...NO_TOKEN },
        );
        await executor.command(`DELETE FROM events WHERE ${these}`, params, DELETE);
        return { count: ids.length, conversionIds: expiring.filter((r) => r.kind !== 'click').map((r) => String(r.id)) };
      });
    },

    expireSummaries(before, limit) {
      if (limit <= 0) return Promise.resolve(0);
      return exclusive(async () => {
        const last = before - SUMMARY_BUCKET_MS;
        const rows = await executor.query(
          `SELECT concat("workspace_id", '\\n', toString("bucket"), '\\n', "link_id", '\\n', "batch") AS k FROM event_summaries
           WHERE "bucket" <= {last:Int64} ORDER BY "bucket", k LIMIT {limit:Int64}`,
          { last, limit: Math.trunc(limit) },
          READ,
        );
        if (!rows.length) return 0;
        await executor.command(
          `DELETE FROM event_summaries WHERE "bucket" <= {last:Int64}
             AND concat("workspace_id", '\\n', toString("bucket"), '\\n', "link_id", '\\n', "batch") IN (SELECT arrayJoin({keys:Array(String)}))`,
          { last, keys: rows.map((r) => String(r.k)) },
          DELETE,
        );
        return rows.length;
      });
    },

    close: () => exclusive(() => executor.close()),
  };
}
