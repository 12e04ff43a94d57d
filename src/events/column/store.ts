/**
 * The event log on a column store (an engine: engine.ts) plus the metadata database. Which facts
 * live where (docs/architecture.md, "Column event store"):
 * - clicks live only in the column store;
 * - leads and sales are written to the metadata database's `events` table in the caller's
 *   transaction (metadata-events.ts), where the conversion look-ups read them, and are copied into
 *   the column store after the commit, idempotently by event id (feed.ts), which answers every
 *   aggregate and page;
 * - link attributes stay in the metadata database: link filters become id lists here;
 * - link counters (`events/counters.ts`) stay in the metadata database; erasures correct them in
 *   the transaction that deletes the metadata database's rows, with the column store's delete as
 *   that transaction's last step, so a failed delete rolls everything back.
 *
 * @example
 * const events = await openColumnEventStore({ database, engine: await openDuckDbEngine({ path }) });
 * await events.append(clickRows);                               // column store only
 * await db.transaction().execute((trx) => events.append([lead], trx)); // metadata first, copied after
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { OpenDatabase } from '../../db/open.js';
import type { EventRow, EventStore, ForgetCounts, LinkScope, MergedRow, StoredEvent } from '../event-store.js';
import { createLinkCounters } from '../counters.js';
import type { SqlTexts } from '../../db/sql-texts.js';
import { insertEvents } from '../sql/event-writer.js';
import { createSqlEventStore } from '../sql/store.js';
import { scopeSubquery } from '../sql/link-scope.js';
import { mergeRows } from '../sql/aggregate.js';
import { toEventRow, type ColumnEngine, type EventTarget } from './engine.js';
import { aggregateQuery, erasedRowsQuery, pageQuery, summariesAnswer, summaryQuery, type LinkIds } from './query-sql.js';
import { createFeed, type FeedOptions } from './feed.js';
import { customerEvents, ID_CHUNK } from './metadata-events.js';

export interface ColumnEventStoreOptions {
  database: Pick<OpenDatabase, 'db' | 'dialect'>;
  engine: ColumnEngine;
  feed?: FeedOptions;
  /** How long `copied()` waits for the copies at most (default COPY_WAIT_MS). */
  copyWaitMs?: number;
}

/**
 * Tracking waits this long at most for its lead or sale to reach the column store: a compaction
 * of a large week holds DuckDB's writer for longer (tens of seconds at tens of millions of events),
 * and the copy lands when it ends.
 */
export const COPY_WAIT_MS = 2000;

export interface ColumnEventStore extends EventStore<Kysely<Database>> {
  readonly engine: ColumnEngine;
  /** Copies into the column store what it lacks of the metadata database's events (done at open; tests settle with it). */
  catchUp(): Promise<number>;
  /** Moves clicks left in the metadata database (feed.ts `moveClicks`); app.ts runs it on a timer. */
  moveClicks(): Promise<number>;
  /** Stops the feed, waits for its copies and closes the engine. */
  close(): Promise<void>;
}

/** Rows fetched per round while a page skips events of deleted links. */
const PAGE_ROUND_MIN = 100;

/** Opens the store and copies what a crash between a commit and its copy left behind. */
export async function openColumnEventStore(options: ColumnEventStoreOptions): Promise<ColumnEventStore> {
  const store = createColumnEventStore(options);
  await store.catchUp();
  return store;
}

export function createColumnEventStore(options: ColumnEventStoreOptions): ColumnEventStore {
  const { db, dialect } = options.database;
  const { engine } = options;
  const d = engine.dialect;
  const texts: SqlTexts = new Map();
  const counters = createLinkCounters(dialect);
  const metadata = createSqlEventStore({ database: options.database });
  const feed = createFeed(db, engine, options.feed);

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

  /**
   * Deletes the target's events from both databases: the metadata database's rows and the link
   * counters in one transaction (the caller's, or one of its own), the column store's delete as
   * its last step. Returns the events removed, by kind, each counted once.
   */
  async function forget(target: EventTarget, tx: Kysely<Database> | undefined, correctCounters: boolean): Promise<ForgetCounts> {
    if (!target.values.length) return { clicks: 0, leads: 0, sales: 0 };
    const columnRows = await engine.query(erasedRowsQuery(d, target));
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
      await engine.deleteEvents(target);
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
    engine,
    catchUp: async () => {
      await feed.drain();
      return feed.catchUp();
    },
    moveClicks: () => feed.moveClicks(),
    // A failed copy is retried by the feed; the committed write stands.
    copied: () => {
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, options.copyWaitMs ?? COPY_WAIT_MS);
      });
      return Promise.race([feed.drain().catch(() => undefined), waited]).finally(() => clearTimeout(timer));
    },

    async close() {
      feed.stop();
      await feed.drain().catch(() => undefined);
      await engine.close();
    },

    async append(events: readonly StoredEvent[], tx?: Kysely<Database>) {
      if (!events.length) return;
      if (tx) {
        // Joined to the caller's write: everything commits with it in the metadata database and is
        // copied once committed (a rolled-back write leaves nothing to copy).
        await insertEvents(tx, events, texts, dialect);
        feed.schedule(events.map((e) => e.id));
        return;
      }
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

    async findClick(workspaceId, clickId) {
      // A click's event id is its click id: one look-up by id (DuckDB bounds it by the time the id spells).
      const row = await engine.eventById(clickId);
      if (row) return row.kind === 'click' && row.workspace_id === workspaceId ? row : undefined;
      // Not moved yet from the metadata database (feed.ts): one look-up through events_click.
      const pending = await db.selectFrom('events').selectAll().where('click_id', '=', clickId).where('kind', '=', 'click')
        .where('workspace_id', '=', workspaceId).limit(1).executeTakeFirst();
      return pending ? (toEventRow(pending as unknown as Record<string, unknown>)) : undefined;
    },

    async existingClickIds(clickIds) {
      const found = new Set(await engine.existingIds(clickIds));
      // And those not moved yet from the metadata database (feed.ts).
      const rest = clickIds.filter((id) => !found.has(id));
      for (let i = 0; i < rest.length; i += ID_CHUNK) {
        const rows = await db.selectFrom('events').select('click_id').where('kind', '=', 'click').where('click_id', 'in', rest.slice(i, i + ID_CHUNK)).execute();
        for (const r of rows) found.add(r.click_id);
      }
      return [...found];
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

    async aggregate(spec, range) {
      const links = await linkIds(spec.scope);
      if (!links) return [];
      const queries = [aggregateQuery(d, spec, range, links)];
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

    forgetLinks: async (workspaceId, linkIds, tx) => total(await forget({ workspaceId, column: 'link_id', values: [...new Set(linkIds)] }, tx, false)),
    forgetCustomer: async (workspaceId, customerId, tx) => total(await forget({ workspaceId, column: 'customer_id', values: [customerId] }, tx, true)),
    forgetIp: async (ip) => ({ ...(await forget({ column: 'ip', values: [ip] }, undefined, true)), pending: 0 }),
    forgetClick: async (clickId) => ({ ...(await forget({ column: 'click_id', values: [clickId] }, undefined, true)), pending: 0 }),

    async expire(before, limit) {
      const { count, conversionIds } = await engine.expire(before, limit);
      // The expired leads and sales leave the metadata database too (the look-ups read them there).
      for (let i = 0; i < conversionIds.length; i += ID_CHUNK) {
        await db.deleteFrom('events').where('kind', '<>', 'click').where('id', 'in', conversionIds.slice(i, i + ID_CHUNK)).execute();
      }
      return count;
    },

    expireSummaries: (before, limit) => engine.expireSummaries(before, limit),
  };
}
