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
import { sql, type CompiledQuery, type Kysely, type RawBuilder } from 'kysely';
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

/** Deletes the credit rows of `saleIds` and writes `credits`, in `tx`. */
export async function replaceCredits(tx: Kysely<Database>, saleIds: readonly string[], credits: readonly StoredCredit[]): Promise<void> {
  for (let i = 0; i < saleIds.length; i += CHUNK) await tx.deleteFrom('credits').where('sale_id', 'in', saleIds.slice(i, i + CHUNK)).execute();
  for (let i = 0; i < credits.length; i += CHUNK) await tx.insertInto('credits').values(credits.slice(i, i + CHUNK)).execute();
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
