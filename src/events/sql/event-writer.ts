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
import { EVENT_COLUMNS, type EventRow, type ForgetCounts, type ForgetResult, type StoredEvent } from '../event-store.js';
import { createLinkCounters, type LinkCounters } from '../counters.js';
import type { Dialect } from '../../db/dialect.js';
import { applyRollupDeltas, rollupDeltas } from './rollup-deltas.js';
import { sqlText, type SqlTexts } from '../../db/sql-texts.js';
import { eraseCredits } from './credits.js';

export type { StoredEvent } from '../event-store.js';

export interface EventWriter {
  /**
   * Appends events and adds them to the rollups inside the caller's transaction. Given the plain
   * database instead of a transaction, it opens one of its own.
   */
  append(trx: Transaction<Database> | Kysely<Database>, events: readonly StoredEvent[]): Promise<void>;
  /**
   * Adds events already stored without rollups to the rollups, in the caller's transaction: the
   * clicks an earlier version stored a second before it folded them (upgrades/fold-clicks.ts).
   */
  rollUp(trx: Transaction<Database>, events: readonly StoredEvent[]): Promise<void>;
  /**
   * Deletes every event of these links and takes them out of the rollups, in the caller's
   * transaction (or its own). For link deletion: analytics count every stored event, so a deleted
   * link's clicks stay in the workspace's figures until they are forgotten. Returns the number of
   * events removed.
   */
  forgetLinks(trx: Transaction<Database> | Kysely<Database>, workspaceId: string, linkIds: readonly string[]): Promise<number>;
  /**
   * Deletes the customer's leads and sales, takes them out of the rollups and the links' `leads`,
   * `sales`, `saleAmount` and `conversions`; returns how many.
   */
  forgetCustomer(trx: Transaction<Database> | Kysely<Database>, workspaceId: string, customerId: string): Promise<number>;
  /**
   * Deletes every event, in any workspace, whose stored `ip` or `click_id` is `value`, with the
   * rollups and link counters.
   */
  forgetEverywhere(trx: Transaction<Database> | Kysely<Database>, column: 'ip' | 'click_id', value: string): Promise<ForgetResult>;
}

/** Rows per delete statement when forgetting a link. */
const CHUNK = 500;

/** Fails to compile when the table's row (db/tables.ts) and the event log's row (event-store.ts) part ways. */
const sameRow: [EventsTable, EventRow] extends [EventRow, EventsTable] ? true : never = true;
void sameRow;

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

/**
 * The events one `forget` removes: a link's or a customer's (in one workspace), or every event
 * carrying an address or a click id (in any workspace: the operator's erasure, src/privacy/).
 */
type ForgetTarget =
  | { workspaceId: string; column: 'link_id' | 'customer_id'; value: string }
  | { workspaceId?: undefined; column: 'ip' | 'click_id'; value: string };

interface ForgetOptions {
  /** Subtract the removed events from the link counters too (not for links being deleted). */
  counters?: LinkCounters;
}

function selectTarget(trx: Kysely<Database>, target: ForgetTarget) {
  let q = trx.selectFrom('events').where(target.column, '=', target.value);
  if (target.workspaceId !== undefined) q = q.where('workspace_id', '=', target.workspaceId);
  return q;
}

async function forgetOne(trx: Kysely<Database>, target: ForgetTarget, texts: SqlTexts, options: ForgetOptions): Promise<ForgetCounts> {
  const removed: ForgetCounts = { clicks: 0, leads: 0, sales: 0 };
  const sold = new Map<string, { workspaceId: string; customerId: string; linkId: string }>();
  for (;;) {
    const rows = await selectTarget(trx, target).selectAll().orderBy('timestamp').limit(FORGET_PAGE).execute();
    if (!rows.length) break;
    const deltas = rollupDeltas(rows);
    for (const r of [...deltas.hourly, ...deltas.daily]) {
      r.clicks = -r.clicks;
      r.leads = -r.leads;
      r.sales = -r.sales;
      r.sale_amount = -r.sale_amount;
    }
    await applyRollupDeltas(trx, deltas, texts);
    if (options.counters) await options.counters.subtractEvents(trx, rows);
    for (const [workspaceId, ids] of idsByWorkspace(rows)) {
      for (let i = 0; i < ids.length; i += CHUNK) {
        await trx
          .deleteFrom('events')
          .where('workspace_id', '=', workspaceId)
          .where(target.column, '=', target.value)
          .where('id', 'in', ids.slice(i, i + CHUNK))
          .execute();
      }
    }
    // Their credits in the same transaction: erased sales' go, sales credited to an erased touch are recomputed.
    await eraseCredits(trx, rows, Date.now());
    for (const r of rows) {
      if (r.kind === 'click') removed.clicks++;
      else if (r.kind === 'lead') removed.leads++;
      else {
        removed.sales++;
        if (r.customer_id) sold.set(`${r.workspace_id}\u0000${r.customer_id}\u0000${r.link_id}`, { workspaceId: r.workspace_id, customerId: r.customer_id, linkId: r.link_id });
      }
    }
  }
  // A link's `conversions` counts customers with a sale on it: one less for each whose last sale there went.
  if (options.counters) {
    for (const c of sold.values()) {
      const left = await trx.selectFrom('events').select('id').where('workspace_id', '=', c.workspaceId).where('customer_id', '=', c.customerId)
        .where('kind', '=', 'sale').where('link_id', '=', c.linkId).limit(1).executeTakeFirst();
      if (!left) await options.counters.subtractConversion(trx, c.workspaceId, c.linkId);
    }
  }
  return removed;
}

function idsByWorkspace(rows: readonly { workspace_id: string; id: string }[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const r of rows) {
    const ids = out.get(r.workspace_id);
    if (ids) ids.push(r.id);
    else out.set(r.workspace_id, [r.id]);
  }
  return out;
}

async function forget(trx: Kysely<Database>, targets: readonly ForgetTarget[], texts: SqlTexts, options: ForgetOptions): Promise<ForgetCounts> {
  const total: ForgetCounts = { clicks: 0, leads: 0, sales: 0 };
  for (const target of targets) {
    const n = await forgetOne(trx, target, texts, options);
    total.clicks += n.clicks;
    total.leads += n.leads;
    total.sales += n.sales;
  }
  return total;
}

const sum = (n: ForgetCounts) => n.clicks + n.leads + n.sales;

export function createEventWriter(dialect: Dialect): EventWriter {
  const texts: SqlTexts = new Map();
  const counters = createLinkCounters(dialect);
  const inTransaction = <T>(trx: Transaction<Database> | Kysely<Database>, fn: (t: Kysely<Database>) => Promise<T>): Promise<T> =>
    trx.isTransaction ? fn(trx) : trx.transaction().execute(fn);
  return {
    async append(trx, events) {
      if (!events.length) return;
      if (trx.isTransaction) return write(trx, events, texts, dialect);
      await trx.transaction().execute((t) => write(t, events, texts, dialect));
    },
    async rollUp(trx, events) {
      if (events.length) await applyRollupDeltas(trx, rollupDeltas(events), texts);
    },
    async forgetLinks(trx, workspaceId, linkIds) {
      if (!linkIds.length) return 0;
      const targets = [...new Set(linkIds)].map((value) => ({ workspaceId, column: 'link_id' as const, value }));
      return sum(await inTransaction(trx, (t) => forget(t, targets, texts, {})));
    },
    async forgetCustomer(trx, workspaceId, customerId) {
      // A customer's events are leads and sales only: clicks carry no customer id.
      const targets = [{ workspaceId, column: 'customer_id' as const, value: customerId }];
      return sum(await inTransaction(trx, (t) => forget(t, targets, texts, { counters })));
    },
    async forgetEverywhere(trx, column, value) {
      return { ...(await inTransaction(trx, (t) => forget(t, [{ column, value }], texts, { counters }))), pending: 0 };
    },
  };
}
