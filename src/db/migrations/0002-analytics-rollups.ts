/**
 * Analytics rollups (issue 6) and the indexes the analytics queries need:
 * - `analytics_hourly` and `analytics_daily` (see src/analytics/rollup-spec.ts), clustered like
 *   the events on SQLite, filled from any events already stored;
 * - a partial index over leads and sales only, so a lead or sale list or aggregate never walks a
 *   busy workspace's clicks (and costs nothing on the click flush);
 * - a partial index of disabled links per workspace, read by every workspace-wide query.
 */
import { createHash } from 'node:crypto';
import { sql, type CreateTableBuilder, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

const BACKFILL_PAGE = 5000;
/** Rows per upsert: 16 columns × 500 stay far below SQLite's 32,766 bound values. */
const UPSERT_ROWS = 500;

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const big = dialect.bigIntType;
  type Builder = CreateTableBuilder<any, any>;
  const metrics = (t: Builder): Builder =>
    t
      .addColumn('clicks', big, (c) => c.notNull().defaultTo(0))
      .addColumn('leads', big, (c) => c.notNull().defaultTo(0))
      .addColumn('sales', big, (c) => c.notNull().defaultTo(0))
      .addColumn('sale_amount', big, (c) => c.notNull().defaultTo(0));

  let hourly: Builder = db.schema
    .createTable('analytics_hourly')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('bucket', big, (c) => c.notNull());
  hourly = metrics(hourly).addPrimaryKeyConstraint('analytics_hourly_pk', ['workspace_id', 'bucket']);
  if (dialect.clusteredTableSuffix) hourly = hourly.modifyEnd(dialect.clusteredTableSuffix);
  await hourly.execute();

  let daily: Builder = db.schema
    .createTable('analytics_daily')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('dim', 'text', (c) => c.notNull())
    .addColumn('bucket', big, (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull());
  for (const k of ['k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7', 'k8']) daily = daily.addColumn(k, 'text', (c) => c.notNull().defaultTo(''));
  daily = metrics(daily).addPrimaryKeyConstraint('analytics_daily_pk', ['workspace_id', 'dim', 'bucket', 'key_hash']);
  if (dialect.clusteredTableSuffix) daily = daily.modifyEnd(dialect.clusteredTableSuffix);
  await daily.execute();

  await db.schema
    .createIndex('events_conversions')
    .on('events')
    .columns(['workspace_id', 'kind', 'timestamp'])
    .where(sql.ref('kind'), '<>', 'click')
    .execute();
  await db.schema
    .createIndex('links_workspace_disabled')
    .on('links')
    .columns(['workspace_id', 'id'])
    .where(sql.ref('disabled_at'), 'is not', null)
    .execute();

  // Events written before this migration (keyset pages, so memory stays flat).
  let after: { workspace_id: string; timestamp: number; id: string } | undefined;
  for (;;) {
    let q = db.selectFrom('events').selectAll().orderBy('workspace_id').orderBy('timestamp').orderBy('id').limit(BACKFILL_PAGE);
    if (after) {
      const a = after;
      q = q.where((eb) => eb(eb.refTuple('workspace_id', 'timestamp', 'id'), '>', eb.tuple(a.workspace_id, a.timestamp, a.id)));
    }
    const rows = (await q.execute()) as EventRow[];
    if (!rows.length) break;
    const { hourly, daily } = sumEvents(rows);
    await addToRollup(db, 'analytics_hourly', ['workspace_id', 'bucket'], hourly);
    await addToRollup(db, 'analytics_daily', ['workspace_id', 'dim', 'bucket', 'key_hash'], daily);
    const last = rows[rows.length - 1]!;
    after = { workspace_id: String(last.workspace_id), timestamp: Number(last.timestamp), id: String(last.id) };
    if (rows.length < BACKFILL_PAGE) break;
  }
}

/*
 * The backfill, frozen: the rows src/analytics/rollup-deltas.ts and rollup-spec.ts computed when
 * this migration was written, copied rather than imported, so that the migration fills the same
 * tables whenever it runs, whatever later code does (0002-analytics-rollups.test.ts compares it
 * with that code).
 */

type EventRow = Record<string, string | number | null>;
type RollupRow = Record<string, string | number>;

/** Each tuple's event columns, stored as k1…k8 in this order. */
const TUPLES: Readonly<Record<string, readonly string[]>> = {
  country: ['continent', 'country', 'device', 'trigger'],
  ua: ['device', 'browser', 'os', 'trigger'],
  ref: ['referer', 'referer_url', 'device', 'trigger'],
  city: ['continent', 'country', 'region', 'city'],
  link: ['link_id', 'domain', 'url', 'utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'],
};
const METRICS = ['clicks', 'leads', 'sales', 'sale_amount'] as const;
const HOUR = 3_600_000;
const DAY = 86_400_000;

/** The start of the UTC hour or day holding `ts` (before 1970 too). */
const startOf = (ts: number, unit: number) => ts - (((ts % unit) + unit) % unit);

/** A tuple's stored value of a column: null is '', a referer URL loses its query. */
function tupleValue(event: EventRow, column: string): string {
  const v = event[column];
  if (v === null || v === undefined) return '';
  const text = String(v);
  const query = column === 'referer_url' ? text.indexOf('?') : -1;
  return query < 0 ? text : text.slice(0, query);
}

/** A short tuple is its own key (`=` + values), a long one 132 bits of its SHA-256 (`#`). */
function tupleKey(values: readonly string[]): string {
  const joined = values.join('\u0001');
  return joined.length <= 96 ? `=${joined}` : `#${createHash('sha256').update(joined).digest('base64url').slice(0, 22)}`;
}

/** Sums a page of events into rollup rows, one per hourly and per daily primary key. */
function sumEvents(events: readonly EventRow[]): { hourly: RollupRow[]; daily: RollupRow[] } {
  const hourly = new Map<string, RollupRow>();
  const daily = new Map<string, RollupRow>();
  for (const e of events) {
    const sale = e.kind === 'sale';
    const counts = { clicks: e.kind === 'click' ? 1 : 0, leads: e.kind === 'lead' ? 1 : 0, sales: sale ? 1 : 0, sale_amount: sale ? Number(e.amount ?? 0) : 0 };
    const ts = Number(e.timestamp);
    const workspace = String(e.workspace_id);
    const hour = startOf(ts, HOUR);
    const day = startOf(ts, DAY);
    addTo(hourly, { workspace_id: workspace, bucket: hour }, counts);
    for (const [dim, columns] of Object.entries(TUPLES)) {
      const values = columns.map((c) => tupleValue(e, c));
      const keys = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`k${i + 1}`, values[i] ?? '']));
      addTo(daily, { workspace_id: workspace, dim, bucket: day, key_hash: tupleKey(values), ...keys }, counts);
    }
  }
  return { hourly: [...hourly.values()], daily: [...daily.values()] };
}

/** Adds `counts` to the row of `key` (its primary key and, for daily rows, the tuple). */
function addTo(rows: Map<string, RollupRow>, key: RollupRow, counts: Record<(typeof METRICS)[number], number>): void {
  const identity = JSON.stringify(Object.values(key));
  let row = rows.get(identity);
  if (!row) rows.set(identity, (row = { ...key, clicks: 0, leads: 0, sales: 0, sale_amount: 0 }));
  for (const m of METRICS) row[m] = Number(row[m]) + counts[m];
}

/** Inserts the rows, or adds their metrics to the stored ones (a tuple recurs across pages). */
async function addToRollup(db: Kysely<any>, table: string, primaryKey: string[], rows: readonly RollupRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += UPSERT_ROWS) {
    await db
      .insertInto(table)
      .values(rows.slice(i, i + UPSERT_ROWS))
      .onConflict((oc) =>
        oc.columns(primaryKey).doUpdateSet((eb) => Object.fromEntries(METRICS.map((m) => [m, eb(`${table}.${m}`, '+', eb.ref(`excluded.${m}`))]))),
      )
      .execute();
  }
}
