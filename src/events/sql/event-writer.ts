/**
 * The write side of the event log, shared by the click flush (redirect) and the track endpoints.
 * Writes go through a transaction handed in by the caller, so counters, events and the analytics
 * rollups commit together or not at all; when a write throws, the caller rolls that transaction
 * back (a failed insert may leave part of its rows in it: `insertEvents`). Every event must be written (and removed) through here:
 * a row inserted or deleted elsewhere would leave the rollups that answer most analytics queries
 * out of step with the events.
 */
import { CompiledQuery, type Kysely, type Transaction } from 'kysely';
import type { Database, EventsTable } from '../../db/tables.js';
import type { StoredEvent } from '../event-store.js';
import type { Dialect } from '../../db/dialect.js';
import { applyRollupDeltas, rollupDeltas } from './rollup-deltas.js';
import { sqlText, type SqlTexts } from '../../db/sql-texts.js';

export type { StoredEvent } from '../event-store.js';

export interface EventWriter {
  /**
   * Appends events and adds them to the rollups inside the caller's transaction. Given the plain
   * database instead of a transaction, it opens one of its own.
   */
  append(trx: Transaction<Database> | Kysely<Database>, events: readonly StoredEvent[]): Promise<void>;
  /**
   * Appends events without adding them to the rollups: for a writer that folds them in later with
   * `rollUp` and records how far it got (click-fold.ts), so analytics know which events the
   * rollups do not count yet. In the caller's transaction.
   */
  appendUnrolled(trx: Transaction<Database>, events: readonly StoredEvent[]): Promise<void>;
  /** Adds events stored by `appendUnrolled` to the rollups, in the caller's transaction. */
  rollUp(trx: Transaction<Database>, events: readonly StoredEvent[]): Promise<void>;
  /**
   * Deletes every event of these links and takes them out of the rollups, in the caller's
   * transaction (or its own). For link deletion: analytics count every stored event, so a deleted
   * link's clicks stay in the workspace's figures until they are forgotten. Returns the number of
   * events removed.
   */
  forgetLinks(trx: Transaction<Database> | Kysely<Database>, workspaceId: string, linkIds: readonly string[]): Promise<number>;
  /** Deletes the customer's leads and sales and takes them out of the rollups; returns how many. */
  forgetCustomer(trx: Transaction<Database> | Kysely<Database>, workspaceId: string, customerId: string): Promise<number>;
}

/** Rows per delete statement when forgetting a link. */
const CHUNK = 500;

/** Every column of `events`, in the order the cached insert binds them. */
const EVENT_COLUMNS = [
  'workspace_id', 'timestamp', 'id', 'kind', 'click_id', 'link_id', 'domain', 'key', 'url', 'country', 'city', 'region', 'continent',
  'device', 'browser', 'os', 'referer', 'referer_url', 'trigger', 'ip', 'ua', 'utm_source', 'utm_medium', 'utm_campaign', 'utm_term',
  'utm_content', 'customer_id', 'event_name', 'amount', 'currency', 'original_amount', 'payment_processor', 'invoice_id', 'sale_type', 'metadata',
] as const satisfies readonly (keyof EventsTable)[];
/** Fails to compile when `events` gains a column the list above lacks. */
const allColumnsListed: Exclude<keyof EventsTable, (typeof EVENT_COLUMNS)[number]> extends never ? true : never = true;
void allColumnsListed;

/**
 * Insert chunk sizes: each compiled once per writer and reused, because compiling a 500-row
 * insert with Kysely costs ~4 ms, about as much as SQLite takes to store the rows
 * (BENCHMARKS.md, redirects). 35 columns × 512 rows stays under SQLite's 32,766 bound values.
 */
const INSERT_SIZES = [512, 128, 32, 8, 2, 1];

/**
 * The plain event insert of `append`, without rollups (exported for the benchmark's cost split).
 * `or fail` on SQLite (Dialect.orFail): no statement journal, so every caller rolls its
 * transaction back when this throws, as Kysely's `transaction().execute` does.
 */
export async function insertEvents(trx: Kysely<Database>, events: readonly StoredEvent[], texts: SqlTexts, dialect: Dialect): Promise<void> {
  let i = 0;
  for (const size of INSERT_SIZES) {
    for (; events.length - i >= size; i += size) {
      const part = events.slice(i, i + size);
      const text = sqlText(texts, `events:${size}`, () => {
        // Every row with every column, so the compiled column list is the full one.
        const full = part.map((e) => Object.fromEntries(EVENT_COLUMNS.map((c) => [c, e[c] ?? null])) as StoredEvent);
        return dialect.insertOrFail(trx.insertInto('events')).values(full).compile().sql;
      });
      const values: unknown[] = [];
      for (const e of part) for (const c of EVENT_COLUMNS) values.push(c === 'amount' ? (e.amount ?? 0) : (e[c] ?? null));
      await trx.executeQuery(CompiledQuery.raw(text, values));
    }
  }
}
/** Events read and removed per round when forgetting a link, so memory stays flat for big links. */
const FORGET_PAGE = 5000;

async function write(trx: Kysely<Database>, events: readonly StoredEvent[], texts: SqlTexts, dialect: Dialect): Promise<void> {
  await insertEvents(trx, events, texts, dialect);
  await applyRollupDeltas(trx, rollupDeltas(events), texts);
}

/** The events one `forget` removes: a link's, or a customer's leads and sales. */
type ForgetTarget = { column: 'link_id'; value: string } | { column: 'customer_id'; value: string };

async function forgetOne(trx: Kysely<Database>, workspaceId: string, target: ForgetTarget, texts: SqlTexts): Promise<number> {
  let removed = 0;
  for (;;) {
    const rows = await trx
      .selectFrom('events')
      .selectAll()
      .where(target.column, '=', target.value)
      .where('workspace_id', '=', workspaceId)
      .orderBy('timestamp')
      .limit(FORGET_PAGE)
      .execute();
    if (!rows.length) break;
    const deltas = rollupDeltas(rows);
    for (const r of [...deltas.hourly, ...deltas.daily]) {
      r.clicks = -r.clicks;
      r.leads = -r.leads;
      r.sales = -r.sales;
      r.sale_amount = -r.sale_amount;
    }
    await applyRollupDeltas(trx, deltas, texts);
    const ids = rows.map((r) => r.id);
    for (let i = 0; i < ids.length; i += CHUNK) {
      await trx
        .deleteFrom('events')
        .where('workspace_id', '=', workspaceId)
        .where(target.column, '=', target.value)
        .where('id', 'in', ids.slice(i, i + CHUNK))
        .execute();
    }
    removed += rows.length;
  }
  return removed;
}

async function forget(trx: Kysely<Database>, workspaceId: string, targets: readonly ForgetTarget[], texts: SqlTexts): Promise<number> {
  let removed = 0;
  for (const target of targets) removed += await forgetOne(trx, workspaceId, target, texts);
  return removed;
}

export function createEventWriter(dialect: Dialect): EventWriter {
  const texts: SqlTexts = new Map();
  return {
    async append(trx, events) {
      if (!events.length) return;
      if (trx.isTransaction) return write(trx, events, texts, dialect);
      await trx.transaction().execute((t) => write(t, events, texts, dialect));
    },
    async appendUnrolled(trx, events) {
      if (events.length) await insertEvents(trx, events, texts, dialect);
    },
    async rollUp(trx, events) {
      if (events.length) await applyRollupDeltas(trx, rollupDeltas(events), texts);
    },
    async forgetLinks(trx, workspaceId, linkIds) {
      if (!linkIds.length) return 0;
      const targets = [...new Set(linkIds)].map((value) => ({ column: 'link_id' as const, value }));
      if (trx.isTransaction) return forget(trx, workspaceId, targets, texts);
      return trx.transaction().execute((t) => forget(t, workspaceId, targets, texts));
    },
    async forgetCustomer(trx, workspaceId, customerId) {
      // A customer's events are leads and sales only: clicks carry no customer id.
      const targets = [{ column: 'customer_id' as const, value: customerId }];
      if (trx.isTransaction) return forget(trx, workspaceId, targets, texts);
      return trx.transaction().execute((t) => forget(t, workspaceId, targets, texts));
    },
  };
}
