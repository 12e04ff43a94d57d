/**
 * Attribution credits on SQL (docs/decisions/0015, migration 0037): the `credits` table of the
 * metadata database, which every event store keeps (the column stores keep their leads and
 * sales there too, so the same statements serve them: column/store.ts, column/conversions.ts).
 *
 * - `customerJourneyQuery`: a customer's leads and sales since a time, on links that are not
 *   disabled (the journey the read-time path reads, buyer-conversions.ts), through
 *   `events_customer`;
 * - `replaceCredits`: a sale's rows deleted and written again, in the caller's transaction;
 * - `creditAggregateQuery`: one model's rows over a range, scoped by the sale's link, and (when
 *   the spec filters on dimensions or conversion fields) only for the sales the spec's raw scan
 *   selects, grouped by the touch's columns.
 *
 * @example
 * await replaceCredits(trx, ['evt_1'], rows);
 * const [rows] = await runner.run([creditAggregateQuery(db, dialect, spec, range, 'linear')]);
 */
import { CompiledQuery, sql, type Kysely, type RawBuilder } from 'kysely';
import { sqlText, type SqlTexts } from '../../db/sql-texts.js';
import type { Database } from '../../db/tables.js';
import type { Dialect } from '../../db/dialect.js';
import type { AggregateSpec, CreditBackfillState, DimColumn, EventRow, MergedRow, StoredCredit, TimeSpan } from '../event-store.js';
import { rawScan } from './aggregate-sql.js';
import { scopeSubquery } from './link-scope.js';
import { journeyScope, salesOf } from './buyer-conversions.js';

/** Rows per insert and sale ids per delete: far below both engines' bound-value limits (22 columns a row). */
const CHUNK = 40;

/** A customer's leads and sales since `since` on links not disabled, oldest first. */
export function customerJourney(handle: Kysely<Database>, dialect: Dialect, workspaceId: string, customerId: string, since: number): Promise<EventRow[]> {
  const disabled = scopeSubquery(journeyScope(workspaceId).input);
  return sql<EventRow>`select * from ${dialect.indexedBy('events', 'events_customer')}
    where workspace_id = ${workspaceId} and customer_id = ${customerId} and kind in ('lead', 'sale')
      and ${sql.ref('timestamp')} >= ${since} and ${dialect.noIndex('link_id')} not in (${disabled})
    order by ${sql.ref('timestamp')}, id`.execute(handle).then((r) => r.rows.map((row) => ({ ...row, timestamp: Number(row.timestamp), amount: Number(row.amount ?? 0) })));
}

/** A credit row's columns, in table order (the DuckDB copy has the same: ../duckdb/credits.ts). */
export const CREDIT_COLUMNS = [
  'workspace_id', 'model', 'timestamp', 'sale_id', 'click_id', 'customer_id', 'sale_link_id', 'link_id', 'domain', 'url', 'utm_source', 'utm_medium',
  'utm_campaign', 'utm_term', 'utm_content', 'continent', 'country', 'region', 'city', 'device', 'browser', 'os', 'trigger', 'referer', 'referer_url', 'share', 'cents',
] as const satisfies readonly (keyof StoredCredit)[];
/** Rows per insert statement, largest first (27 columns × 32 rows: far below both engines' bound-value limits). */
const INSERT_SIZES = [32, 8, 4, 1];
/** Insert texts compiled once per size (a sale writes 4-12 rows; Kysely's compile cost more than the insert). */
const texts: SqlTexts = new Map();

/** Deletes the credit rows of `saleIds` (none for sales appended in `tx`) and writes `credits`, in `tx`. */
export async function replaceCredits(tx: Kysely<Database>, saleIds: readonly string[], credits: readonly StoredCredit[]): Promise<void> {
  for (let i = 0; i < saleIds.length; i += CHUNK) await tx.deleteFrom('credits').where('sale_id', 'in', saleIds.slice(i, i + CHUNK)).execute();
  let i = 0;
  for (const size of INSERT_SIZES) {
    for (; credits.length - i >= size; i += size) {
      const part = credits.slice(i, i + size);
      // Keyed by the engine's adapter too: the placeholders differ (`?` on SQLite, `$n` on PostgreSQL).
      const text = sqlText(texts, `credits:${size}:${tx.getExecutor().adapter.constructor.name}`, () => {
        const full = part.map((c) => Object.fromEntries(CREDIT_COLUMNS.map((col) => [col, c[col] ?? null])) as unknown as StoredCredit);
        // A row already there is the same row (credits are a function of the journey): two
        // processes backfilling or recomputing one sale at once must not fail each other.
        return tx.insertInto('credits').values(full).onConflict((oc) => oc.doNothing()).compile().sql;
      });
      const values: unknown[] = [];
      for (const c of part) for (const col of CREDIT_COLUMNS) values.push(c[col] ?? null);
      await tx.executeQuery(CompiledQuery.raw(text, values));
    }
  }
}

/** The backfill's page: sales after `after` in the clustered key's order (workspace, time, id). */
export async function salesAfter(handle: Kysely<Database>, after: CreditBackfillState['after'], limit: number): Promise<EventRow[]> {
  const ts = sql.ref('timestamp');
  const past = after ? sql`(workspace_id, ${ts}, id) > (${after.workspaceId}, ${after.timestamp}, ${after.id}) and ` : sql``;
  const rows = await sql<EventRow>`select * from events where ${past}kind = 'sale' order by workspace_id, ${ts}, id limit ${limit}`.execute(handle);
  return rows.rows.map((r) => ({ ...r, timestamp: Number(r.timestamp), amount: Number(r.amount ?? 0) }));
}

const BACKFILL = 'credits';

export async function creditBackfill(handle: Kysely<Database>): Promise<CreditBackfillState> {
  const row = await handle.selectFrom('credit_backfill').selectAll().where('name', '=', BACKFILL).executeTakeFirst();
  if (!row) return { after: null, done: false };
  const after = row.after_id === null ? null : { workspaceId: row.after_workspace_id!, timestamp: Number(row.after_timestamp), id: row.after_id };
  return { after, done: row.done_at !== null };
}

export async function saveCreditBackfill(tx: Kysely<Database>, state: CreditBackfillState, now: number): Promise<void> {
  const values = {
    after_workspace_id: state.after?.workspaceId ?? null,
    after_timestamp: state.after?.timestamp ?? null,
    after_id: state.after?.id ?? null,
    done_at: state.done ? now : null,
  };
  await tx.insertInto('credit_backfill').values({ name: BACKFILL, ...values }).onConflict((oc) => oc.column('name').doUpdateSet(values)).execute();
}

/** Deletes the credit rows of these sales (their sale erased or expired). */
export async function deleteCreditsOf(handle: Kysely<Database>, saleIds: readonly string[]): Promise<void> {
  for (let i = 0; i < saleIds.length; i += CHUNK * 10) await handle.deleteFrom('credits').where('sale_id', 'in', saleIds.slice(i, i + CHUNK * 10)).execute();
}

/** A group column of the credits table: '' where a value is absent, as aggregates group. */
const creditColumn = (c: DimColumn): RawBuilder<unknown> => (c === 'link_id' ? sql.ref('link_id') : sql`coalesce(${sql.ref(c)}, '')`);

/** True when the spec filters on something only the sale's own row can answer. */
function filtersSales(spec: AggregateSpec): boolean {
  const c = spec.conversions;
  return spec.dims.length > 0 || c.customerId !== undefined || c.saleType !== undefined || c.metadata !== undefined || c.ref !== undefined;
}

/** The statement of `EventLog.creditAggregate`, or null when the scope counts no link. */
export function creditAggregateQuery(db: Kysely<Database>, dialect: Dialect, spec: AggregateSpec, range: TimeSpan, model: string): CompiledQuery | null {
  const { scope } = spec;
  if (scope.mode === 'set' && scope.empty) return null;
  const ts = sql.ref('timestamp');
  const links = scope.ids ? (scope.ids.length ? sql.join(scope.ids) : sql`null`) : scopeSubquery(scope.input);
  const conds: RawBuilder<unknown>[] = [
    sql`workspace_id = ${spec.workspaceId}`,
    sql`model = ${model}`,
    sql`${ts} >= ${range.from} and ${ts} < ${range.to}`,
    scope.mode === 'workspace' ? sql`sale_link_id not in (${links})` : sql`sale_link_id in (${links})`,
  ];
  if (filtersSales(spec)) {
    const scan = rawScan(salesOf(spec), { source: 'raw', from: range.from, to: range.to, sign: 1, links: 'scope' }, dialect);
    conds.push(sql`sale_id in (select id from ${scan.from} where ${sql.join(scan.conds, sql` and `)})`);
  }
  const selects = spec.group.map((c, i) => sql`${creditColumn(c)} as ${sql.ref(`g${i}`)}`);
  const groupBy = spec.group.length ? sql` group by ${sql.join(spec.group.map(creditColumn))}` : sql``;
  const select = selects.length ? sql`${sql.join(selects)}, ` : sql``;
  return sql`select ${select}sum(share) as sales, sum(cents) as sale_amount from credits
    where ${sql.join(conds, sql` and `)}${groupBy}`.compile(db);
}

/** Rows of `creditAggregateQuery` → aggregate rows. */
export function creditRows(rows: readonly Record<string, unknown>[], groupSize: number): MergedRow[] {
  return rows.map((r) => {
    const g: string[] = [];
    for (let i = 0; i < groupSize; i++) g.push(String(r[`g${i}`] ?? ''));
    return { g, clicks: 0, leads: 0, sales: Number(r.sales ?? 0), sale_amount: Number(r.sale_amount ?? 0) };
  });
}

/** What an erasure removed, as far as credits care: ids, kinds, click ids. */
export interface ErasedForCredits {
  id: string;
  workspace_id: string;
  kind: string;
  click_id?: string | null;
}

/**
 * The credits' share of an erasure, in its transaction: the erased sales' rows go; the sales that
 * kept a credit on an erased touch (a click, or a lead or sale naming it) lose their rows and are
 * queued for recomputation (attribution/backfill.ts), since their shares move to the touches left.
 * Returns the sales whose rows it deleted, both kinds (a column store copies the change: column/credit-copies.ts).
 */
export async function eraseCredits(trx: Kysely<Database>, erased: readonly ErasedForCredits[], now: number): Promise<{ sale_id: string; workspace_id: string }[]> {
  const sales = erased.filter((r) => r.kind === 'sale');
  await deleteCreditsOf(trx, sales.map((r) => r.id));
  const changed = sales.map((r) => ({ sale_id: r.id, workspace_id: r.workspace_id }));
  const clicks = [...new Set(erased.map((r) => r.click_id).filter((c): c is string => !!c))];
  const touched = new Map<string, string>();
  for (let i = 0; i < clicks.length; i += CHUNK * 10) {
    const rows = await trx.selectFrom('credits').select(['sale_id', 'workspace_id']).distinct().where('click_id', 'in', clicks.slice(i, i + CHUNK * 10)).execute();
    for (const r of rows) touched.set(r.sale_id, r.workspace_id);
  }
  if (!touched.size) return changed;
  await deleteCreditsOf(trx, [...touched.keys()]);
  await enqueue(trx, [...touched].map(([sale_id, workspace_id]) => ({ sale_id, workspace_id, queued_at: now })));
  return [...changed, ...[...touched].map(([sale_id, workspace_id]) => ({ sale_id, workspace_id }))];
}

async function enqueue(trx: Kysely<Database>, rows: { sale_id: string; workspace_id: string; queued_at: number }[]): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK * 5) {
    await trx.insertInto('credit_recompute').values(rows.slice(i, i + CHUNK * 5)).onConflict((oc) => oc.column('sale_id').doNothing()).execute();
  }
}

/** `ConversionStore.queueRecompute`: the customers' sales since `since`, rows deleted and queued. */
export async function queueRecompute(trx: Kysely<Database>, workspaceId: string, customerIds: readonly string[], since: number, now: number, except: readonly string[] = []): Promise<number> {
  let n = 0;
  const skip = new Set(except);
  for (let i = 0; i < customerIds.length; i += CHUNK * 5) {
    const sales = await trx.selectFrom('events').select('id').where('workspace_id', '=', workspaceId).where('customer_id', 'in', customerIds.slice(i, i + CHUNK * 5))
      .where('kind', '=', 'sale').where('timestamp', '>=', since).execute();
    const ids = sales.map((s) => s.id).filter((id) => !skip.has(id));
    await deleteCreditsOf(trx, ids);
    await enqueue(trx, ids.map((sale_id) => ({ sale_id, workspace_id: workspaceId, queued_at: now })));
    n += ids.length;
  }
  return n;
}

export async function queuedRecomputes(handle: Kysely<Database>, limit: number): Promise<{ sales: EventRow[]; gone: string[] }> {
  const queued = await handle.selectFrom('credit_recompute').select(['sale_id', 'workspace_id']).orderBy('queued_at').orderBy('sale_id').limit(limit).execute();
  if (!queued.length) return { sales: [], gone: [] };
  const found = await handle.selectFrom('events').selectAll().where('kind', '=', 'sale').where('id', 'in', queued.map((q) => q.sale_id)).execute();
  const have = new Set(found.map((r) => r.id));
  return {
    sales: found.map((r) => ({ ...r, timestamp: Number(r.timestamp), amount: Number(r.amount ?? 0) })),
    gone: queued.map((q) => q.sale_id).filter((id) => !have.has(id)),
  };
}

export async function dequeueRecomputes(trx: Kysely<Database>, saleIds: readonly string[]): Promise<void> {
  for (let i = 0; i < saleIds.length; i += CHUNK * 10) await trx.deleteFrom('credit_recompute').where('sale_id', 'in', saleIds.slice(i, i + CHUNK * 10)).execute();
}

/** Retention: the credits of sales stamped before `before`, one (workspace, model) key range at a time. */
export async function expireCredits(db: Kysely<Database>, before: number): Promise<void> {
  const keys = await db.selectFrom('workspaces').select('id').execute();
  for (const { id } of keys) await db.deleteFrom('credits').where('workspace_id', '=', id).where('model', 'in', ['first_click', 'linear', 'time_decay', 'position_based']).where('timestamp', '<', before).execute();
}
