/**
 * Pure date-range decisions for analytics and the event list: `interval` or `start`/`end` plus a
 * time zone and the clock → a half-open range `[from, to)` in ms and a timeseries granularity
 * (behaviour.md §7.2), the timeseries buckets, and the per-plan range limits.
 *
 * @example
 * resolveRange({ interval: 'mtd', timezone: 'Europe/Berlin' }, { now, workspaceCreatedAt, timeseries: true });
 * // → { from: <1st of the month 00:00 Berlin>, to: <tomorrow 00:00 Berlin>, granularity: 'day', … }
 */
import { ApiError } from '../http/errors.js';
import {
  addMonths,
  isValidTimeZone,
  startOfDay,
  startOfHour,
  startOfMonth,
  startOfNextDay,
  startOfQuarter,
  startOfYear,
  zonedParts,
  zonedTimeToUtc,
} from './zoned-time.js';

export const INTERVALS = ['24h', '7d', '30d', '90d', '1y', 'mtd', 'qtd', 'ytd', 'all'] as const;
export type Interval = (typeof INTERVALS)[number];
export type Granularity = 'hour' | 'day' | 'month';

/**
 * The spec states `24h` as the default for the event list and analytics takes the same
 * parameters; the published code moved to 30d in 2025 (behaviour.md §7.1). The spec wins.
 */
export const DEFAULT_INTERVAL: Interval = '24h';

const HOUR = 3_600_000;
const DAY = 86_400_000;

export interface RangeRequest {
  interval?: Interval;
  start?: string;
  end?: string;
  /** IANA zone; unknown names fall back to UTC silently, as published. */
  timezone?: string;
}

export interface RangeContext {
  now: number;
  /** `interval=all` timeseries start at the workspace's creation (behaviour.md §7.2)… */
  workspaceCreatedAt: number;
  /**
   * …or at the first event the query counts when that is earlier (imported or migrated events
   * predate the workspace); unknown or absent: the creation alone decides.
   */
  firstEventAt?: number;
  timeseries: boolean;
}

export interface TimeRange {
  /** Inclusive start, ms. */
  from: number;
  /** Exclusive end, ms. */
  to: number;
  granularity: Granularity;
  timezone: string;
  /** The interval applied, or undefined when `start` decided the range. */
  interval?: Interval;
}

/** The zone to use: the given one when the runtime knows it, else UTC. */
export function normalizeTimeZone(timezone: string | undefined): string {
  return timezone && isValidTimeZone(timezone) ? timezone : 'UTC';
}

const LOCAL_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?$/;

/**
 * A `start`/`end` value → ms. Dates and date-times without an offset are wall-clock times in
 * `timezone`; anything with `Z` or an offset (or another format `Date.parse` reads) is an instant.
 * Throws 422 when unreadable.
 */
export function parseDateInput(name: 'start' | 'end', text: string, timezone: string): number {
  const local = LOCAL_DATE.exec(text.trim());
  if (local) {
    const [, y, mo, d, h, mi, s] = local;
    return zonedTimeToUtc(timezone, +y!, +mo!, +d!, +(h ?? 0), +(mi ?? 0)) + +(s ?? 0) * 1000;
  }
  const ms = /^\d{10,14}$/.test(text) ? Number(text) : Date.parse(text);
  if (!Number.isFinite(ms)) throw new ApiError('unprocessable_entity', `invalid_date: ${name}: Invalid date "${text}".`);
  return ms;
}

/** ≤ 2 days: hours; > 180 days: months; else days (behaviour.md §7.2). */
export function granularityForSpan(from: number, to: number): Granularity {
  const days = Math.floor((to - 1 - from) / DAY);
  if (days <= 2) return 'hour';
  if (days > 180) return 'month';
  return 'day';
}

/** Resolves the request to a range; `start` wins over `interval`, `end` only counts with `start`. */
export function resolveRange(req: RangeRequest, ctx: RangeContext): TimeRange {
  const timezone = normalizeTimeZone(req.timezone);
  const { now } = ctx;

  if (req.start || (req.interval === 'all' && ctx.timeseries)) {
    const firstStored = Math.min(ctx.workspaceCreatedAt, ctx.firstEventAt ?? Infinity);
    let start = req.start ? parseDateInput('start', req.start, timezone) : firstStored;
    let end = req.start && req.end ? parseDateInput('end', req.end, timezone) : now;
    if (start > end) [start, end] = [end, start];
    // Whole local days, as the published service rounds explicit dates (behaviour.md §7.2); the
    // granularity follows those days.
    const from = startOfDay(start, timezone);
    const endOfLastDay = startOfNextDay(end, timezone);
    const granularity = granularityForSpan(from, endOfLastDay);
    // A series stops at now: no bucket of an hour (or day, month) still to come. Counts and
    // pages keep the published whole days; a range wholly in the future stays as asked.
    const to = ctx.timeseries && from <= now && endOfLastDay > now + 1 ? now + 1 : endOfLastDay;
    return { from, to, granularity, timezone, interval: req.start ? undefined : 'all' };
  }

  const interval = req.interval ?? DEFAULT_INTERVAL;
  const endOfToday = startOfNextDay(now, timezone);
  switch (interval) {
    case '24h':
      return { from: now - 24 * HOUR, to: now + 1, granularity: 'hour', timezone, interval };
    case '7d':
      return { from: now - 7 * DAY, to: endOfToday, granularity: 'day', timezone, interval };
    case '30d':
      return { from: now - 30 * DAY, to: endOfToday, granularity: 'day', timezone, interval };
    case '90d':
      return { from: now - 90 * DAY, to: endOfToday, granularity: 'day', timezone, interval };
    case '1y':
      return { from: addMonths(now, -12, timezone), to: endOfToday, granularity: 'month', timezone, interval };
    case 'mtd':
      return { from: startOfMonth(now, timezone), to: endOfToday, granularity: 'day', timezone, interval };
    case 'qtd':
      return { from: startOfQuarter(now, timezone), to: endOfToday, granularity: 'day', timezone, interval };
    case 'ytd':
      return { from: startOfYear(now, timezone), to: endOfToday, granularity: 'month', timezone, interval };
    case 'all':
      // Everything stored; the published service starts at its launch date, which no self-hosted
      // event can predate anyway.
      return { from: 0, to: endOfToday, granularity: 'month', timezone, interval };
  }
}

/** Start of the bucket that contains `ms`. */
export function bucketStartOf(ms: number, granularity: Granularity, timezone: string): number {
  if (granularity === 'hour') return startOfHour(ms, timezone);
  if (granularity === 'day') return startOfDay(ms, timezone);
  return startOfMonth(ms, timezone);
}

function nextBucket(start: number, granularity: Granularity, timezone: string): number {
  // Hours step in real time so a DST change never merges or drops an hour.
  if (granularity === 'hour') return start + HOUR;
  const p = zonedParts(start, timezone);
  if (granularity === 'day') return zonedTimeToUtc(timezone, p.year, p.month, p.day + 1);
  return zonedTimeToUtc(timezone, p.year, p.month + 1, 1);
}

/** Hard cap on emitted buckets: hourly series only happen for ≤ 3 days, daily for ≤ 180. */
const MAX_BUCKETS = 20_000;

/**
 * Start instants of every timeseries bucket overlapping the range, ascending. The first starts at
 * or before `from` (its label is the bucket start; only events from `from` on are counted).
 */
export function bucketStarts(range: TimeRange): number[] {
  const out: number[] = [];
  let b = bucketStartOf(Math.max(range.from, 0), range.granularity, range.timezone);
  while (b < range.to && out.length < MAX_BUCKETS) {
    out.push(b);
    b = nextBucket(b, range.granularity, range.timezone);
  }
  return out;
}

/**
 * The published per-plan limits on how far back analytics reach (behaviour.md §7.2): free plans
 * see 30 days, pro plans one year with explicit dates; business and above are not limited.
 */
export function assertRangeAllowedForPlan(plan: string, req: RangeRequest, range: TimeRange, workspaceCreatedAt: number): void {
  // Whole local days, as asked: a series cut at now is judged like the count of the same dates.
  const spanDays = (startOfNextDay(range.to - 1, range.timezone) - range.from) / DAY;
  if (plan === 'free') {
    // Presets are judged by name (qtd passes, as published); `all` by the workspace's age.
    const tooLong = req.start
      ? spanDays > 31
      : req.interval === '90d' || req.interval === '1y' || req.interval === 'ytd' || (req.interval === 'all' && range.to - workspaceCreatedAt > 31 * DAY);
    if (tooLong) {
      throw new ApiError(
        'forbidden',
        'You can only get analytics for up to 30 days on a Free plan. Upgrade to Pro or Business to get analytics for longer periods.',
      );
    }
  }
  if (plan === 'pro' && req.start && spanDays > 366) {
    throw new ApiError(
      'forbidden',
      'You can only get analytics for up to 1 year on a Pro plan. Upgrade to Business to get analytics for longer periods.',
    );
  }
}
