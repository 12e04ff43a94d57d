/**
 * The event log's two interfaces, one per owner, so whether a call runs on the main thread or the
 * log thread follows from its interface, never from a transaction passed or a store's kind:
 *
 * - `ConversionStore<Tx>`: the metadata database's share, on the main thread and transactional:
 *   leads and sales written in the caller's transaction (a customer created with its lead), the
 *   look-ups conversions need (in that transaction), and the metadata side of a customer's
 *   erasure. Where a column store holds the events too, what the transaction wrote is handed to
 *   the log after the commit (`afterCommit`): copies by id, an erasure's hand-off row.
 * - `EventLog`: the log's own share, with no transaction parameter, served only by the log thread
 *   (log/): click batches, conversions copied in by id, click look-ups, aggregates, pages,
 *   erasures of its own and the hand-offs of the main thread's, and expiry.
 *
 * Nothing here names an engine or a driver; `contract.ts` states what both promise together, and
 * each engine implements what it serves (sql/store.ts both; column/ the log, column/conversions.ts
 * the metadata share).
 *
 * @example
 * await db.transaction().execute((trx) => conversions.append([lead], trx));
 * await conversions.afterCommit();
 * const rows = await log.aggregate(spec, { from, to });
 */

import type { CreditsTable, EventsTable } from '../db/tables.js';
import type { ClickColumns } from './batch/click-columns.js';

export type EventKind = EventsTable['kind'];

/**
 * One event of the log: a click, or a lead or sale carrying the dimensions of its click. The same
 * columns as the SQL store's `events` table, which db/ declares without knowing this module.
 */
export type EventRow = EventsTable;

/**
 * Every event column, in table order: the SQL store's cached insert binds them in this order, and
 * the column engines create their table in it.
 */
export const EVENT_COLUMNS = [
  'workspace_id', 'timestamp', 'id', 'kind', 'click_id', 'link_id', 'domain', 'key', 'url', 'country', 'city', 'region', 'continent',
  'device', 'browser', 'os', 'referer', 'referer_url', 'trigger', 'ip', 'ua', 'utm_source', 'utm_medium', 'utm_campaign', 'utm_term',
  'utm_content', 'customer_id', 'event_name', 'amount', 'currency', 'original_amount', 'payment_processor', 'invoice_id', 'sale_type', 'metadata',
] as const satisfies readonly (keyof EventRow)[];
/** Fails to compile when `EventRow` gains a column the list lacks. */
const allListed: Exclude<keyof EventRow, (typeof EVENT_COLUMNS)[number]> extends never ? true : never = true;
void allListed;

type NullableKey = { [K in keyof EventRow]: null extends EventRow[K] ? K : never }[keyof EventRow];

/** An event to append: every column, the nullable ones optional. */
export type StoredEvent = Omit<EventRow, NullableKey> & Partial<Pick<EventRow, NullableKey>>;

/** Event columns analytics can filter or group on. */
export type DimColumn =
  | 'link_id'
  | 'domain'
  | 'url'
  | 'utm_source'
  | 'utm_medium'
  | 'utm_campaign'
  | 'utm_term'
  | 'utm_content'
  | 'continent'
  | 'country'
  | 'region'
  | 'city'
  | 'device'
  | 'browser'
  | 'os'
  | 'trigger'
  | 'referer'
  | 'referer_url';

export interface ValueFilter {
  op: 'in' | 'notIn';
  values: string[];
}

/**
 * How a dimension filter compares: `exact`; `ci` (case-insensitive: device, browser and os
 * names are matched without regard to case, as the published API capitalises them); `withoutQuery`
 * (referer URLs compare without their query string, as they are grouped); `region` (accepts both
 * `US-CA` and `CA`).
 */
export type MatchMode = 'exact' | 'ci' | 'withoutQuery' | 'region';

export interface DimFilter {
  column: DimColumn;
  filter: ValueFilter;
  mode: MatchMode;
}

/** `metadata['plan']:'pro'` → a key/value match; any other text → a substring of the metadata JSON. */
export type MetadataMatch = { key: string; value: string } | { text: string };

/** Filters on link attributes, which are not copied onto events: a store resolves them against the links. */
export interface LinkFilters {
  ids?: ValueFilter;
  domain?: ValueFilter;
  tenantId?: ValueFilter;
  programId?: ValueFilter;
  partnerId?: ValueFilter;
  folderId?: ValueFilter;
  tagIds?: ValueFilter;
  root?: boolean;
  /** A filter on something Waymark does not store (partner groups, partner tags): matches nothing. */
  matchesNothing?: boolean;
}

export interface ScopeInput {
  workspaceId: string;
  links: LinkFilters;
  /** Links named by id (`linkId`, `domain`+`key`, `externalId`): disabled ones still count. */
  named: boolean;
  /**
   * Links in every folder count when no folder is asked for (the dashboard's view). Unset: the
   * published default, where only links outside folders count.
   */
  everyFolder?: boolean;
}

/**
 * Which links a query counts (see link-scope.ts):
 * - `workspace`: no link filter; every link counts but the left-out ones (disabled links, and
 *   links in folders when no folder is asked for);
 * - `set`: only the links matching `input`; `ids` lists them when few enough to inline.
 */
export interface LinkScope {
  mode: 'workspace' | 'set';
  input: ScopeInput;
  ids?: string[];
  /** Set mode with no member at all, or a filter on data Waymark does not hold. */
  empty: boolean;
}

/** Filters that only the raw events can apply. */
export interface ConversionFilters {
  customerId?: string;
  saleType?: 'new' | 'recurring';
  metadata?: MetadataMatch;
  ref?: string;
}

/** What to count: kinds, grouping columns, filters and links. */
export interface AggregateSpec {
  workspaceId: string;
  kinds: readonly EventKind[];
  group: readonly DimColumn[];
  /** Rows per time slot (`slot`), for timeseries. */
  timeseries: boolean;
  dims: readonly DimFilter[];
  conversions: ConversionFilters;
  scope: LinkScope;
}

/** Half-open time range `[from, to)` in ms. */
export interface TimeSpan {
  from: number;
  to: number;
}

export interface Metrics {
  clicks: number;
  leads: number;
  sales: number;
  /** USD cents. */
  sale_amount: number;
}

/** One aggregate row: group values (in the order of the grouping's columns), slot, metrics. */
export interface MergedRow extends Metrics {
  g: string[];
  /** Timeseries: the start (ms) of the finest slot the row counts for (≤ the bucket start it belongs to). */
  slot?: number;
}

export interface EventPage {
  order: 'asc' | 'desc';
  limit: number;
  offset: number;
  /**
   * Keyset cursor: only events after this one in the page's order (`timestamp`, then `id`), so a
   * long walk (an export) costs the same per page instead of skipping ever more rows. Pass the
   * last row of the previous page, with `offset: 0`.
   */
  after?: { timestamp: number; id: string };
}

/**
 * What attribution reads of one lead or sale (`EventLog.buyerConversions`): only these columns,
 * `g` holding the grouping's values in order ('' where a value is absent, as aggregates group).
 */
export interface ConversionTouchRow {
  kind: 'lead' | 'sale';
  customer_id: string | null;
  click_id: string;
  link_id: string;
  timestamp: number;
  /** USD cents; 0 for a lead. */
  amount: number;
  g: string[];
}

/** The sales an aggregate selects, and the journeys of their customers (`EventLog.buyerConversions`). */
export interface BuyerConversions {
  /** The sales the spec selects over the range: exactly those an aggregate of its `sale` kind counts. */
  sales: ConversionTouchRow[];
  /**
   * Every lead and sale, from `since` to the range's end, of the customers among those sales,
   * on any link of the workspace but disabled ones (whatever the spec's own link and dimension
   * filters), in no particular order.
   */
  journeys: ConversionTouchRow[];
}

/**
 * One attribution credit as stored (docs/decisions/0015, migration 0037): a (sale, model, touch)
 * with the sale's time, id, customer and link, the touch's click id, link and dimensions, and the
 * model's `share` (0 for a refund) and `cents` of the sale. Built by attribution/credit-writer.ts.
 */
export type StoredCredit = CreditsTable;

/** Where the credits' backfill stands: after this sale (none: from the start), finished or not. */
export interface CreditBackfillState {
  after: { workspaceId: string; timestamp: number; id: string } | null;
  done: boolean;
}

/** Events one erasure removed, by kind. */
export interface ForgetCounts {
  clicks: number;
  leads: number;
  sales: number;
}

export interface ForgetResult extends ForgetCounts {
  /**
   * Matching clicks left in place because they are not counted yet (a store whose clicks are
   * counted a moment after they are stored); erase again shortly. No store leaves any today.
   */
  pending: number;
}

/** The metadata database's share of the events, on the main thread, joined to the caller's transaction. */
export interface ConversionStore<Tx> {
  /**
   * Writes leads and sales in `tx`: they commit with it or not at all. A sale whose invoice id
   * the workspace already holds fails (`isDuplicateInvoice`). A click is refused: clicks take the
   * log's `appendClicks`.
   */
  append(events: readonly StoredEvent[], tx: Tx): Promise<void>;
  /**
   * After the transactions of this store's appends and erasures committed: hands them to the
   * log (conversions copied in by id, erasures' hand-offs applied) and resolves once aggregates
   * and pages read them, within a bound. Immediate where the log reads the same table.
   */
  afterCommit(): Promise<void>;

  /** The customer's latest lead, of the given event name (case-sensitive) when one is given. */
  latestLead(workspaceId: string, customerId: string, eventName?: string | null, tx?: Tx): Promise<EventRow | undefined>;
  hasAnyLead(workspaceId: string, customerId: string, tx?: Tx): Promise<boolean>;
  /** Distinct names of the customer's leads since `since` (ms), for de-duplication. */
  leadNamesSince(workspaceId: string, customerId: string, since: number, tx?: Tx): Promise<string[]>;
  saleByInvoice(workspaceId: string, invoiceId: string, tx?: Tx): Promise<EventRow | undefined>;
  hasSaleOnLink(workspaceId: string, customerId: string, linkId: string, tx?: Tx): Promise<boolean>;
  /** True when `err` is the refusal of a sale whose invoice id was already recorded. */
  isDuplicateInvoice(err: unknown): boolean;

  /**
   * The customer's leads and sales stamped at or after `since` (ms), on any link of the workspace
   * but disabled ones (the journey the read-time attribution reads), in time order: what the
   * credits of a sale are computed from (attribution/credit-writer.ts).
   */
  customerJourney(workspaceId: string, customerId: string, since: number, tx?: Tx): Promise<EventRow[]>;
  /**
   * Replaces the credit rows of these sales by `credits` in `tx` (a rerun for a sale replaces its
   * rows): written in the transaction that appends the sale.
   */
  replaceCredits(saleIds: readonly string[], credits: readonly StoredCredit[], tx: Tx): Promise<void>;
  /** Up to `limit` sales of every workspace after `after`, in (workspace, time, id) order: the backfill's pages. */
  salesAfter(after: CreditBackfillState['after'], limit: number, tx?: Tx): Promise<EventRow[]>;
  /** The backfill's saved state (none saved: from the start, not done). */
  creditBackfill(tx?: Tx): Promise<CreditBackfillState>;
  saveCreditBackfill(state: CreditBackfillState, now: number, tx: Tx): Promise<void>;
  /**
   * Queues for recomputation, in `tx`, the sales of these customers stamped at or after `since`
   * (their journey gained earlier events: an import), but those of `except` (credited in `tx`
   * already), deleting their credit rows.
   */
  queueRecompute(workspaceId: string, customerIds: readonly string[], since: number, tx: Tx, except?: readonly string[]): Promise<number>;
  /** Up to `limit` queued sales (their rows), and the queued ids whose sale is gone. */
  queuedRecomputes(limit: number, tx?: Tx): Promise<{ sales: EventRow[]; gone: string[] }>;
  /** Takes these sales off the queue, in `tx` (after their credits were written in it). */
  dequeueRecomputes(saleIds: readonly string[], tx: Tx): Promise<void>;

  /**
   * Deletes the customer's leads and sales in `tx` (and what summarises them: rollups, and the
   * links' `leads`, `sales`, `saleAmount`, `conversions`), with the hand-off row a column store
   * needs in the same transaction (`afterCommit` has it applied); returns how many.
   */
  forgetCustomer(workspaceId: string, customerId: string, tx: Tx): Promise<number>;
}

/** The log's share, served by the log thread: no call joins a transaction of the caller's. */
export interface EventLog {
  /**
   * Appends events in a batch of their own: the whole batch becomes visible (to reads and
   * aggregates) at once or not at all. A sale whose invoice id the workspace already holds fails
   * the batch (`isDuplicateInvoice`).
   */
  append(events: readonly StoredEvent[]): Promise<void>;
  /**
   * Appends a batch of clicks once: a batch id stored before adds nothing (a retry after a commit
   * whose answer was lost). The whole batch is visible (to `findClick`, aggregates, pages) when
   * this resolves, or none of it: what resolved is stored. The click writer's batches come this
   * way (through the log thread: log/), and the migration's imported clicks (batch ids
   * `IMPORTED_BATCH_PREFIX`: counted on their links only, ../click-log.ts). The clicks come in
   * columns (batch/click-columns.ts; from wide rows: batch/wide-rows.ts `columnsOf`).
   */
  appendClicks(batchId: string, clicks: ClickColumns): Promise<void>;
  /**
   * Copies in the leads and sales with these ids that the metadata database committed,
   * idempotently by id, and resolves once aggregates and pages read them (within a bound; a copy
   * that fails is retried). A no-op where the log reads the metadata database's table.
   */
  copyConversions(ids: readonly string[]): Promise<void>;
  /** The click with this id in the workspace. */
  findClick(workspaceId: string, clickId: string): Promise<EventRow | undefined>;
  /** Which of these click ids are stored, in any workspace (a retried write skips them). */
  existingClickIds(clickIds: readonly string[]): Promise<string[]>;

  /** Links of a `set` scope, at most `max` + 1 of them (to tell when there are more). */
  scopeLinkIds(input: ScopeInput, max: number): Promise<string[]>;
  /** Exact totals of the spec over the range, one row per group value (and slot). */
  aggregate(spec: AggregateSpec, range: TimeSpan, boundaries?: readonly number[]): Promise<MergedRow[]>;
  /**
   * Attribution's read (analytics/attributed.ts): the sales the spec selects over the range and
   * the leads and sales of their customers since `since`, only the columns the models need, in
   * one query (the buyers a subquery of the sales), instead of walking full rows page by page.
   */
  buyerConversions(spec: AggregateSpec, range: TimeSpan, since: number): Promise<BuyerConversions>;
  /**
   * Attribution from the stored credits (docs/decisions/0015): the credit rows of `model` for the
   * sales the spec selects over the range (its scope, filters and conversion filters apply to the
   * sale), grouped by the spec's columns as the touches carry them; `sales` the sum of shares,
   * `sale_amount` of cents, `clicks` and `leads` 0. No slots (a timeseries' totals do not move).
   */
  creditAggregate(spec: AggregateSpec, range: TimeSpan, model: string): Promise<MergedRow[]>;
  /** A page of the events the spec selects, newest or oldest first (ties by id); events of deleted links are left out. */
  page(spec: AggregateSpec, range: TimeSpan, page: EventPage): Promise<EventRow[]>;

  /** Deletes every event of these links (and what summarises them); returns how many. */
  forgetLinks(workspaceId: string, linkIds: readonly string[]): Promise<number>;
  /**
   * Deletes, in every workspace, the events whose stored address is `ip` (clicks, and the leads
   * and sales that copied it from their click), with what summarises them and the link counters.
   * `ip` is compared with the stored form (anonymized by default: src/visitors/visitor-ip.ts).
   */
  forgetIp(ip: string): Promise<ForgetResult>;
  /** Deletes the click with this id and the leads and sales attributed to it, as `forgetIp` does. */
  forgetClick(clickId: string): Promise<ForgetResult>;
  /**
   * Finishes the erasures whose metadata side committed (`ConversionStore.forgetCustomer`, or a
   * start after a crash between the halves): deletes their events from a column store, once
   * each; returns how many hand-offs it applied.
   */
  applyErasures(): Promise<number>;

  /**
   * Retention: deletes up to `limit` raw events stamped before `before` (ms), oldest first in
   * each workspace, and returns how many. What summarises them (rollups, link counters) stays,
   * so figures of old periods that the summaries can answer survive; call again until it
   * returns less than `limit`.
   */
  expire(before: number, limit: number): Promise<number>;
  /** Deletes up to `limit` summary rows (rollups) of periods that end before `before`; returns how many. */
  expireSummaries(before: number, limit: number): Promise<number>;
}
