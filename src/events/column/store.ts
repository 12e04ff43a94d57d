/**
 * The event log on a column store (an engine: column-engine.ts) plus the metadata database, as
 * the log thread serves it (`EventLog`). Which facts live where (docs/architecture.md, "Column
 * event store"):
 * - clicks live only in the column store, appended a batch at a time, once by the batch's id
 *   (`clickLog`, ../click-log.ts): DuckDB numbers batches in a log of its own (`watermark`);
 *   with ClickHouse the metadata database records the batch id and counts it in the transaction
 *   whose last step is ClickHouse's insert, deduplicated by the same id (`inline`);
 * - leads and sales are written to the metadata database's `events` table in the caller's
 *   transaction (conversions.ts, on the main thread), where the conversion look-ups read them,
 *   and are copied in after the commit, idempotently by event id (`copyConversions`, feed.ts),
 *   which answers every aggregate and page;
 * - attribution credits are written in the metadata database with the sales; an engine that keeps
 *   a copy (DuckDB) gets each change after its commit (credit-copies.ts) and answers
 *   `creditAggregate` while no change of the workspace waits;
 * - link attributes stay in the metadata database: link filters become id lists here;
 * - link counters (`events/counters.ts`) stay in the metadata database; an erasure corrects them
 *   in the transaction that deletes the metadata database's rows and records a hand-off, which
 *   the column store's delete then applies (erasure.ts): never a wait on the column store inside
 *   that transaction.
 *
 * @example
 * const events = await openColumnEventStore({ database, engine: await openDuckDbEngine({ path }) });
 * await events.appendClicks('b1', columnsOf(clickRows));       // column store only
 * await events.copyConversions(['evt_1']);                     // committed in the metadata database
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { OpenDatabase } from '../../db/open.js';
import type { EventLog, EventRow, ForgetCounts, ForgetResult, LinkScope, MergedRow, StoredEvent } from '../event-store.js';
import type { SqlTexts } from '../../db/sql-texts.js';
import { insertEvents } from '../sql/event-writer.js';
import { scopeSubquery } from '../sql/link-scope.js';
import { mergeRows } from '../sql/aggregate.js';
import { toEventRow, type ColumnEngine, type EventTarget } from './column-engine.js';
import { aggregateQuery, buyerConversionsQuery, erasedRowsQuery, pageQuery, summariesAnswer, summaryQuery, type LinkIds } from './query-sql.js';
import { createFeed, type FeedOptions } from './feed.js';
import { COPY_WAIT_MS, ID_CHUNK } from './metadata-events.js';
import { applyErasures, eraseMetadata } from './erasure.js';
import { createLinkCounters } from '../counters.js';
import { createSqlEventStore } from '../sql/store.js';
import { journeyScope, splitBuyerRows } from '../sql/buyer-conversions.js';
import { creditRows, expireCredits } from '../sql/credits.js';
import { createCreditCopier } from './credit-copies.js';
import { creditAggregateQuery } from './credit-sql.js';
import { recordBatchOnce, type ClickLog } from '../click-log.js';
import { moveMetadataClicks } from '../upgrades/metadata-clicks.js';

export interface ColumnEventStoreOptions {
  database: Pick<OpenDatabase, 'db' | 'dialect'>;
  engine: ColumnEngine;
  feed?: FeedOptions;
  /** How long `copied()` waits for the copies at most (default metadata-events.ts COPY_WAIT_MS). */
  copyWaitMs?: number;
  /** The upgrade's progress line. */
  log?: (message: string, fields: Record<string, unknown>) => void;
}

export interface ColumnEventStore extends EventLog {
  readonly engine: ColumnEngine;
  readonly clickLog: ClickLog;
  /** Copies into the column store what it lacks of the metadata database's events (done at open; tests settle with it). */
  catchUp(): Promise<number>;
  /** Refills the credits' copy of the workspaces whose rows differ from the metadata database's (credit-copies.ts; at open). */
  reconcileCredits(): Promise<number>;
  /**
   * The metadata half of an erasure, committed with its hand-off and not applied (the crash
   * test stops between the halves; `applyErasures` finishes it).
   */
  eraseMetadataOnly(target: EventTarget): Promise<ForgetCounts>;
  /** Stops the feed, waits for its copies and closes the engine. */
  close(): Promise<void>;
}

/** Rows fetched per round while a page skips events of deleted links. */
const PAGE_ROUND_MIN = 100;

/**
 * Opens the store and copies what a crash between a commit and its copy left behind, after moving
 * the clicks an earlier version left in the metadata database (upgrades/metadata-clicks.ts).
 */
export async function openColumnEventStore(options: ColumnEventStoreOptions): Promise<ColumnEventStore> {
  const moved = await moveMetadataClicks(options.database.db, options.engine);
  if (moved) options.log?.('clicks an earlier version left in the metadata database are moved into the event log', { clicks: moved });
  const store = createColumnEventStore(options);
  await store.catchUp();
  // A file made before credits were copied (or restored from a backup) is filled once here.
  await store.reconcileCredits();
  return store;
}

export function createColumnEventStore(options: ColumnEventStoreOptions): ColumnEventStore {
  const { db, dialect } = options.database;
  const { engine } = options;
  const d = engine.dialect;
  const texts: SqlTexts = new Map();
  const feed = createFeed(db, engine, options.feed);
  const sqlReads = createSqlEventStore({ database: options.database });
  const counters = createLinkCounters(dialect);
  const copier = createCreditCopier(db, engine);

  /**
   * Both halves of an erasure of the log's own (erasure.ts): the column store's rows of the
   * target read first, then the metadata database's delete, the counters and the hand-off in one
   * transaction, then the hand-off applied. Returns the events removed, by kind, each once.
   */
  async function eraseHalf(target: EventTarget, correctCounters: boolean): Promise<ForgetCounts> {
    if (!target.values.length) return { clicks: 0, leads: 0, sales: 0 };
    const columnRows = await engine.query(erasedRowsQuery(d, target));
    return db.transaction().execute((trx) => eraseMetadata(trx, correctCounters ? counters : undefined, target, columnRows));
  }
  // Every upkeep round: the erasures' hand-offs, then the credits changed since (erasures mark theirs).
  const applyAll = async () => {
    const n = await applyErasures(db, { deleteEvents: (target) => engine.deleteEvents(target), settleCopies: () => feed.drain().catch(() => undefined) });
    // A failed copy keeps its marks (the next round tries again; reads use the metadata database meanwhile).
    await copier.copy().catch((err: unknown) => options.feed?.onError?.(err));
    return n;
  };
  async function forget(target: EventTarget, correctCounters: boolean): Promise<ForgetCounts> {
    const n = await eraseHalf(target, correctCounters);
    await applyAll();
    return n;
  }
  const total = (n: ForgetCounts) => n.clicks + n.leads + n.sales;
  const result = (n: ForgetCounts): ForgetResult => ({ ...n, pending: 0 });

  /** The links a scope counts, as ids, or null when it counts none. */
  async function linkIds(scope: LinkScope): Promise<LinkIds | null> {
    const resolve = async () => (await db.executeQuery<{ id: string }>(sql<{ id: string }>`${scopeSubquery(scope.input)}`.compile(db))).rows.map((r) => r.id);
    if (scope.mode === 'workspace') return { exclude: await resolve() };
    if (scope.empty) return null;
    return { include: scope.ids ?? (await resolve()) };
  }

  /** Which of these links of the workspace still exist. */
  async function existingLinks(workspaceId: string, ids: readonly string[]): Promise<Set<string>> {
    const out = new Set<string>();
    for (let i = 0; i < ids.length; i += ID_CHUNK) {
      const rows = await db.selectFrom('links').select('id').where('workspace_id', '=', workspaceId).where('id', 'in', ids.slice(i, i + ID_CHUNK)).execute();
      for (const r of rows) out.add(r.id);
    }
    return out;
  }

  const batchLog = engine.batchLog;
  const clickLog: ClickLog = batchLog
    ? {
        folding: 'watermark',
        id: batchLog.id,
        store: async (batchId, clicks) => {
          const r = await engine.appendClicks(batchId, clicks);
          return r.duplicate ? null : r.seq;
        },
        after: (seq) => batchLog.after(seq),
        forget: async (upTo, before) => void (await batchLog.forget(upTo, before)),
      }
    : {
        folding: 'inline',
        store: (batchId, clicks, count) =>
          db.transaction().execute(async (trx) => {
            if (!(await recordBatchOnce(trx, batchId))) return false;
            await count?.(trx, clicks);
            // The last step: the engine deduplicates a batch whose insert landed while this commit failed.
            await engine.appendClicks(batchId, clicks);
            return true;
          }),
        async forgetBatchIds(before) {
          await db.deleteFrom('click_batches').where('appended_at', '<', before).execute();
        },
      };

  return {
    engine,
    clickLog,
    catchUp: async () => {
      await applyAll();
      await feed.drain();
      return feed.catchUp();
    },
    reconcileCredits: () => copier.reconcile(),
    eraseMetadataOnly: (target) => eraseHalf(target, true),
    applyErasures: applyAll,
    // A failed copy is retried by the feed; the committed write stands.
    copyConversions(ids) {
      if (!ids.length) return Promise.resolve();
      feed.schedule(ids);
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, options.copyWaitMs ?? COPY_WAIT_MS);
      });
      // The sales' credits were marked in their transaction: copied after them.
      const copied = feed.drain().catch(() => undefined).then(async () => void (await copier.copy())).catch(() => undefined);
      return Promise.race([copied, waited]).finally(() => clearTimeout(timer));
    },
    scopeLinkIds: sqlReads.scopeLinkIds,
    forgetLinks: async (workspaceId, linkIds) => total(await forget({ workspaceId, column: 'link_id', values: [...new Set(linkIds)] }, false)),
    forgetIp: async (ip) => result(await forget({ column: 'ip', values: [ip] }, true)),
    forgetClick: async (clickId) => result(await forget({ column: 'click_id', values: [clickId] }, true)),

    async close() {
      feed.stop();
      await feed.drain().catch(() => undefined);
      await engine.close();
    },

    async append(events: readonly StoredEvent[]) {
      if (!events.length) return;
      const conversions = events.filter((e) => e.kind !== 'click');
      // A refused invoice id fails here, before anything reaches the column store.
      if (conversions.length) await db.transaction().execute((trx) => insertEvents(trx, conversions, texts, dialect));
      try {
        await engine.append(events);
      } catch (err) {
        // The conversions are committed: the feed copies them even though this append failed.
        if (conversions.length) feed.schedule(conversions.map((e) => e.id));
        throw err;
      }
    },

    async appendClicks(batchId, clicks) {
      await clickLog.store(batchId, clicks);
    },

    async findClick(workspaceId, clickId) {
      // A click's event id is its click id: one look-up by id (DuckDB bounds it by the time the id spells).
      const row = await engine.eventById(clickId);
      return row && row.kind === 'click' && row.workspace_id === workspaceId ? row : undefined;
    },

    // A click's event id is its click id.
    existingClickIds: (clickIds) => engine.existingIds(clickIds),

    async aggregate(spec, range, boundaries) {
      const links = await linkIds(spec.scope);
      if (!links) return [];
      const queries = [aggregateQuery(d, spec, range, links, boundaries)];
      // Summaries hold expired hours only: a range after the latest one needs no query of them.
      const latest = engine.latestSummaryBucket?.();
      const summariesMayHold = latest === undefined || (latest !== null && latest >= range.from);
      if (summariesAnswer(spec) && summariesMayHold) queries.push(summaryQuery(d, spec, range, links));
      const results = await Promise.all(queries.map((q) => engine.query(q)));
      const merged = new Map<string, MergedRow>();
      for (const rows of results) mergeRows(merged, rows, spec.group.length, 1);
      return [...merged.values()];
    },

    async page(spec, range, page) {
      const links = await linkIds(spec.scope);
      if (!links) return [];
      // Events of deleted links are left out: the column store cannot join the links, so rounds
      // of rows are checked against them until the page is full.
      const want = page.offset + page.limit;
      const round = Math.max(want, PAGE_ROUND_MIN);
      const live = new Map<string, boolean>();
      const kept: EventRow[] = [];
      for (let offset = 0; ; offset += round) {
        const rows = await engine.query(pageQuery(d, spec, range, links, { order: page.order, limit: round, offset, after: page.after }));
        const unknown = [...new Set(rows.map((r) => String(r.link_id)).filter((id) => !live.has(id)))];
        if (unknown.length) {
          const found = await existingLinks(spec.workspaceId, unknown);
          for (const id of unknown) live.set(id, found.has(id));
        }
        for (const r of rows) if (live.get(String(r.link_id))) kept.push(toEventRow(r));
        if (kept.length >= want || rows.length < round) break;
      }
      return kept.slice(page.offset, want);
    },

    async buyerConversions(spec, range, since) {
      const links = await linkIds(spec.scope);
      if (!links) return { sales: [], journeys: [] };
      const journeyLinks = (await linkIds(journeyScope(spec.workspaceId)))!;
      const rows = await engine.query(buyerConversionsQuery(d, spec, range, links, journeyLinks, since));
      return splitBuyerRows(rows, spec.group.length);
    },

    // From the file's copy while it is in step for the workspace; else the metadata database's rows (sql/credits.ts).
    async creditAggregate(spec, range, model) {
      if (!engine.credits || !(await copier.inStep(spec.workspaceId))) return sqlReads.creditAggregate(spec, range, model);
      const links = await linkIds(spec.scope);
      if (!links) return [];
      return creditRows(await engine.query(creditAggregateQuery(d, spec, range, links, model)), spec.group.length);
    },

    async expire(before, limit) {
      const { count, conversionIds } = await engine.expire(before, limit);
      // The copy first: a stop between the two leaves the file with fewer rows, which the next open's reconcile finds.
      await engine.credits?.expire(before);
      await expireCredits(db, before);
      // The expired leads and sales leave the metadata database too (the look-ups read them there).
      for (let i = 0; i < conversionIds.length; i += ID_CHUNK) {
        await db.deleteFrom('events').where('kind', '<>', 'click').where('id', 'in', conversionIds.slice(i, i + ID_CHUNK)).execute();
      }
      return count;
    },

    expireSummaries: (before, limit) => engine.expireSummaries(before, limit),
  };
}
