/**
 * Events → rollup increments (pure), and the upserts that apply them inside the caller's
 * transaction. A batch is summed in memory first, so a flush of 2,000 clicks on one busy link
 * becomes a handful of upserts, and each key appears once per statement (PostgreSQL refuses an
 * `ON CONFLICT DO UPDATE` that touches the same row twice).
 */
import { createHash } from 'node:crypto';
import { CompiledQuery, type Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import { sqlText, type SqlTexts } from '../../db/sql-texts.js';
import type { StoredEvent } from '../event-store.js';
import { DAY_MS, HOUR_MS, ROLLUP_DIMS, rollupValue, type DimColumn, type RollupDim } from './rollup-spec.js';
import type { AnalyticsDailyTable, RollupTables } from './tables.js';
import { memoize } from '../../memo.js';

/** The four counters every rollup row carries. */
export type { Metrics } from '../event-store.js';
import type { Metrics } from '../event-store.js';

export interface HourlyDelta extends Metrics {
  workspace_id: string;
  bucket: number;
}

/** A row of `analytics_daily` to add, its tuple named by type. */
export type DailyDelta = Omit<AnalyticsDailyTable, 'dim'> & { dim: RollupDim };

/**
 * Identifies a key tuple inside (workspace, dimension, day). Short tuples are their own
 * identifier (`=` + values); long ones (URLs) are hashed (`#` + 132 bits of SHA-256), so the
 * primary key stays small whatever the values (PostgreSQL caps a B-tree entry near 2.7 kB).
 */
export function keyHash(keys: readonly string[]): string {
  const joined = keys.join('\u0001');
  if (joined.length <= 96) return `=${joined}`;
  return hashOfJoined(joined);
}

/** SHA-256 costs microseconds, and a busy link's tuple recurs in every batch: remembered. */
const hashOfJoined = memoize((joined: string) => `#${createHash('sha256').update(joined).digest('base64url').slice(0, 22)}`, 50_000);

/**
 * Columns by how many values they usually take, fewest first: the tuple tree below branches on
 * them in this order, so a new link or city adds one Map at the bottom rather than a whole path.
 */
const FEW_VALUES_FIRST: readonly DimColumn[] = [
  'trigger', 'device', 'continent', 'utm_content', 'utm_term', 'utm_campaign', 'utm_medium', 'utm_source', 'domain', 'country', 'os',
  'browser', 'referer', 'region', 'city', 'link_id', 'url', 'referer_url',
];

const DIMS = Object.entries(ROLLUP_DIMS).map(([dim, columns]) => ({
  dim: dim as RollupDim,
  columns,
  treeOrder: [...columns].sort((a, b) => FEW_VALUES_FIRST.indexOf(a) - FEW_VALUES_FIRST.indexOf(b)),
}));

function emptyDaily(e: StoredEvent, dim: RollupDim, columns: readonly DimColumn[], bucket: number): DailyDelta {
  const keys = columns.map((c) => rollupValue(e, c));
  return {
    workspace_id: e.workspace_id,
    dim,
    bucket,
    key_hash: keyHash(keys),
    k1: keys[0] ?? '',
    k2: keys[1] ?? '',
    k3: keys[2] ?? '',
    k4: keys[3] ?? '',
    k5: keys[4] ?? '',
    k6: keys[5] ?? '',
    k7: keys[6] ?? '',
    k8: keys[7] ?? '',
    clicks: 0,
    leads: 0,
    sales: 0,
    sale_amount: 0,
  };
}

/** A tree of Maps, one level per key part, with the increments at the leaves. */
type Tree<Leaf> = Map<string | number, Tree<Leaf> | Leaf>;

/** Adds one event's metrics. */
function add(target: Metrics, clicks: number, leads: number, sales: number, amount: number): void {
  target.clicks += clicks;
  target.leads += leads;
  target.sales += sales;
  target.sale_amount += amount;
}

/** The child of `root` under `part`, created when missing. */
function branch<Leaf>(root: Tree<Leaf>, part: string | number): Tree<Leaf> {
  let next = root.get(part) as Tree<Leaf> | undefined;
  if (next === undefined) root.set(part, (next = new Map()));
  return next;
}

/**
 * Sums a batch of events into hourly and daily rollup increments. It runs once per event on the
 * click writer, so tuples are found by walking Maps keyed by the event's own strings, one level
 * per column, rather than by a key string built per tuple: no string is built or hashed twice.
 * Measured on 20 generated batches of 28,000 clicks over 10,000 links: 1.7-2.7 µs per event,
 * against 7.7 µs for one concatenated key per tuple.
 */
export function rollupDeltas(events: readonly StoredEvent[]): { hourly: HourlyDelta[]; daily: DailyDelta[] } {
  const hourlyTree: Tree<HourlyDelta> = new Map();
  const dailyTrees = DIMS.map((): Tree<DailyDelta> => new Map());
  const hourly: HourlyDelta[] = [];
  const daily: DailyDelta[] = [];
  for (const e of events) {
    const kind = e.kind;
    const clicks = kind === 'click' ? 1 : 0;
    const leads = kind === 'lead' ? 1 : 0;
    // A sale with a negative amount is a refund (integrations/refunds.ts): net revenue, not a sale.
    const amount = kind === 'sale' ? Number(e.amount ?? 0) : 0;
    const sales = kind === 'sale' && amount >= 0 ? 1 : 0;
    const ts = Number(e.timestamp);
    const hour = ts - (((ts % HOUR_MS) + HOUR_MS) % HOUR_MS);
    const day = ts - (((ts % DAY_MS) + DAY_MS) % DAY_MS);
    const hours = branch(hourlyTree, e.workspace_id);
    let h = hours.get(hour) as HourlyDelta | undefined;
    if (h === undefined) {
      h = { workspace_id: e.workspace_id, bucket: hour, clicks: 0, leads: 0, sales: 0, sale_amount: 0 };
      hours.set(hour, h);
      hourly.push(h);
    }
    add(h, clicks, leads, sales, amount);
    for (let i = 0; i < DIMS.length; i++) {
      const { dim, columns, treeOrder } = DIMS[i]!;
      let node = branch(branch(dailyTrees[i]!, e.workspace_id), day);
      const last = treeOrder.length - 1;
      for (let c = 0; c < last; c++) node = branch(node, rollupValue(e, treeOrder[c]!));
      const leafKey = rollupValue(e, treeOrder[last]!);
      let d = node.get(leafKey) as DailyDelta | undefined;
      if (d === undefined) {
        d = emptyDaily(e, dim, columns, day);
        node.set(leafKey, d);
        daily.push(d);
      }
      add(d, clicks, leads, sales, amount);
    }
  }
  return { hourly, daily };
}

/** Column order of the rows above, which is the order Kysely binds their values in. */
export const HOURLY_COLUMNS = ['workspace_id', 'bucket', 'clicks', 'leads', 'sales', 'sale_amount'] as const;
export const DAILY_COLUMNS = [
  'workspace_id', 'dim', 'bucket', 'key_hash', 'k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7', 'k8', 'clicks', 'leads', 'sales', 'sale_amount',
] as const;

/**
 * Statements are sent in chunks of these sizes only (a large batch as 1024s, the rest as 256s,
 * 64s …), so each size is compiled once per writer and reused: building and compiling a
 * 1,000-row upsert with Kysely costs more than SQLite takes to run it. 16 × 1024 bound values
 * stay under SQLite's 32,766.
 */
const CHUNK_SIZES = [1024, 256, 64, 16, 4, 1];


function upsertHourly(db: Kysely<Database>, rows: HourlyDelta[]) {
  return db
    .withTables<RollupTables>()
    .insertInto('analytics_hourly')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(['workspace_id', 'bucket']).doUpdateSet((eb) => ({
        clicks: eb('analytics_hourly.clicks', '+', eb.ref('excluded.clicks')),
        leads: eb('analytics_hourly.leads', '+', eb.ref('excluded.leads')),
        sales: eb('analytics_hourly.sales', '+', eb.ref('excluded.sales')),
        sale_amount: eb('analytics_hourly.sale_amount', '+', eb.ref('excluded.sale_amount')),
      })),
    );
}

function upsertDaily(db: Kysely<Database>, rows: DailyDelta[]) {
  return db
    .withTables<RollupTables>()
    .insertInto('analytics_daily')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(['workspace_id', 'dim', 'bucket', 'key_hash']).doUpdateSet((eb) => ({
        clicks: eb('analytics_daily.clicks', '+', eb.ref('excluded.clicks')),
        leads: eb('analytics_daily.leads', '+', eb.ref('excluded.leads')),
        sales: eb('analytics_daily.sales', '+', eb.ref('excluded.sales')),
        sale_amount: eb('analytics_daily.sale_amount', '+', eb.ref('excluded.sale_amount')),
      })),
    );
}

/** Flattens rows to bound values in statement order. */
export function boundValues<T>(rows: readonly T[], columns: readonly (keyof T)[]): unknown[] {
  const out: unknown[] = [];
  for (const r of rows) for (const c of columns) out.push(r[c]);
  return out;
}

async function runChunked<T>(
  db: Kysely<Database>,
  texts: SqlTexts,
  name: string,
  rows: readonly T[],
  columns: readonly (keyof T)[],
  build: (db: Kysely<Database>, rows: T[]) => { compile(): CompiledQuery },
): Promise<void> {
  let i = 0;
  for (const size of CHUNK_SIZES) {
    for (; rows.length - i >= size; i += size) {
      const part = rows.slice(i, i + size);
      const text = sqlText(texts, `${name}:${size}`, () => build(db, part).compile().sql);
      await db.executeQuery(CompiledQuery.raw(text, boundValues(part, columns)));
    }
  }
}

/** Adds the increments to the rollup tables (insert, or add to the existing row). */
export async function applyRollupDeltas(
  db: Kysely<Database>,
  deltas: { hourly: HourlyDelta[]; daily: DailyDelta[] },
  texts: SqlTexts = new Map(),
): Promise<void> {
  await runChunked(db, texts, 'hourly', deltas.hourly, HOURLY_COLUMNS, upsertHourly);
  await runChunked(db, texts, 'daily', deltas.daily, DAILY_COLUMNS, upsertDaily);
}

/** The upsert Kysely would build, for tests that check the cached form binds the same values. */
export const buildUpserts = { hourly: upsertHourly, daily: upsertDaily };
