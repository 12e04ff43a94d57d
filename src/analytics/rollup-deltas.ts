/**
 * Events → rollup increments (pure), and the upserts that apply them inside the caller's
 * transaction. A batch is summed in memory first, so a flush of 2,000 clicks on one busy link
 * becomes a handful of upserts, and each key appears once per statement (PostgreSQL refuses an
 * `ON CONFLICT DO UPDATE` that touches the same row twice).
 */
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.js';
import type { StoredEvent } from './event-writer.js';
import { DAY_MS, HOUR_MS, ROLLUP_DIMS, rollupValue, type RollupDim } from './rollup-spec.js';
import type { RollupTables } from './tables.js';

/** The four counters every rollup row carries. */
export interface Metrics {
  clicks: number;
  leads: number;
  sales: number;
  sale_amount: number;
}

export interface HourlyDelta extends Metrics {
  workspace_id: string;
  bucket: number;
}

export interface DailyDelta extends Metrics {
  workspace_id: string;
  dim: RollupDim;
  bucket: number;
  key_hash: string;
  k1: string;
  k2: string;
  k3: string;
  k4: string;
  k5: string;
  k6: string;
  k7: string;
  k8: string;
}

function metricsOf(e: StoredEvent): Metrics {
  if (e.kind === 'click') return { clicks: 1, leads: 0, sales: 0, sale_amount: 0 };
  if (e.kind === 'lead') return { clicks: 0, leads: 1, sales: 0, sale_amount: 0 };
  return { clicks: 0, leads: 0, sales: 1, sale_amount: Number(e.amount ?? 0) };
}

function add(target: Metrics, m: Metrics): void {
  target.clicks += m.clicks;
  target.leads += m.leads;
  target.sales += m.sales;
  target.sale_amount += m.sale_amount;
}

/**
 * Identifies a key tuple inside (workspace, dimension, day) with a short fixed-size string, so the
 * primary key stays small and URLs of any length fit (PostgreSQL caps a B-tree entry near 2.7 kB).
 */
export function keyHash(dim: RollupDim, keys: readonly string[]): string {
  return createHash('sha256').update(`${dim}\u0000${keys.join('\u0000')}`).digest('base64url').slice(0, 22);
}

/** Sums a batch of events into hourly and daily rollup increments. */
export function rollupDeltas(events: readonly StoredEvent[]): { hourly: HourlyDelta[]; daily: DailyDelta[] } {
  const hourly = new Map<string, HourlyDelta>();
  const daily = new Map<string, DailyDelta>();
  const dims = Object.entries(ROLLUP_DIMS) as [RollupDim, readonly (typeof ROLLUP_DIMS)[RollupDim][number][]][];
  for (const e of events) {
    const m = metricsOf(e);
    const ts = Number(e.timestamp);
    const hour = ts - (((ts % HOUR_MS) + HOUR_MS) % HOUR_MS);
    const day = ts - (((ts % DAY_MS) + DAY_MS) % DAY_MS);
    const hk = `${e.workspace_id}\u0000${hour}`;
    let h = hourly.get(hk);
    if (!h) hourly.set(hk, (h = { workspace_id: e.workspace_id, bucket: hour, clicks: 0, leads: 0, sales: 0, sale_amount: 0 }));
    add(h, m);
    for (const [dim, columns] of dims) {
      const keys = columns.map((c) => rollupValue(e, c));
      const dk = `${e.workspace_id}\u0000${dim}\u0000${day}\u0000${keys.join('\u0000')}`;
      let d = daily.get(dk);
      if (!d) {
        const padded = [...keys, '', '', '', '', '', '', '', ''];
        d = {
          workspace_id: e.workspace_id,
          dim,
          bucket: day,
          key_hash: keyHash(dim, keys),
          k1: padded[0]!,
          k2: padded[1]!,
          k3: padded[2]!,
          k4: padded[3]!,
          k5: padded[4]!,
          k6: padded[5]!,
          k7: padded[6]!,
          k8: padded[7]!,
          clicks: 0,
          leads: 0,
          sales: 0,
          sale_amount: 0,
        };
        daily.set(dk, d);
      }
      add(d, m);
    }
  }
  return { hourly: [...hourly.values()], daily: [...daily.values()] };
}

/** 17 columns × 500 rows stays under SQLite's 32,766 bound variables. */
const CHUNK = 500;

/** Adds the increments to the rollup tables (insert, or add to the existing row). */
export async function applyRollupDeltas(
  db: Kysely<Database>,
  deltas: { hourly: HourlyDelta[]; daily: DailyDelta[] },
): Promise<void> {
  const rdb = db.withTables<RollupTables>();
  for (let i = 0; i < deltas.hourly.length; i += CHUNK) {
    await rdb
      .insertInto('analytics_hourly')
      .values(deltas.hourly.slice(i, i + CHUNK))
      .onConflict((oc) =>
        oc.columns(['workspace_id', 'bucket']).doUpdateSet((eb) => ({
          clicks: eb('analytics_hourly.clicks', '+', eb.ref('excluded.clicks')),
          leads: eb('analytics_hourly.leads', '+', eb.ref('excluded.leads')),
          sales: eb('analytics_hourly.sales', '+', eb.ref('excluded.sales')),
          sale_amount: eb('analytics_hourly.sale_amount', '+', eb.ref('excluded.sale_amount')),
        })),
      )
      .execute();
  }
  for (let i = 0; i < deltas.daily.length; i += CHUNK) {
    await rdb
      .insertInto('analytics_daily')
      .values(deltas.daily.slice(i, i + CHUNK))
      .onConflict((oc) =>
        oc.columns(['workspace_id', 'dim', 'bucket', 'key_hash']).doUpdateSet((eb) => ({
          clicks: eb('analytics_daily.clicks', '+', eb.ref('excluded.clicks')),
          leads: eb('analytics_daily.leads', '+', eb.ref('excluded.leads')),
          sales: eb('analytics_daily.sales', '+', eb.ref('excluded.sales')),
          sale_amount: eb('analytics_daily.sale_amount', '+', eb.ref('excluded.sale_amount')),
        })),
      )
      .execute();
  }
}
