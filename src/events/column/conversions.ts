/**
 * The `ConversionStore` of a column store, on the main thread: leads and sales in the metadata
 * database's `events` table, in the caller's transaction (metadata-events.ts says why there),
 * read by the SQL store's look-ups as they are, and erased there with the hand-off row the column
 * store's half needs (erasure.ts). Nothing here talks to the log thread inside a transaction:
 * `afterCommit` hands over what committed (ids to copy, hand-offs to apply) once the caller's
 * transaction is over.
 *
 * @example
 * const conversions = createColumnConversions({ database, log: ctx.events });
 * await db.transaction().execute((trx) => conversions.append([lead], trx));
 * await conversions.afterCommit(); // copied into the column store, within a bound
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { OpenDatabase } from '../../db/open.js';
import type { SqlTexts } from '../../db/sql-texts.js';
import type { ConversionStore, EventLog } from '../event-store.js';
import { createLinkCounters } from '../counters.js';
import { insertEvents } from '../sql/event-writer.js';
import { createSqlEventStore } from '../sql/store.js';
import { eraseMetadata } from './erasure.js';
import { assertConversions } from '../rows.js';
import { markCredits, markSaleIds } from './credit-copies.js';

export interface ColumnConversionsOptions {
  database: Pick<OpenDatabase, 'db' | 'dialect'>;
  /** The event log (the client of the log thread), told after the commit. */
  log: Pick<EventLog, 'copyConversions' | 'applyErasures'>;
  /**
   * The log keeps a copy of the credits in its file (DuckDB): each change of a sale's credits is
   * marked in its transaction (credit-copies.ts). Default true; ClickHouse reads them here.
   */
  copiesCredits?: boolean;
}

export function createColumnConversions(options: ColumnConversionsOptions): ConversionStore<Kysely<Database>> {
  const { dialect } = options.database;
  const { log } = options;
  const copies = options.copiesCredits ?? true;
  const texts: SqlTexts = new Map();
  const counters = createLinkCounters(dialect);
  const metadata = createSqlEventStore({ database: options.database });
  // Written in transactions that may not have committed yet: handed over by the next `afterCommit`
  // (an id whose transaction rolled back is looked for a while, then dropped: feed.ts).
  let toCopy: string[] = [];
  let erasures = false;

  return {
    async append(events, tx) {
      assertConversions(events);
      if (!events.length) return;
      await insertEvents(tx, events, texts, dialect);
      for (const e of events) toCopy.push(e.id);
    },
    async afterCommit() {
      const ids = toCopy;
      const erase = erasures;
      toCopy = [];
      erasures = false;
      // Committed either way: what fails here the log's upkeep round does within a second or so
      // (hand-offs), or its catch-up (copies).
      if (erase) await log.applyErasures().catch(() => undefined);
      if (ids.length) await log.copyConversions(ids).catch(() => undefined);
    },
    latestLead: metadata.latestLead,
    hasAnyLead: metadata.hasAnyLead,
    leadNamesSince: metadata.leadNamesSince,
    saleByInvoice: metadata.saleByInvoice,
    hasSaleOnLink: metadata.hasSaleOnLink,
    isDuplicateInvoice: metadata.isDuplicateInvoice,
    // Credits are written in the metadata database for every store (sql/credits.ts); DuckDB's
    // file gets a copy of each change, marked here in the change's transaction.
    customerJourney: metadata.customerJourney,
    async replaceCredits(saleIds, credits, tx) {
      await metadata.replaceCredits(saleIds, credits, tx);
      if (!copies) return;
      const written = credits.map((c) => ({ sale_id: c.sale_id, workspace_id: c.workspace_id }));
      await (saleIds.length ? markSaleIds(tx, saleIds, written) : markCredits(tx, written));
    },
    salesAfter: metadata.salesAfter,
    creditBackfill: metadata.creditBackfill,
    saveCreditBackfill: metadata.saveCreditBackfill,
    queueRecompute: metadata.queueRecompute,
    queuedRecomputes: metadata.queuedRecomputes,
    async dequeueRecomputes(saleIds, tx) {
      // A queued sale that is gone has its copy's rows deleted (its credits were deleted when queued).
      if (copies) await markSaleIds(tx, saleIds);
      await metadata.dequeueRecomputes(saleIds, tx);
    },
    // A customer's events are its leads and sales, all of them here: the column store's half is
    // a delete by customer id, no read of it needed for the counters.
    async forgetCustomer(workspaceId, customerId, tx) {
      const n = await eraseMetadata(tx, counters, { workspaceId, column: 'customer_id', values: [customerId] }, []);
      erasures = true;
      return n.leads + n.sales;
    },
  };
}
