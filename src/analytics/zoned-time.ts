/**
 * Calendar arithmetic in an IANA time zone with nothing but `Intl`: wall-clock parts of an
 * instant, the instant of a wall-clock time, and the start of a day, month, quarter or year.
 * Analytics aligns ranges and timeseries buckets with these (behaviour.md §7.2).
 *
 * @example
 * startOfDay(Date.parse('2024-05-15T03:00:00Z'), 'America/Los_Angeles'); // 2024-05-14T07:00:00Z
 */

/** Wall-clock fields of an instant in a zone (month 1–12). */
export interface ZonedParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** True when `timeZone` is an IANA name the runtime knows. */
export function isValidTimeZone(timeZone: string): boolean {
  try {
    formatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** Wall-clock fields of `ms` in `timeZone`. */
export function zonedParts(ms: number, timeZone: string): ZonedParts {
  // UTC, the default zone, needs no Intl call (formatToParts costs ~10 µs).
  if (timeZone === 'UTC') {
    const d = new Date(ms);
    return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour: d.getUTCHours(), minute: d.getUTCMinutes(), second: d.getUTCSeconds() };
  }
  const out: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(ms))) {
    if (p.type !== 'literal') out[p.type] = Number(p.value);
  }
  return { year: out.year!, month: out.month!, day: out.day!, hour: out.hour! % 24, minute: out.minute!, second: out.second! };
}

/** Offset of the zone from UTC at `ms`, in minutes (New York in summer: -240). */
export function offsetMinutes(ms: number, timeZone: string): number {
  if (timeZone === 'UTC') return 0;
  const p = zonedParts(ms, timeZone);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return Math.round((asUtc - Math.floor(ms / 1000) * 1000) / 60_000);
}

/**
 * The instant at which the wall clock of `timeZone` shows the given time. Fields may overflow
 * (day 32, month 13) and are normalised like `Date.UTC`. In a DST gap the later offset wins.
 */
export function zonedTimeToUtc(timeZone: string, year: number, month: number, day = 1, hour = 0, minute = 0): number {
  const wall = Date.UTC(year, month - 1, day, hour, minute);
  const first = wall - offsetMinutes(wall, timeZone) * 60_000;
  const second = wall - offsetMinutes(first, timeZone) * 60_000;
  return second;
}

/** Start of the local day that contains `ms`. */
export function startOfDay(ms: number, timeZone: string): number {
  const p = zonedParts(ms, timeZone);
  return zonedTimeToUtc(timeZone, p.year, p.month, p.day);
}

/** Start of the local day after the one that contains `ms` (the exclusive end of "today"). */
export function startOfNextDay(ms: number, timeZone: string): number {
  const p = zonedParts(ms, timeZone);
  return zonedTimeToUtc(timeZone, p.year, p.month, p.day + 1);
}

/** Start of the local month that contains `ms`. */
export function startOfMonth(ms: number, timeZone: string): number {
  const p = zonedParts(ms, timeZone);
  return zonedTimeToUtc(timeZone, p.year, p.month, 1);
}

/** Start of the local calendar quarter (Jan, Apr, Jul, Oct) that contains `ms`. */
export function startOfQuarter(ms: number, timeZone: string): number {
  const p = zonedParts(ms, timeZone);
  return zonedTimeToUtc(timeZone, p.year, p.month - ((p.month - 1) % 3), 1);
}

/** Start of the local year that contains `ms`. */
export function startOfYear(ms: number, timeZone: string): number {
  return zonedTimeToUtc(timeZone, zonedParts(ms, timeZone).year, 1, 1);
}

/** Start of the local hour that contains `ms` (zones with :30 or :45 offsets keep their phase). */
export function startOfHour(ms: number, timeZone: string): number {
  const p = zonedParts(ms, timeZone);
  return Math.floor(ms / 1000) * 1000 - (p.minute * 60 + p.second) * 1000;
}

/** The same local time `months` calendar months earlier or later (day clamped to the month's end). */
export function addMonths(ms: number, months: number, timeZone: string): number {
  const p = zonedParts(ms, timeZone);
  const lastDay = new Date(Date.UTC(p.year, p.month - 1 + months + 1, 0)).getUTCDate();
  const wall = zonedTimeToUtc(timeZone, p.year, p.month + months, Math.min(p.day, lastDay), p.hour, p.minute);
  return wall + p.second * 1000 + (ms % 1000);
}

const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, '0');

/**
 * `YYYY-MM-DDTHH:mm:ss.000±hhmm`: the bucket label of the published timeseries (ClickHouse's
 * `%FT%T.000%z`, an offset without a colon; behaviour.md §7.2).
 */
export function formatZoned(ms: number, timeZone: string): string {
  const p = zonedParts(ms, timeZone);
  const off = offsetMinutes(ms, timeZone);
  const sign = off < 0 ? '-' : '+';
  return (
    `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}.000` +
    `${sign}${pad(Math.trunc(Math.abs(off) / 60))}${pad(Math.abs(off) % 60)}`
  );
}
