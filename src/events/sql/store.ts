/**
 * The event log on SQL (SQLite and PostgreSQL through `Dialect`), both interfaces over one
 * database (`ConversionStore` and `EventLog`: the main thread builds one for its transactions,
 * the log thread one for the log): events in the `events` table,
 * summarised in the rollups (rollup-spec.ts) that most aggregates read, both written in the same
 * transaction. Reads that can take long (aggregates, pages, scope listings) go through the SQL
 * runner, on a worker thread for a SQLite file; point look-ups run on the caller's connection or
 * transaction. A click batch commits with its id (`click_batches`) and, on the log thread, with
 * its counting (../click-log.ts, `inline`).
 *
 * @example
 * const runner = createSqlRunner(database);
 * const events = createSqlEventStore({ database, runner });
 * await events.append(rows);                     // its own transaction (EventLog)
 * await db.transaction().execute((trx) => events.append(rows, trx)); // or the caller's (ConversionStore)
 * await events.clickLog.store('b1', clicks, count); // once per batch id, counted in the same transaction
 */
import { CompiledQuery, type Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { OpenDatabase } from '../../db/open.js';
import type { ConversionStore, EventLog, EventRow, StoredEvent } from '../event-store.js';
import { createEventWriter } from './event-writer.js';
import { recordBatchOnce, type ClickLog } from '../click-log.js';
import { rowsOf } from '../batch/wide-rows.js';
import { aggregateParts } from './aggregate.js';
import { eventPageQuery } from './aggregate-sql.js';
import { scopeIdsQuery } from './link-scope.js';
import { buyerConversionsQuery, splitBuyerRows } from './buyer-conversions.js';
import { inProcessRunner, type SqlRunner } from './sql-runner.js';
import { expireEvents, expireRollups } from './expire.js';
import { creditAggregateQuery, creditBackfill, creditRows, customerJourney, dequeueRecomputes, queuedRecomputes, queueRecompute, replaceCredits, salesAfter, saveCreditBackfill } from './credits.js';

export interface SqlEventStoreOptions {
  database: Pick<OpenDatabase, 'db' | 'dialect'>;
  /** Where aggregates, pages and scope listings run (default: on `database.db`, in this thread). */
  runner?: SqlRunner;
  /** When false every aggregate reads the raw events: tests compare both paths, the benchmark times both. */
  useRollups?: boolean;
}

/**
 * The SQL store: both interfaces (an append takes the caller's transaction when given one), plus
 * its click batches as the fold sees them. Nothing needs handing over after a commit: the log
 * reads the same table.
 */
export interface SqlEventStore extends Omit<ConversionStore<Kysely<Database>>, 'append'>, Omit<EventLog, 'append'> {
  append(events: readonly StoredEvent[], tx?: Kysely<Database>): Promise<void>;
  readonly clickLog: Extract<ClickLog, { folding: 'inline' }>;
}

/** Rows per lookup of stored click ids, far below both engines' bound-value limits. */
const CLICK_ID_CHUNK = 1000;

export function createSqlEventStore(options: SqlEventStoreOptions): SqlEventStore {
  const { db, dialect } = options.database;
  const runner = options.runner ?? inProcessRunner(db);
  const useRollups = options.useRollups ?? true;
  const writer = createEventWriter(dialect);

  async function one<T>(query: CompiledQuery): Promise<T[]> {
    const [rows] = await runner.run([query]);
    return rows as T[];
  }

  // Served by events_customer (workspace_id, customer_id, kind, timestamp).
  const customerEvents = (handle: Kysely<Database>, workspaceId: string, customerId: string, kind: 'lead' | 'sale') =>
    handle.selectFrom('events').where('workspace_id', '=', workspaceId).where('customer_id', '=', customerId).where('kind', '=', kind);

  const clickLog: SqlEventStore['clickLog'] = {
    folding: 'inline',
    store: (batchId, clicks, count) =>
      db.transaction().execute(async (trx) => {
        if (!(await recordBatchOnce(trx, batchId))) return false;
        // This store keeps wide rows: written from the columns.
        await writer.append(trx, rowsOf(clicks));
        await count?.(trx, clicks);
        return true;
      }),
    async forgetBatchIds(before) {
      await db.deleteFrom('click_batches').where('appended_at', '<', before).execute();
    },
  };

  return {
    clickLog,

    async append(events: readonly StoredEvent[], tx?: Kysely<Database>) {
      await writer.append(tx ?? db, events);
    },

    async appendClicks(batchId, clicks) {
      await clickLog.store(batchId, clicks);
    },
    afterCommit: async () => undefined,
    copyConversions: async () => undefined,
    applyErasures: async () => 0,

    findClick: (workspaceId, clickId) =>
      db
        .selectFrom('events')
        .selectAll()
        .where('click_id', '=', clickId)
        .where('kind', '=', 'click')
        .where('workspace_id', '=', workspaceId)
        .limit(1)
        .executeTakeFirst() as Promise<EventRow | undefined>,

    // No workspace filter: click ids are random and unique service-wide; this only tells a retried
    // flush what an earlier attempt committed.
    async existingClickIds(clickIds) {
      const out: string[] = [];
      for (let i = 0; i < clickIds.length; i += CLICK_ID_CHUNK) {
        const rows = await db
          .selectFrom('events')
          .select('click_id')
          .where('kind', '=', 'click')
          .where('click_id', 'in', clickIds.slice(i, i + CLICK_ID_CHUNK))
          .execute();
        for (const r of rows) out.push(r.click_id);
      }
      return out;
    },

    latestLead(workspaceId, customerId, eventName, tx) {
      let q = customerEvents(tx ?? db, workspaceId, customerId, 'lead').selectAll();
      if (eventName) q = q.where('event_name', '=', eventName);
      return q.orderBy('timestamp', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst() as Promise<EventRow | undefined>;
    },

    async hasAnyLead(workspaceId, customerId, tx) {
      return !!(await customerEvents(tx ?? db, workspaceId, customerId, 'lead').select('id').limit(1).executeTakeFirst());
    },

    async leadNamesSince(workspaceId, customerId, since, tx) {
      const rows = await customerEvents(tx ?? db, workspaceId, customerId, 'lead').select('event_name').distinct().where('timestamp', '>=', since).execute();
      return rows.map((r) => r.event_name).filter((n): n is string => n !== null);
    },

    saleByInvoice: (workspaceId, invoiceId, tx) =>
      (tx ?? db)
        .selectFrom('events')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('invoice_id', '=', invoiceId)
        .where('kind', '=', 'sale')
        .limit(1)
        .executeTakeFirst() as Promise<EventRow | undefined>,

    async hasSaleOnLink(workspaceId, customerId, linkId, tx) {
      return !!(await customerEvents(tx ?? db, workspaceId, customerId, 'sale').select('id').where('link_id', '=', linkId).limit(1).executeTakeFirst());
    },

    // One sale per invoice id and workspace is the unique index events_invoice (migration 0001).
    isDuplicateInvoice: (err) => dialect.isUniqueViolation(err),

    customerJourney: (workspaceId, customerId, since, tx) => customerJourney(tx ?? db, dialect, workspaceId, customerId, since),
    replaceCredits: (saleIds, credits, tx) => replaceCredits(tx, saleIds, credits),
    salesAfter: (after, limit, tx) => salesAfter(tx ?? db, after, limit),
    creditBackfill: (tx) => creditBackfill(tx ?? db),
    saveCreditBackfill: (state, now, tx) => saveCreditBackfill(tx, state, now),
    queueRecompute: (workspaceId, customerIds, since, tx, except) => queueRecompute(tx, workspaceId, customerIds, since, Date.now(), except),
    queuedRecomputes: (limit, tx) => queuedRecomputes(tx ?? db, limit),
    dequeueRecomputes: (saleIds, tx) => dequeueRecomputes(tx, saleIds),

    async scopeLinkIds(input, max) {
      return (await one<{ id: string }>(scopeIdsQuery(db, input, max))).map((r) => r.id);
    },

    aggregate: (spec, range, boundaries) =>
      aggregateParts({ db, dialect, runner, useRollups }, spec, range, boundaries),

    page: (spec, range, page) => one<EventRow>(eventPageQuery(db, dialect, spec, range, page)),

    buyerConversions: async (spec, range, since) =>
      splitBuyerRows(await one<Record<string, unknown>>(buyerConversionsQuery(db, dialect, spec, range, since)), spec.group.length),

    async creditAggregate(spec, range, model) {
      const query = creditAggregateQuery(db, dialect, spec, range, model);
      return query ? creditRows(await one<Record<string, unknown>>(query), spec.group.length) : [];
    },

    forgetLinks: (workspaceId, linkIds) => writer.forgetLinks(db, workspaceId, linkIds),
    forgetCustomer: (workspaceId, customerId, tx) => writer.forgetCustomer(tx, workspaceId, customerId),
    forgetIp: (ip) => writer.forgetEverywhere(db, 'ip', ip),
    forgetClick: (clickId) => writer.forgetEverywhere(db, 'click_id', clickId),

    expire: (before, limit) => expireEvents(db, before, limit),
    expireSummaries: (before, limit) => expireRollups(db, before, limit),
  };
}
