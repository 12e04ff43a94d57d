/**
 * The column store's share of the metadata database: the SQL `events` table (migration 0001)
 * holds every lead and sale, written in the caller's transaction, so a lead commits with its
 * customer, the unique index `events_invoice` refuses a second sale of an invoice id, and the
 * conversion look-ups read them in that transaction. It also holds, for a moment, the clicks of
 * an append that joined a caller's transaction, until they are copied (feed.ts). No rollups are
 * written here: the column store answers every aggregate.
 *
 * `createColumnMetadata` is everything of the store that works on the metadata database, joined
 * to a caller's transaction or not: appends, look-ups and erasures, which end with the column
 * store's delete (`erasure`). The log thread builds it over its engine (store.ts); the main thread
 * over the log thread (log/client.ts), for the calls that join a transaction of its own.
 *
 * @example
 * const metadata = createColumnMetadata({ database, erasure, copies: feed });
 * await db.transaction().execute((trx) => metadata.append([lead], trx)); // copied after the commit
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { OpenDatabase } from '../../db/open.js';
import type { SqlTexts } from '../../db/sql-texts.js';
import type { EventRow, EventStore, ForgetCounts, StoredEvent } from '../event-store.js';
import { createLinkCounters } from '../counters.js';
import { insertEvents } from '../sql/event-writer.js';
import { createSqlEventStore } from '../sql/store.js';
import type { EventTarget } from './column-engine.js';

/** Ids per statement, far below both engines' bound-value limits. */
export const ID_CHUNK = 1000;

// Served by events_customer (workspace_id, customer_id, kind, timestamp).
export const customerEvents = (handle: Kysely<Database>, workspaceId: string, customerId: string, kind: 'lead' | 'sale') =>
  handle.selectFrom('events').where('workspace_id', '=', workspaceId).where('customer_id', '=', customerId).where('kind', '=', kind);

/** The rows with these ids (any kind), as the metadata database holds them. */
export async function rowsByIds(db: Kysely<Database>, ids: readonly string[]): Promise<EventRow[]> {
  const out: EventRow[] = [];
  for (let i = 0; i < ids.length; i += ID_CHUNK) {
    const rows = await db.selectFrom('events').selectAll().where('id', 'in', ids.slice(i, i + ID_CHUNK)).execute();
    for (const r of rows) out.push({ ...r, timestamp: Number(r.timestamp), amount: Number(r.amount), original_amount: r.original_amount == null ? null : Number(r.original_amount) });
  }
  return out;
}

/** Deletes these clicks from the metadata database (they are in the column store now). */
export async function dropCopiedClicks(db: Kysely<Database>, ids: readonly string[]): Promise<void> {
  for (let i = 0; i < ids.length; i += ID_CHUNK) {
    await db.deleteFrom('events').where('kind', '=', 'click').where('id', 'in', ids.slice(i, i + ID_CHUNK)).execute();
  }
}

/** Leads and sales per workspace. */
export async function conversionCounts(db: Kysely<Database>): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('events')
    .select(['workspace_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('kind', '<>', 'click')
    .groupBy('workspace_id')
    .execute();
  return new Map(rows.map((r) => [r.workspace_id, Number(r.n)]));
}

/** The column store's share of an erasure: the rows it holds of a target, and their delete. */
export interface ColumnErasure {
  /** The target's events in the column store (id, workspace_id, link_id, kind, amount, customer_id). */
  erasedRows(target: EventTarget): Promise<Record<string, unknown>[]>;
  deleteEvents(target: EventTarget): Promise<number>;
}

/** Copies into the column store of what committed in the metadata database (feed.ts). */
export interface ColumnCopies {
  /** These ids committed (or will, with the caller's transaction): copy them once they have. */
  schedule(ids: readonly string[]): void;
  /** Resolves once the copies scheduled so far are done (or have failed, to be retried). */
  drain(): Promise<void>;
}

/**
 * Tracking waits this long at most for its lead or sale to reach the column store: a compaction
 * of a large week holds DuckDB's writer for longer (tens of seconds at tens of millions of events),
 * and the copy lands when it ends.
 */
export const COPY_WAIT_MS = 2000;

export type ColumnMetadata = Pick<
  EventStore<Kysely<Database>>,
  'latestLead' | 'hasAnyLead' | 'leadNamesSince' | 'saleByInvoice' | 'hasSaleOnLink' | 'isDuplicateInvoice' | 'scopeLinkIds'
  | 'forgetLinks' | 'forgetCustomer' | 'forgetIp' | 'forgetClick'
> & {
  /** Leads and sales (and clicks) written to the metadata database in `tx`, copied once it commits. */
  appendInTransaction(events: readonly StoredEvent[], tx: Kysely<Database>): Promise<void>;
  /** Waits for the copies scheduled so far, `copyWaitMs` at most. */
  copied(): Promise<void>;
};

export function createColumnMetadata(options: {
  database: Pick<OpenDatabase, 'db' | 'dialect'>;
  erasure: ColumnErasure;
  copies: ColumnCopies;
  /** How long `copied()` waits for the copies at most (default COPY_WAIT_MS). */
  copyWaitMs?: number;
}): ColumnMetadata {
  const { db, dialect } = options.database;
  const { erasure, copies } = options;
  const texts: SqlTexts = new Map();
  const counters = createLinkCounters(dialect);
  const metadata = createSqlEventStore({ database: options.database });

  /**
   * Deletes the target's events from both databases: the metadata database's rows and the link
   * counters in one transaction (the caller's, or one of its own), the column store's delete as
   * its last step. Returns the events removed, by kind, each counted once.
   */
  async function forget(target: EventTarget, tx: Kysely<Database> | undefined, correctCounters: boolean): Promise<ForgetCounts> {
    if (!target.values.length) return { clicks: 0, leads: 0, sales: 0 };
    const columnRows = await erasure.erasedRows(target);
    const run = async (trx: Kysely<Database>): Promise<ForgetCounts> => {
      let select = trx.selectFrom('events').select(['id', 'workspace_id', 'link_id', 'kind', 'amount', 'customer_id']).where(target.column, 'in', [...target.values]);
      let del = trx.deleteFrom('events').where(target.column, 'in', [...target.values]);
      if (target.workspaceId !== undefined) {
        select = select.where('workspace_id', '=', target.workspaceId);
        del = del.where('workspace_id', '=', target.workspaceId);
      }
      const metadataRows = await select.execute();
      await del.execute();
      const rows = new Map<string, { id: string; workspace_id: string; link_id: string; kind: string; amount: number; customer_id: string | null }>();
      for (const r of [...columnRows, ...metadataRows] as Record<string, unknown>[]) {
        rows.set(String(r.id), {
          id: String(r.id), workspace_id: String(r.workspace_id), link_id: String(r.link_id), kind: String(r.kind),
          amount: Number(r.amount ?? 0), customer_id: r.customer_id == null ? null : String(r.customer_id),
        });
      }
      const erased = [...rows.values()];
      if (correctCounters && erased.length) {
        await counters.subtractEvents(trx, erased);
        // A link's `conversions` counts customers with a sale on it: one less for each whose last sale there went.
        const sold = new Map<string, { workspaceId: string; customerId: string; linkId: string }>();
        for (const r of erased) {
          if (r.kind === 'sale' && r.customer_id) sold.set(`${r.workspace_id}\u0000${r.customer_id}\u0000${r.link_id}`, { workspaceId: r.workspace_id, customerId: r.customer_id, linkId: r.link_id });
        }
        for (const c of sold.values()) {
          const left = await customerEvents(trx, c.workspaceId, c.customerId, 'sale').select('id').where('link_id', '=', c.linkId).limit(1).executeTakeFirst();
          if (!left) await counters.subtractConversion(trx, c.workspaceId, c.linkId);
        }
      }
      await erasure.deleteEvents(target);
      const n: ForgetCounts = { clicks: 0, leads: 0, sales: 0 };
      for (const r of erased) {
        if (r.kind === 'click') n.clicks++;
        else if (r.kind === 'lead') n.leads++;
        else if (r.kind === 'sale') n.sales++;
      }
      return n;
    };
    return tx ? run(tx) : db.transaction().execute(run);
  }
  const total = (n: ForgetCounts) => n.clicks + n.leads + n.sales;

  return {
    async appendInTransaction(events, tx) {
      if (!events.length) return;
      // Everything commits with the caller's write in the metadata database and is copied once
      // committed (a rolled-back write leaves nothing to copy).
      await insertEvents(tx, events, texts, dialect);
      copies.schedule(events.map((e) => e.id));
    },
    // A failed copy is retried by the feed; the committed write stands.
    copied: () => {
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, options.copyWaitMs ?? COPY_WAIT_MS);
      });
      return Promise.race([copies.drain().catch(() => undefined), waited]).finally(() => clearTimeout(timer));
    },
    // Leads and sales live in the metadata database's `events` table (joined to the caller's
    // transaction): the SQL store's look-ups, invoice rule and scope listing answer them as they are.
    latestLead: metadata.latestLead,
    hasAnyLead: metadata.hasAnyLead,
    leadNamesSince: metadata.leadNamesSince,
    saleByInvoice: metadata.saleByInvoice,
    hasSaleOnLink: metadata.hasSaleOnLink,
    isDuplicateInvoice: metadata.isDuplicateInvoice,
    scopeLinkIds: metadata.scopeLinkIds,
    forgetLinks: async (workspaceId, linkIds, tx) => total(await forget({ workspaceId, column: 'link_id', values: [...new Set(linkIds)] }, tx, false)),
    forgetCustomer: async (workspaceId, customerId, tx) => total(await forget({ workspaceId, column: 'customer_id', values: [customerId] }, tx, true)),
    forgetIp: async (ip) => ({ ...(await forget({ column: 'ip', values: [ip] }, undefined, true)), pending: 0 }),
    forgetClick: async (clickId) => ({ ...(await forget({ column: 'click_id', values: [clickId] }, undefined, true)), pending: 0 }),
  };
}
