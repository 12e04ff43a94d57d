/**
 * Runs one aggregate: plans its parts (planner.ts), compiles each (aggregate-sql.ts), runs them
 * as one batch on the SQL runner (one snapshot on SQLite) and adds the rows up.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { Dialect } from '../../db/dialect.js';
import { partQuery, type AggregateSpec } from './aggregate-sql.js';
import { planParts, type Part } from './planner.js';
import type { MergedRow } from '../event-store.js';
import type { SqlRunner } from './sql-runner.js';

export interface AggregateDeps {
  db: Kysely<Database>;
  dialect: Dialect;
  runner: SqlRunner;
  useRollups: boolean;
}

/** The parts a spec would run, for plan tests and the benchmark's report. */
export function partsFor(deps: Pick<AggregateDeps, 'useRollups'>, spec: AggregateSpec, range: { from: number; to: number }, boundaries?: readonly number[]): Part[] {
  // Left-out links are not listed beforehand: a subtraction part reading none of them is cheap.
  const hasExcluded = spec.scope.mode === 'workspace';
  const c = spec.conversions;
  return planParts({
    from: range.from,
    to: range.to,
    group: spec.group,
    dims: spec.dims,
    linkMode: spec.scope.mode,
    hasExcluded,
    rawOnly: c.customerId !== undefined || c.saleType !== undefined || c.metadata !== undefined || c.ref !== undefined,
    useRollups: deps.useRollups,
    boundaries,
  });
}

/** Runs the spec over the range and returns the merged rows (one per group value and slot). */
export async function aggregateParts(
  deps: AggregateDeps,
  spec: AggregateSpec,
  range: { from: number; to: number },
  boundaries?: readonly number[],
): Promise<MergedRow[]> {
  const parts = partsFor(deps, spec, range, boundaries);
  const results = await deps.runner.run(parts.map((p) => partQuery(deps.db, deps.dialect, spec, p)));
  const merged = new Map<string, MergedRow>();
  results.forEach((rows, i) => mergeRows(merged, rows, spec.group.length, parts[i]!.sign));
  return [...merged.values()];
}

/** Adds query rows into `into`, keyed by group values and slot, with the part's sign. */
export function mergeRows(into: Map<string, MergedRow>, rows: readonly Record<string, unknown>[], groupSize: number, sign: 1 | -1): void {
  for (const r of rows) {
    const g: string[] = [];
    for (let i = 0; i < groupSize; i++) g.push(String(r[`g${i}`] ?? ''));
    const slot = r.slot === undefined || r.slot === null ? undefined : Number(r.slot);
    const key = `${g.join('\u0000')}\u0000${slot ?? ''}`;
    let m = into.get(key);
    if (!m) into.set(key, (m = { g, slot, clicks: 0, leads: 0, sales: 0, sale_amount: 0 }));
    m.clicks += sign * Number(r.clicks ?? 0);
    m.leads += sign * Number(r.leads ?? 0);
    m.sales += sign * Number(r.sales ?? 0);
    m.sale_amount += sign * Number(r.sale_amount ?? 0);
  }
}
