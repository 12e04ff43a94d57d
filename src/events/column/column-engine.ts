/**
 * What a column store must provide for the event log (store.ts builds the `EventLog` on it):
 * one table of events with the columns of `EventRow` (`timestamp` in ms), appended in batches
 * idempotently by event id, and a small table of hourly per-link summaries that retention moves
 * expired events into. Everything that depends on the metadata database (link scopes, leads and
 * sales in the caller's transaction, link counters) stays in store.ts, so a new engine is one
 * module: DuckDB (../duckdb/duckdb-engine.ts) embedded, ClickHouse for several processes.
 *
 * Queries are built once for every engine (query-sql.ts) as text plus typed parameters; the
 * engine's `ColumnDialect` says how to write the few things engines spell differently.
 *
 * @example
 * const engine = await openDuckDbEngine({ path: ':memory:' });
 * await engine.append([clickRow]);                 // again: no second row
 * const [row] = await engine.query(countQuery);     // { clicks: 1n, … }
 */
import type { EventRow, StoredCredit, StoredEvent } from '../event-store.js';
import type { StoredClickBatch } from '../click-log.js';
import type { ClickColumns } from '../batch/click-columns.js';
import type { ColumnDialect, ColumnQuery } from './dialect.js';

/** What identifies an event, and where a store looks for it. */
export type EventKey = Pick<StoredEvent, 'id' | 'workspace_id' | 'timestamp'>;

/** The time span (ms, both ends included) and the workspaces of some events. */
export interface EventSpan {
  from: number;
  to: number;
  workspaces: string[];
}

/** Where these events' stored copies can be (an event's copies share its workspace and time): engines bound their id checks by it. */
export function spanOf(keys: readonly EventKey[]): EventSpan {
  let from = Infinity;
  let to = -Infinity;
  for (const k of keys) {
    from = Math.min(from, k.timestamp);
    to = Math.max(to, k.timestamp);
  }
  return { from: Math.trunc(from), to: Math.trunc(to), workspaces: [...new Set(keys.map((k) => k.workspace_id))] };
}

/**
 * Events to delete: of links or a customer in one workspace, or carrying an address or a click
 * id in any workspace (the operator's erasure).
 */
export type EventTarget =
  | { workspaceId: string; column: 'link_id' | 'customer_id'; values: readonly string[] }
  | { workspaceId?: undefined; column: 'ip' | 'click_id'; values: readonly string[] };

/** What one expiry batch removed. */
export interface Expired {
  /** Events moved into the summaries. */
  count: number;
  /** Ids of the leads and sales among them (store.ts deletes them from the metadata database too). */
  conversionIds: string[];
}

/** Credit rows to replace: those of these sales (within `span`, ms, both ends included, when every sale's time is known), or all of a workspace's. */
export type CreditTarget = { saleIds: readonly string[]; span?: { from: number; to: number } } | { workspaceId: string };

/**
 * The attribution credits' copy in the column file (docs/decisions/0018): the metadata database's
 * `credits` rows, copied by credit-copies.ts, read by `creditAggregateQuery` (credit-sql.ts).
 */
export interface ColumnCredits {
  /** Deletes the target's rows and appends `rows`, in one transaction. */
  replace(target: CreditTarget, rows: readonly StoredCredit[]): Promise<void>;
  /** Retention: deletes the rows of sales stamped before `before`; returns how many. */
  expire(before: number): Promise<number>;
}

export interface ColumnEngine {
  readonly dialect: ColumnDialect;
  /** A copy of the credits that reads answer from (DuckDB). Absent: the store reads the metadata database's (ClickHouse). */
  readonly credits?: ColumnCredits;
  /**
   * Appends the rows whose event id is not stored yet (a retried batch, or a lead copied twice,
   * adds nothing); the new rows become visible together or not at all. Returns how many were new.
   */
  append(rows: readonly StoredEvent[]): Promise<number>;
  /**
   * Appends a click batch once by its id, visible entirely or not at all. With a batch log
   * (`batchLog`, DuckDB) the batch is recorded there in the same transaction: `seq` is its number,
   * `duplicate` true when the id was recorded before (nothing added). Without one (ClickHouse) the
   * insert itself is deduplicated by the batch id, within the engine's window: `seq` is null.
   */
  appendClicks(batchId: string, clicks: ClickColumns): Promise<{ seq: number | null; duplicate: boolean }>;
  /**
   * The engine's log of click batches, numbered in commit order (one process owns the store):
   * the fold counts the batches after a watermark (../click-log.ts, `watermark`). Absent: the store
   * records batch ids in the metadata database and counts in that transaction (`inline`).
   */
  readonly batchLog?: {
    readonly id: string;
    after(seq: number): Promise<StoredClickBatch[]>;
    forget(upTo: number, before: number): Promise<number>;
  };
  /**
   * Appends rows under a name recorded with them; a name recorded before adds nothing, without
   * looking up ids (the upgrade's copy batches). Absent: the engine records no names (`append`).
   */
  appendOnce?(name: string, rows: readonly StoredEvent[]): Promise<number>;
  /** Which of these event ids are stored (click ids are the ids of clicks). */
  existingIds(ids: readonly string[]): Promise<string[]>;
  /**
   * Which of these events are stored: the same answer as `existingIds`, but looked for only among
   * the events of their workspaces and time span (an event's copies share both), so a batch of
   * one workspace's events reads few row groups however large the store.
   */
  storedEvents(keys: readonly EventKey[]): Promise<Set<string>>;
  /** The event with this id, in any workspace: a point look-up (lead attribution calls it). */
  eventById(id: string): Promise<EventRow | undefined>;
  /** Runs a read built by query-sql.ts; integers may come back as bigint. */
  query(q: ColumnQuery): Promise<Record<string, unknown>[]>;
  /** Deletes the target's events (and, for links, their summaries); returns how many events. */
  deleteEvents(target: EventTarget): Promise<number>;
  /**
   * Moves up to `limit` events stamped before `before` (oldest first) into the hourly per-link
   * summaries, in one transaction, so totals of expired hours still answer.
   */
  expire(before: number, limit: number): Promise<Expired>;
  /** Deletes up to `limit` summary rows of hours that end at or before `before`; returns how many. */
  expireSummaries(before: number, limit: number): Promise<number>;
  /**
   * The start (ms) of the latest hour that may have a summary row, or null when there is none: an
   * engine that knows it (one process owns DuckDB's file) lets aggregates of later ranges skip
   * the summaries' query. Undefined: always query them.
   */
  latestSummaryBucket?(): number | null;
  close(): Promise<void>;
}

/** Every event column, in table order (the engines create their table in this order). */
export { EVENT_COLUMNS } from '../event-store.js';

/** Integer columns (the rest are text). */
export const INTEGER_COLUMNS: ReadonlySet<string> = new Set(['timestamp', 'amount', 'original_amount']);
/** Columns that may be null. */
export const NULLABLE_EVENT_COLUMNS: ReadonlySet<string> = new Set([
  'utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content', 'customer_id', 'event_name', 'currency', 'original_amount',
  'payment_processor', 'invoice_id', 'sale_type', 'metadata',
]);

/** Summaries are per workspace, link and UTC hour. */
export const SUMMARY_BUCKET_MS = 3_600_000;

/** An engine's row as an `EventRow`: integers as numbers. */
export function toEventRow(raw: Record<string, unknown>): EventRow {
  const row = { ...raw } as Record<string, unknown>;
  row.timestamp = Number(raw.timestamp);
  row.amount = Number(raw.amount ?? 0);
  row.original_amount = raw.original_amount == null ? null : Number(raw.original_amount);
  return row as unknown as EventRow;
}
