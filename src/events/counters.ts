/**
 * The event log's tallies kept on links (`clicks`, `lastClicked`, `leads`, `sales`, `saleAmount`,
 * `conversions`) and the workspace's monthly `usage` they add up to. Only this module updates
 * them; whoever stores or erases events (the click fold, tracking, erasures, the API migration)
 * calls it inside that transaction, so a counter never disagrees with the events it counts. The
 * links API reads them as part of a link.
 *
 * @example
 * const counters = createLinkCounters(dialect);
 * await db.transaction().execute(async (trx) => {
 *   await counters.addClicks(trx, clickBumps(rows), usageBumps(rows));
 * });
 */
import { CompiledQuery, sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../db/tables.js';
import type { Dialect } from '../db/dialect.js';
import { sqlText, type SqlTexts } from '../db/sql-texts.js';

/** Clicks of one link in a batch, and its newest click. */
export interface LinkBump {
  id: string;
  clicks: number;
  lastClicked: number;
}

/** Events of one workspace in a batch (its monthly usage). */
export interface WorkspaceBump {
  id: string;
  clicks: number;
}

/** What the counters need of a click event. */
interface CountedClick {
  workspace_id: string;
  link_id: string;
  timestamp: number;
}

/** Per-link click counts and newest click of some click rows. */
export function linkBumps(rows: readonly CountedClick[]): LinkBump[] {
  const perLink = new Map<string, LinkBump>();
  for (const row of rows) {
    const ts = Number(row.timestamp);
    const link = perLink.get(row.link_id);
    if (link) {
      link.clicks++;
      if (ts > link.lastClicked) link.lastClicked = ts;
    } else perLink.set(row.link_id, { id: row.link_id, clicks: 1, lastClicked: ts });
  }
  return [...perLink.values()];
}

/** Per-workspace counts of some click rows. */
export function workspaceBumps(rows: readonly CountedClick[]): WorkspaceBump[] {
  const perWorkspace = new Map<string, WorkspaceBump>();
  for (const row of rows) {
    const ws = perWorkspace.get(row.workspace_id);
    if (ws) ws.clicks++;
    else perWorkspace.set(row.workspace_id, { id: row.workspace_id, clicks: 1 });
  }
  return [...perWorkspace.values()];
}

/**
 * Counter updates go out in chunks of these sizes only, so each statement text is compiled once
 * and (on SQLite, db/statement-cache.ts) prepared once: a flush touches a different number of
 * links every time, and a text of its own per flush cost a fresh compile and parse each time.
 * 3 bound values × 512 rows stays far below both engines' limits.
 */
const BUMP_SIZES = [512, 128, 32, 8, 2, 1];

/** Splits `rows` into consecutive chunks of the sizes above. */
function* fixedChunks<T>(rows: readonly T[]): Generator<T[]> {
  let i = 0;
  for (const size of BUMP_SIZES) for (; rows.length - i >= size; i += size) yield rows.slice(i, i + size);
}

const linkBumpSql = (orFail: RawBuilder<unknown>, values: RawBuilder<unknown>[]) => sql`update ${orFail} links set
    clicks = links.clicks + v.column2,
    last_clicked = case when links.last_clicked is null or links.last_clicked < v.column3 then v.column3 else links.last_clicked end
  from (values ${sql.join(values)}) as v
  where links.id = v.column1`;

const workspaceBumpSql = (orFail: RawBuilder<unknown>, values: RawBuilder<unknown>[]) => sql`update ${orFail} workspaces set usage = workspaces.usage + v.column2
  from (values ${sql.join(values)}) as v
  where workspaces.id = v.column1`;

export interface LinkCounters {
  /**
   * `links.clicks += n`, `last_clicked = max(last_clicked, t)` and `workspaces.usage += n`, one
   * statement per chunk (UPDATE … FROM VALUES runs on SQLite ≥ 3.33 and PostgreSQL alike), so a
   * flush touching 2,000 links costs a dozen statements, not 2,000. `or fail` on SQLite
   * (Dialect.orFail): the caller's transaction is rolled back if this throws.
   */
  addClicks(trx: Kysely<Database>, links: readonly LinkBump[], workspaces: readonly WorkspaceBump[]): Promise<void>;
  addLeads(trx: Kysely<Database>, workspaceId: string, linkId: string, count: number): Promise<void>;
  /** One sale of `amount` USD cents; `conversion` when it is the customer's first sale on the link. */
  addSale(trx: Kysely<Database>, workspaceId: string, linkId: string, amount: number, conversion: boolean): Promise<void>;
  /** A refund of part of a sale on the link: `saleAmount` shows net revenue; `sales` keeps counting the sale. */
  addRefund(trx: Kysely<Database>, workspaceId: string, linkId: string, amount: number): Promise<void>;
  /**
   * Erasure (events/sql/event-writer.ts): takes erased events off their links' `clicks`, `leads`,
   * `sales` and `saleAmount`, one statement per link (erasures are rare and small). Workspaces'
   * monthly `usage` keeps them: it counts what was recorded that month. `lastClicked` stays.
   */
  subtractEvents(trx: Kysely<Database>, rows: readonly ErasedEvent[]): Promise<void>;
  /** One customer fewer with a sale on the link (their last sale there was erased). */
  subtractConversion(trx: Kysely<Database>, workspaceId: string, linkId: string): Promise<void>;
}

/** What the counters need of an erased event. */
export interface ErasedEvent {
  workspace_id: string;
  link_id: string;
  kind: string;
  amount: number;
}

/** Per-link totals of erased events (pure: unit-tested). */
export function erasedTotals(rows: readonly ErasedEvent[]): { workspaceId: string; linkId: string; clicks: number; leads: number; sales: number; saleAmount: number }[] {
  const perLink = new Map<string, { workspaceId: string; linkId: string; clicks: number; leads: number; sales: number; saleAmount: number }>();
  for (const r of rows) {
    const key = `${r.workspace_id}\u0000${r.link_id}`;
    let t = perLink.get(key);
    if (!t) perLink.set(key, (t = { workspaceId: r.workspace_id, linkId: r.link_id, clicks: 0, leads: 0, sales: 0, saleAmount: 0 }));
    if (r.kind === 'click') t.clicks++;
    else if (r.kind === 'lead') t.leads++;
    else if (r.kind === 'sale') {
      // A refund (negative amount) took only from `saleAmount` (integrations/refunds.ts).
      if (Number(r.amount) >= 0) t.sales++;
      t.saleAmount += Number(r.amount);
    }
  }
  return [...perLink.values()];
}

export function createLinkCounters(dialect: Dialect): LinkCounters {
  // Compiled SQL texts by table and chunk size (one set per engine).
  const texts: SqlTexts = new Map();
  return {
    async addClicks(trx, links, workspaces) {
      for (const part of fixedChunks(links)) {
        const text = sqlText(texts, `links:${part.length}`, () =>
          linkBumpSql(dialect.orFail, part.map((l) => sql`(${l.id}, cast(${l.clicks} as bigint), cast(${l.lastClicked} as bigint))`)).compile(trx).sql,
        );
        const values: unknown[] = [];
        for (const l of part) values.push(l.id, l.clicks, l.lastClicked);
        await trx.executeQuery(CompiledQuery.raw(text, values));
      }
      for (const part of fixedChunks(workspaces)) {
        const text = sqlText(texts, `workspaces:${part.length}`, () =>
          workspaceBumpSql(dialect.orFail, part.map((w) => sql`(${w.id}, cast(${w.clicks} as bigint))`)).compile(trx).sql,
        );
        const values: unknown[] = [];
        for (const w of part) values.push(w.id, w.clicks);
        await trx.executeQuery(CompiledQuery.raw(text, values));
      }
    },

    async addLeads(trx, workspaceId, linkId, count) {
      await trx
        .updateTable('links')
        .set((eb) => ({ leads: eb('leads', '+', count) }))
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', linkId)
        .execute();
    },

    async addSale(trx, workspaceId, linkId, amount, conversion) {
      await trx
        .updateTable('links')
        .set((eb) => ({
          sales: eb('sales', '+', 1),
          sale_amount: eb('sale_amount', '+', amount),
          conversions: eb('conversions', '+', conversion ? 1 : 0),
        }))
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', linkId)
        .execute();
    },

    async subtractEvents(trx, rows) {
      for (const t of erasedTotals(rows)) {
        await trx
          .updateTable('links')
          .set((eb) => ({
            clicks: eb('clicks', '-', t.clicks),
            leads: eb('leads', '-', t.leads),
            sales: eb('sales', '-', t.sales),
            sale_amount: eb('sale_amount', '-', t.saleAmount),
          }))
          .where('workspace_id', '=', t.workspaceId)
          .where('id', '=', t.linkId)
          .execute();
      }
    },

    async addRefund(trx, workspaceId, linkId, amount) {
      await trx
        .updateTable('links')
        .set((eb) => ({ sale_amount: eb('sale_amount', '-', amount) }))
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', linkId)
        .execute();
    },

    async subtractConversion(trx, workspaceId, linkId) {
      await trx
        .updateTable('links')
        .set((eb) => ({ conversions: eb('conversions', '-', 1) }))
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', linkId)
        .execute();
    },
  };
}
