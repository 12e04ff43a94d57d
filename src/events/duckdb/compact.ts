/**
 * Compaction of the DuckDB event file (duckdb-engine.ts `compact`, `markCompacted`): closed periods
 * rewritten in (workspace key, timestamp, id) order, so that scans of one workspace skip the row
 * groups of others; each period in one transaction of the writer, one per turn of its queue.
 *
 * @example
 * await compactPeriods(parts, Date.now() - COMPACTION_HOLD_MS, 4, COMPACTION_PERIOD_DAYS);
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { ColumnParam, ColumnQuery } from '../column/dialect.js';
import { eventsTableAs } from './schema.js';

/** What compaction uses of the engine: a reader, the writer's queue and its statements. */
export interface CompactionParts {
  withReader<T>(fn: (c: DuckDBConnection) => Promise<T>): Promise<T>;
  read(connection: DuckDBConnection, q: ColumnQuery): Promise<Record<string, unknown>[]>;
  writing<T>(fn: () => Promise<T>): Promise<T>;
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  /** One statement on the writer; the rows it changed. */
  write(text: string, params: readonly ColumnParam[]): Promise<number>;
}

const DAY_MS = 86_400_000;

/** Periods of `periodDays` days aligned on the epoch, and the end of the last one that ends at or before `before`. */
function periodsBefore(before: number, periodDays: number): { period: number; end: number } {
  const period = DAY_MS * Math.max(1, Math.trunc(periodDays));
  return { period, end: Math.floor(before / period) * period };
}

/** Rows (`day`: the period's start, `n`) per period of `period` ms before the end given as parameter $1. */
const rowsPerPeriod = (period: number) =>
  `SELECT ("timestamp" // ${period}) * ${period} AS day, count(*) AS n FROM events WHERE "timestamp" < $1::BIGINT GROUP BY ALL`;

/** What one compaction call rewrote. */
export interface Compacted {
  days: number;
  rows: number;
  /** Closed days still to rewrite (beyond `maxDays`). */
  left: number;
}

/**
 * After the upgrade's copy (src/events/upgrades/to-column-store.ts), once, before anything else
 * writes: rewrites the whole table in (workspace key, timestamp, id) order, in one transaction
 * (a copy under another name, then swapped in), and records the periods that end at or before
 * `before` as compacted with their row counts now. The copy comes in `workspace_id` order, which
 * the `workspace_key` zone maps cannot use (a workspace's few rows were admitted in 29 of 46 row
 * groups at 5M events, bench/analytics/README.md); in key order they lie in one or two. Returns
 * the periods recorded.
 */
export function markCompacted({ writing, transaction, write }: CompactionParts, before: number, periodDays: number): Promise<number> {
  const { period, end } = periodsBefore(before, periodDays);
  return writing(() =>
    transaction(async () => {
      await write(eventsTableAs('events_ordered'), []);
      await write('INSERT INTO events_ordered SELECT * FROM events ORDER BY workspace_key, "timestamp", id', []);
      await write('DROP TABLE events', []);
      await write('ALTER TABLE events_ordered RENAME TO events', []);
      return write(
        `INSERT INTO event_compactions SELECT day, n, $2::BIGINT FROM (${rowsPerPeriod(period)})
         ON CONFLICT (day) DO UPDATE SET "rows" = excluded."rows", compacted_at = excluded.compacted_at`,
        [{ type: 'int', value: end }, { type: 'int', value: Date.now() }],
      );
    }),
  );
}

/** Rewrites up to `maxDays` closed periods whose rows changed since their last rewrite. */
export async function compactPeriods({ withReader, read, writing, transaction, write }: CompactionParts, before: number, maxDays = Number.MAX_SAFE_INTEGER, periodDays = 1): Promise<Compacted> {
  const { period, end } = periodsBefore(before, periodDays);
  // Days to rewrite: their count now against the count recorded at their last rewrite (one scan of `timestamp`).
  const due = await withReader((c) => read(c, {
    text: `SELECT d.day, d.n FROM (${rowsPerPeriod(period)}) d
           LEFT JOIN event_compactions c ON c.day = d.day WHERE c."rows" IS NULL OR d.n > c."rows" ORDER BY d.day`,
    params: [{ type: 'int', value: end }],
  }));
  const out: Compacted = { days: 0, rows: 0, left: Math.max(0, due.length - maxDays) };
  for (const { day } of due.slice(0, maxDays)) {
    const from = Number(day);
    // One day per turn of the writer queue: appends queued meanwhile run between days.
    out.rows += await writing(() =>
      transaction(async () => {
        const range = [{ type: 'int', value: from }, { type: 'int', value: from + period }] as const;
        await write(`CREATE OR REPLACE TEMP TABLE compacting AS SELECT * FROM events WHERE "timestamp" >= $1::BIGINT AND "timestamp" < $2::BIGINT`, range);
        const removed = await write(`DELETE FROM events WHERE "timestamp" >= $1::BIGINT AND "timestamp" < $2::BIGINT`, range);
        // Batch numbers only matter to the fold, until their batches leave `click_batches`: older
        // ones go (null compresses to nothing; a shuffled number does not).
        const added = await write(
          `INSERT INTO events SELECT * REPLACE (CASE WHEN batch < (SELECT coalesce(min(seq), 9223372036854775807) FROM click_batches) THEN NULL ELSE batch END AS batch)
           FROM compacting ORDER BY workspace_key, "timestamp", id`,
          [],
        );
        await write('DROP TABLE compacting', []);
        if (added !== removed) throw new Error(`compaction of day ${new Date(from).toISOString()}: ${removed} rows deleted, ${added} inserted`);
        await write(
          `INSERT INTO event_compactions VALUES ($1::BIGINT, $2::BIGINT, $3::BIGINT) ON CONFLICT (day) DO UPDATE SET "rows" = excluded."rows", compacted_at = excluded.compacted_at`,
          [{ type: 'int', value: from }, { type: 'int', value: added }, { type: 'int', value: Date.now() }],
        );
        return added;
      }),
    );
    out.days++;
  }
  return out;
}
