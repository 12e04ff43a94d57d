/**
 * The event log's one interface: clicks, leads and sales appended, found, aggregated, paged and
 * erased. Nothing here names an engine or a driver, so a store other than SQL (a column store)
 * can implement it; `contract.ts` states what every implementation promises and
 * `sql/store.ts` is the implementation on SQLite and PostgreSQL.
 *
 * `Tx` is the caller's open write of the metadata database (a customer created with its lead) that
 * a store may join, so the events commit with it. A store kept elsewhere ignores it and is fed
 * after the commit; callers must not rely on reading their own uncommitted events through another
 * handle.
 *
 * @example
 * await events.appendClicks('b1', [clickRow]);
 * const click = await events.findClick(workspaceId, clickRow.click_id);
 * const rows = await events.aggregate(spec, { from, to });
 */

import type { EventsTable } from '../db/tables.js';

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

export interface EventStore<Tx = never> {
  /**
   * Appends events: the whole batch becomes visible (to reads and aggregates) at once or not at
   * all. A sale whose invoice id the workspace already holds fails the batch (`isDuplicateInvoice`).
   */
  append(events: readonly StoredEvent[], tx?: Tx): Promise<void>;
  /**
   * Appends a batch of clicks once: a batch id stored before adds nothing (a retry after a commit
   * whose answer was lost). The whole batch is visible (to `findClick`, aggregates, pages) when
   * this resolves, or none of it: what resolved is stored. The click writer's batches come this
   * way (through the log thread: log/).
   */
  appendClicks(batchId: string, rows: readonly StoredEvent[]): Promise<void>;
  /**
   * After appends joined to transactions that have committed: resolves once aggregates and pages
   * read those events (the column store copies them after the commit, column/feed.ts). Absent
   * where they are readable at the commit. Tracking awaits it before answering, so analytics read
   * right after a lead or sale count it (the column store waits at most a bound, column/store.ts).
   */
  copied?(): Promise<void>;
  /** The click with this id in the workspace. */
  findClick(workspaceId: string, clickId: string): Promise<EventRow | undefined>;
  /** Which of these click ids are stored, in any workspace (a retried write skips them). */
  existingClickIds(clickIds: readonly string[]): Promise<string[]>;

  /** The customer's latest lead, of the given event name (case-sensitive) when one is given. */
  latestLead(workspaceId: string, customerId: string, eventName?: string | null, tx?: Tx): Promise<EventRow | undefined>;
  hasAnyLead(workspaceId: string, customerId: string, tx?: Tx): Promise<boolean>;
  /** Distinct names of the customer's leads since `since` (ms), for de-duplication. */
  leadNamesSince(workspaceId: string, customerId: string, since: number, tx?: Tx): Promise<string[]>;
  saleByInvoice(workspaceId: string, invoiceId: string, tx?: Tx): Promise<EventRow | undefined>;
  hasSaleOnLink(workspaceId: string, customerId: string, linkId: string, tx?: Tx): Promise<boolean>;
  /** True when `err` is the refusal of a sale whose invoice id was already recorded. */
  isDuplicateInvoice(err: unknown): boolean;

  /** Links of a `set` scope, at most `max` + 1 of them (to tell when there are more). */
  scopeLinkIds(input: ScopeInput, max: number): Promise<string[]>;
  /** Exact totals of the spec over the range, one row per group value (and slot). */
  aggregate(spec: AggregateSpec, range: TimeSpan, boundaries?: readonly number[]): Promise<MergedRow[]>;
  /** A page of the events the spec selects, newest or oldest first (ties by id); events of deleted links are left out. */
  page(spec: AggregateSpec, range: TimeSpan, page: EventPage): Promise<EventRow[]>;

  /** Deletes every event of these links (and what summarises them); returns how many. */
  forgetLinks(workspaceId: string, linkIds: readonly string[], tx?: Tx): Promise<number>;
  /**
   * Deletes the customer's leads and sales (and what summarises them: rollups, and the links'
   * `leads`, `sales`, `saleAmount`, `conversions`); returns how many.
   */
  forgetCustomer(workspaceId: string, customerId: string, tx?: Tx): Promise<number>;
  /**
   * Deletes, in every workspace, the events whose stored address is `ip` (clicks, and the leads
   * and sales that copied it from their click), with what summarises them and the link counters.
   * `ip` is compared with the stored form (anonymized by default: src/visitors/visitor-ip.ts).
   */
  forgetIp(ip: string): Promise<ForgetResult>;
  /** Deletes the click with this id and the leads and sales attributed to it, as `forgetIp` does. */
  forgetClick(clickId: string): Promise<ForgetResult>;

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
