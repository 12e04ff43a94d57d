/**
 * Keeps the column file's copy of the attribution credits (column-engine.ts `ColumnCredits`,
 * DuckDB) in step with the metadata database's `credits`, the source (docs/decisions/0018), the
 * way the feed keeps leads and sales (feed.ts):
 *
 * - `markCredits`, in the transaction that changes a sale's credits (its append, the backfill, a
 *   recomputation, an erasure, a dequeued sale that is gone): one `credit_copies` row per sale
 *   (migration 0039) with a new mark, so a crash after that commit loses nothing;
 * - `copy()`, on the log thread after such commits (the feed's copies, every upkeep round): for a
 *   page of marked sales, their rows as the metadata database has them now replace theirs in the
 *   file (one engine transaction: a copy done twice leaves the same rows), then the marks read are
 *   deleted (a sale marked again meanwhile keeps its newer mark, and is copied again);
 * - `reconcile()`, at open: per workspace, the row count and cents on both sides; a workspace
 *   that differs (a file made before credits were copied, a restored backup) has its rows deleted
 *   from the file and every sale marked, and `copy()` fills it again, page by page;
 * - `inStep(workspaceId)`: no mark waits for the workspace, so the file answers as the metadata
 *   database would (column/store.ts reads the metadata database's rows otherwise).
 *
 * @example
 * await db.transaction().execute((trx) => markCredits(trx, [{ sale_id: 'evt_1', workspace_id: 'ws_1' }]));
 * const copier = createCreditCopier(db, engine);
 * await copier.copy();
 */
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { StoredCredit } from '../event-store.js';
import type { ColumnEngine } from './column-engine.js';
import { creditCountsQuery } from './credit-sql.js';
import { ID_CHUNK } from './metadata-events.js';

/** Sales per copy: a page's rows (4-12 a sale) are read and appended in one go. */
const PAGE = 500;

type Marked = { sale_id: string; workspace_id: string };

/** Marks these sales' credits as changed, in `trx`. */
export async function markCredits(trx: Kysely<Database>, sales: readonly Marked[]): Promise<void> {
  if (!sales.length) return;
  const mark = randomUUID();
  const unique = [...new Map(sales.map((s) => [s.sale_id, s])).values()];
  for (let i = 0; i < unique.length; i += PAGE) {
    const values = unique.slice(i, i + PAGE).map((s) => ({ sale_id: s.sale_id, workspace_id: s.workspace_id, mark }));
    await trx.insertInto('credit_copies').values(values).onConflict((oc) => oc.column('sale_id').doUpdateSet({ mark })).execute();
  }
}

/**
 * Marks sales known by id only (a rewrite that wrote no row for some), their workspace read from
 * the credit rows, the recomputation queue or the events, in `trx`.
 */
export async function markSaleIds(trx: Kysely<Database>, saleIds: readonly string[], known: readonly Marked[] = []): Promise<void> {
  const found = new Map(known.map((k) => [k.sale_id, k.workspace_id]));
  const missing = saleIds.filter((id) => !found.has(id));
  for (let i = 0; i < missing.length; i += ID_CHUNK) {
    const ids = missing.slice(i, i + ID_CHUNK);
    const rows = await trx.selectFrom('credit_recompute').select(['sale_id', 'workspace_id']).where('sale_id', 'in', ids)
      .union(trx.selectFrom('events').select(['id as sale_id', 'workspace_id']).where('id', 'in', ids)).execute();
    for (const r of rows) found.set(r.sale_id, r.workspace_id);
  }
  // A sale found nowhere has no rows to keep: its copy's rows go whatever the workspace.
  await markCredits(trx, [...new Set([...saleIds, ...found.keys()])].map((sale_id) => ({ sale_id, workspace_id: found.get(sale_id) ?? '' })));
}

const asCredit = (r: Record<string, unknown>): StoredCredit => ({ ...(r as unknown as StoredCredit), timestamp: Number(r.timestamp), share: Number(r.share), cents: Number(r.cents) });

export interface CreditCopier {
  /** Copies every marked sale's rows; returns how many sales. */
  copy(): Promise<number>;
  /** Compares both sides per workspace and refills the workspaces that differ; returns how many. */
  reconcile(): Promise<number>;
  /** True when no change of the workspace's credits waits to be copied. */
  inStep(workspaceId: string): Promise<boolean>;
}

export function createCreditCopier(db: Kysely<Database>, engine: Pick<ColumnEngine, 'credits' | 'query'>): CreditCopier {
  const credits = engine.credits;
  let running: Promise<number> = Promise.resolve(0);

  async function page(): Promise<number> {
    const marked = await db.selectFrom('credit_copies').select(['sale_id', 'mark']).orderBy('sale_id').limit(PAGE).execute();
    if (!marked.length) return 0;
    const ids = marked.map((m) => m.sale_id);
    if (credits) {
      const rows: StoredCredit[] = [];
      for (let i = 0; i < ids.length; i += ID_CHUNK) {
        for (const r of await db.selectFrom('credits').selectAll().where('sale_id', 'in', ids.slice(i, i + ID_CHUNK)).execute()) rows.push(asCredit(r));
      }
      // Every sale's time known (each has rows): the file's delete reads only the row groups of that span.
      const times = rows.map((r) => r.timestamp);
      const whole = new Set(rows.map((r) => r.sale_id)).size === ids.length;
      await credits.replace({ saleIds: ids, span: whole && times.length ? { from: Math.min(...times), to: Math.max(...times) } : undefined }, rows);
    }
    // Only the marks read: a sale changed again meanwhile has a new one, and stays for the next
    // page. (A mark is one change's own value, written for no sale after this page's read, so the
    // page's ids and the page's marks delete exactly the rows read; a list of (id, mark) pairs
    // made SQLite scan the table once per pair.)
    await db.deleteFrom('credit_copies').where('sale_id', 'in', ids).where('mark', 'in', [...new Set(marked.map((m) => m.mark))]).execute();
    return marked.length;
  }

  async function copyAll(): Promise<number> {
    let n = 0;
    for (;;) {
      const copied = await page();
      n += copied;
      if (copied < PAGE) return n;
    }
  }

  return {
    // One copy at a time (the feed's rounds and the upkeep both ask).
    copy() {
      const run = running.then(copyAll, copyAll);
      running = run.catch(() => 0);
      return run;
    },

    async reconcile() {
      if (!credits) return 0;
      const want = await db.selectFrom('credits').select(['workspace_id', (eb) => eb.fn.countAll<number>().as('n'), (eb) => eb.fn.sum<number>('cents').as('cents')]).groupBy('workspace_id').execute();
      const have = new Map((await engine.query(creditCountsQuery)).map((r) => [String(r.workspace_id), `${Number(r.n)}:${Number(r.cents)}`]));
      const differ = new Set<string>();
      for (const w of want) {
        if (have.get(w.workspace_id) !== `${Number(w.n)}:${Number(w.cents)}`) differ.add(w.workspace_id);
        have.delete(w.workspace_id);
      }
      for (const workspaceId of have.keys()) differ.add(workspaceId);
      for (const workspaceId of differ) {
        // Marked first (committed), then emptied: a stop in between is found again at the next open.
        const mark = randomUUID();
        await sql`insert into credit_copies (sale_id, workspace_id, mark)
          select distinct sale_id, workspace_id, ${mark} from credits where workspace_id = ${workspaceId}
          on conflict (sale_id) do update set mark = ${mark}`.execute(db);
        await credits.replace({ workspaceId }, []);
      }
      if (differ.size) await this.copy();
      return differ.size;
    },

    async inStep(workspaceId) {
      const row = await db.selectFrom('credit_copies').select('sale_id').where('workspace_id', '=', workspaceId).limit(1).executeTakeFirst();
      return !row;
    },
  };
}
