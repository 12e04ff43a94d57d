/**
 * Pure query planning: which parts answer an aggregate. A part is a time span read from one
 * source: the hourly totals, one daily tuple (rollup-spec.ts), or the raw events. The rollups
 * cover whole UTC hours or days, so a range is cut into an aligned middle read from a rollup and
 * up to two raw edges. Parts cover disjoint spans, so their rows simply add up.
 *
 * Workspace-wide figures leave out some links (disabled ones, and links in folders when no
 * folder is asked for: see service.ts). The daily `link` tuple can leave them out by id; the
 * other rollups hold every link, so a negative raw part subtracts the left-out links' events
 * over the rollup's span. Left-out links rarely have traffic (a disabled link records no clicks),
 * so that part is small.
 *
 * @example
 * planParts({ group: ['country'], dims: [], linkMode: 'workspace', hasExcluded: false, rawOnly: false,
 *             useRollups: true, from, to });
 * // → [{ source: 'daily', dim: 'country', … }, { source: 'raw', … edge }, …]
 */
import type { DimFilter } from '../event-store.js';
import { DAY_MS, HOUR_MS, ROLLUP_DIMS, ROLLUP_PREFERENCE, type DimColumn, type RollupDim } from './rollup-spec.js';

export type Part =
  | { source: 'hourly'; from: number; to: number; sign: 1 }
  | { source: 'daily'; dim: RollupDim; from: number; to: number; sign: 1 }
  /** `links: 'excluded'` reads only the left-out links (the subtraction part). */
  | { source: 'raw'; from: number; to: number; sign: 1 | -1; links: 'scope' | 'excluded' };

export interface PlanRequest {
  from: number;
  to: number;
  /** Event columns the result is grouped by. */
  group: readonly DimColumn[];
  dims: readonly DimFilter[];
  /** `workspace`: every link but the left-out ones; `set`: only the links of a link filter. */
  linkMode: 'workspace' | 'set';
  /** Whether the workspace has left-out links (only then is a subtraction part needed). */
  hasExcluded: boolean;
  /** A filter no rollup holds (customer, sale type, metadata, ref). */
  rawOnly: boolean;
  useRollups: boolean;
  /** Timeseries: start of every bucket after the first; a rollup must be aligned to all of them. */
  boundaries?: readonly number[];
}

/** Event columns a filter needs in a tuple (a region filter also reads the country). */
function filterColumns(f: DimFilter): DimColumn[] {
  return f.mode === 'region' ? ['region', 'country'] : [f.column];
}

/** The first (smallest) daily tuple that holds every column, if any. */
export function chooseDailyDim(columns: readonly DimColumn[], linkMode: PlanRequest['linkMode']): RollupDim | undefined {
  const candidates: readonly RollupDim[] = linkMode === 'set' ? ['link'] : ROLLUP_PREFERENCE;
  return candidates.find((dim) => columns.every((c) => ROLLUP_DIMS[dim].includes(c)));
}

function aligned(boundaries: readonly number[] | undefined, grain: number): boolean {
  return !boundaries || boundaries.every((b) => b % grain === 0);
}

/** Cuts [from, to) into an aligned middle (from a rollup of `grain`) and raw edges. */
function split(req: PlanRequest, grain: number, middle: (from: number, to: number) => Part): Part[] | undefined {
  const a = Math.ceil(req.from / grain) * grain;
  const b = Math.floor(req.to / grain) * grain;
  if (a >= b) return undefined;
  const parts: Part[] = [middle(a, b)];
  if (req.from < a) parts.push({ source: 'raw', from: req.from, to: a, sign: 1, links: 'scope' });
  if (b < req.to) parts.push({ source: 'raw', from: b, to: req.to, sign: 1, links: 'scope' });
  const m = parts[0]!;
  const keepsOutByItself = m.source === 'daily' && m.dim === 'link';
  if (req.linkMode === 'workspace' && req.hasExcluded && !keepsOutByItself) {
    parts.push({ source: 'raw', from: a, to: b, sign: -1, links: 'excluded' });
  }
  return parts;
}

/** The parts that answer the request: rollups where they can, raw events for the rest. */
export function planParts(req: PlanRequest): Part[] {
  const rawAll: Part[] = [{ source: 'raw', from: req.from, to: req.to, sign: 1, links: 'scope' }];
  if (!req.useRollups || req.rawOnly || req.from >= req.to) return rawAll;

  const columns = [...new Set([...req.group, ...req.dims.flatMap(filterColumns)])];
  if (!columns.length && req.linkMode === 'workspace' && aligned(req.boundaries, HOUR_MS)) {
    const parts = split(req, HOUR_MS, (from, to) => ({ source: 'hourly', from, to, sign: 1 }));
    if (parts) return parts;
  }
  const dim = chooseDailyDim(columns, req.linkMode);
  if (dim && aligned(req.boundaries, DAY_MS)) {
    const parts = split(req, DAY_MS, (from, to) => ({ source: 'daily', dim, from, to, sign: 1 }));
    if (parts) return parts;
  }
  return rawAll;
}
