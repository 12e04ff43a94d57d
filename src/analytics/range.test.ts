import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertRangeAllowedForPlan, bucketStarts, resolveRange, type RangeRequest } from './range.js';
import { formatZoned, offsetMinutes, startOfDay, zonedTimeToUtc } from './zoned-time.js';

// 2024-05-15T03:00Z is 2024-05-14 20:00 in Los Angeles (PDT, UTC-7).
const NOW = Date.parse('2024-05-15T03:00:00.000Z');
const ctx = { now: NOW, workspaceCreatedAt: Date.parse('2024-02-01T12:00:00Z'), timeseries: false };
const iso = (ms: number) => new Date(ms).toISOString();
const DAY = 86_400_000;
const range = (req: RangeRequest, timeseries = false) => resolveRange(req, { ...ctx, timeseries });

test('presets in UTC: start, exclusive end and granularity', () => {
  const cases: [RangeRequest['interval'], string, string, string][] = [
    ['24h', '2024-05-14T03:00:00.000Z', '2024-05-15T03:00:00.001Z', 'hour'],
    ['7d', '2024-05-08T03:00:00.000Z', '2024-05-16T00:00:00.000Z', 'day'],
    ['30d', '2024-04-15T03:00:00.000Z', '2024-05-16T00:00:00.000Z', 'day'],
    ['90d', '2024-02-15T03:00:00.000Z', '2024-05-16T00:00:00.000Z', 'day'],
    ['1y', '2023-05-15T03:00:00.000Z', '2024-05-16T00:00:00.000Z', 'month'],
    ['mtd', '2024-05-01T00:00:00.000Z', '2024-05-16T00:00:00.000Z', 'day'],
    ['qtd', '2024-04-01T00:00:00.000Z', '2024-05-16T00:00:00.000Z', 'day'],
    ['ytd', '2024-01-01T00:00:00.000Z', '2024-05-16T00:00:00.000Z', 'month'],
    ['all', '1970-01-01T00:00:00.000Z', '2024-05-16T00:00:00.000Z', 'month'],
  ];
  for (const [interval, from, to, granularity] of cases) {
    const r = range({ interval });
    assert.deepEqual([iso(r.from), iso(r.to), r.granularity], [from, to, granularity], interval);
  }
});

test('the default interval is the spec’s 24h', () => {
  const r = range({});
  assert.equal(r.interval, '24h');
  assert.equal(r.from, NOW - 24 * 3_600_000);
});

test('mtd, qtd and ytd follow the calendar of the requested zone', () => {
  const tz = 'America/Los_Angeles';
  // Local "today" is May 14: month, quarter and year start at local midnight (UTC-7 / UTC-8).
  assert.equal(iso(range({ interval: 'mtd', timezone: tz }).from), '2024-05-01T07:00:00.000Z');
  assert.equal(iso(range({ interval: 'qtd', timezone: tz }).from), '2024-04-01T07:00:00.000Z');
  assert.equal(iso(range({ interval: 'ytd', timezone: tz }).from), '2024-01-01T08:00:00.000Z');
  assert.equal(iso(range({ interval: 'mtd', timezone: tz }).to), '2024-05-15T07:00:00.000Z');
  // East of UTC, local today is already May 15 at 05:00 in Berlin; the quarter starts at local midnight.
  assert.equal(iso(range({ interval: 'qtd', timezone: 'Europe/Berlin' }).from), '2024-03-31T22:00:00.000Z');
  assert.equal(iso(range({ interval: 'mtd', timezone: 'Asia/Kolkata' }).from), '2024-04-30T18:30:00.000Z');
});

test('an unknown zone falls back to UTC silently', () => {
  assert.equal(range({ interval: 'mtd', timezone: 'Mars/Olympus' }).timezone, 'UTC');
});

test('explicit start/end: whole local days, swapped when reversed, granularity from the span', () => {
  const a = range({ start: '2024-05-14', end: '2024-05-14' });
  assert.deepEqual([iso(a.from), iso(a.to), a.granularity], ['2024-05-14T00:00:00.000Z', '2024-05-15T00:00:00.000Z', 'hour']);
  const b = range({ start: '2024-05-14T10:00:00Z', end: '2024-05-01' });
  assert.deepEqual([iso(b.from), iso(b.to), b.granularity], ['2024-05-01T00:00:00.000Z', '2024-05-15T00:00:00.000Z', 'day']);
  const c = range({ start: '2023-01-01', end: '2024-01-01' });
  assert.equal(c.granularity, 'month');
  // start wins over interval; end alone is ignored
  assert.equal(range({ start: '2024-05-10', interval: '24h' }).granularity, 'day');
  assert.equal(range({ end: '2024-01-01', interval: '24h' }).to, NOW + 1);
  // a date without offset is a local date of the zone
  const la = range({ start: '2024-05-10', end: '2024-05-10', timezone: 'America/Los_Angeles' });
  assert.deepEqual([iso(la.from), iso(la.to)], ['2024-05-10T07:00:00.000Z', '2024-05-11T07:00:00.000Z']);
  // timeseries with interval=all start at the workspace's creation day
  const all = range({ interval: 'all' }, true);
  assert.deepEqual([iso(all.from), iso(all.to), all.granularity], ['2024-02-01T00:00:00.000Z', iso(NOW + 1), 'day']);
  assert.throws(() => range({ start: 'not a date' }), /Invalid date/);
});

test('interval=all as a timeseries: from the first event or the creation, whichever is earlier, to now', () => {
  const HOUR = 3_600_000;
  const at = (over: Partial<typeof ctx> & { firstEventAt?: number }, req: RangeRequest = { interval: 'all' }) => resolveRange(req, { ...ctx, timeseries: true, ...over });
  // Events imported from 30 days before a workspace created today: daily buckets over those days.
  const createdToday = Date.parse('2024-05-15T01:00:00Z');
  const imported = at({ workspaceCreatedAt: createdToday, firstEventAt: NOW - 30 * DAY - 5 * HOUR });
  assert.deepEqual([iso(imported.from), iso(imported.to), imported.granularity], ['2024-04-14T00:00:00.000Z', iso(NOW + 1), 'day']);
  const days = bucketStarts(imported);
  assert.equal(days.length, 32);
  assert.equal(iso(days.at(-1)!), '2024-05-15T00:00:00.000Z');
  // The creation still decides when it is earlier than every event.
  assert.equal(iso(at({ firstEventAt: NOW - HOUR }).from), '2024-02-01T00:00:00.000Z');
  // Over 180 days: months, the last one the current month.
  const old = at({ firstEventAt: Date.parse('2023-03-20T10:00:00Z') });
  assert.deepEqual([iso(old.from), old.granularity, bucketStarts(old).length], ['2023-03-20T00:00:00.000Z', 'month', 15]);
  // A new workspace without older events: hours of today up to the current one, none to come.
  const fresh = at({ workspaceCreatedAt: createdToday });
  const hours = bucketStarts(fresh);
  assert.equal(fresh.granularity, 'hour');
  assert.deepEqual([hours.length, iso(hours.at(-1)!)], [4, '2024-05-15T03:00:00.000Z']);
  // In a zone where today began earlier: hours from local midnight, still ending at now.
  const la = bucketStarts(at({ workspaceCreatedAt: createdToday }, { interval: 'all', timezone: 'America/Los_Angeles' }));
  assert.deepEqual([la.length, formatZoned(la.at(-1)!, 'America/Los_Angeles')], [21, '2024-05-14T20:00:00.000-0700']);
  // Counts of interval=all keep every stored event.
  assert.equal(range({ interval: 'all' }).from, 0);
});

test('explicit dates up to today: a series stops at now, counts keep whole days, granularity from the days', () => {
  const today = { start: '2024-05-15', end: '2024-05-15' };
  const series = range(today, true);
  assert.deepEqual([iso(series.from), iso(series.to), series.granularity], ['2024-05-15T00:00:00.000Z', iso(NOW + 1), 'hour']);
  assert.equal(bucketStarts(series).length, 4);
  assert.equal(iso(range(today).to), '2024-05-16T00:00:00.000Z');
  // Four days: daily, today's bucket the last.
  const days = range({ start: '2024-05-12' }, true);
  assert.deepEqual([days.granularity, bucketStarts(days).map(iso).at(-1)], ['day', '2024-05-15T00:00:00.000Z']);
  // Past dates and dates wholly to come are left as asked.
  assert.equal(iso(range({ start: '2024-05-10', end: '2024-05-11' }, true).to), '2024-05-12T00:00:00.000Z');
  assert.equal(iso(range({ start: '2024-06-01', end: '2024-06-01' }, true).to), '2024-06-02T00:00:00.000Z');
  // The plan limit judges the days asked for, series or not.
  const created = ctx.workspaceCreatedAt;
  const proYear = { start: '2023-05-14' };
  assert.throws(() => assertRangeAllowedForPlan('pro', proYear, range(proYear, true), created), /Pro plan/);
  assert.throws(() => assertRangeAllowedForPlan('pro', proYear, range(proYear), created), /Pro plan/);
  const proOk = { start: '2023-05-16' };
  assert.doesNotThrow(() => assertRangeAllowedForPlan('pro', proOk, range(proOk, true), created));
});

test('timeseries buckets: zone-aligned starts, DST-safe hours, labels with a colon-less offset', () => {
  const day = range({ interval: 'mtd', timezone: 'America/Los_Angeles' }, true);
  const days = bucketStarts(day);
  assert.equal(days.length, 14);
  assert.equal(formatZoned(days[0]!, 'America/Los_Angeles'), '2024-05-01T00:00:00.000-0700');
  assert.equal(formatZoned(days[13]!, 'America/Los_Angeles'), '2024-05-14T00:00:00.000-0700');

  const months = bucketStarts(range({ interval: 'ytd', timezone: 'America/Los_Angeles' }, true));
  assert.deepEqual(
    months.map((m) => formatZoned(m, 'America/Los_Angeles')),
    ['2024-01-01T00:00:00.000-0800', '2024-02-01T00:00:00.000-0800', '2024-03-01T00:00:00.000-0800', '2024-04-01T00:00:00.000-0700', '2024-05-01T00:00:00.000-0700'],
  );

  // The night DST ends in New York (Nov 3, 2024) has 25 hours: 25 hourly buckets, two labelled 01:00.
  const ny = 'America/New_York';
  const from = zonedTimeToUtc(ny, 2024, 11, 3);
  const hours = bucketStarts({ from, to: zonedTimeToUtc(ny, 2024, 11, 4), granularity: 'hour', timezone: ny });
  assert.equal(hours.length, 25);
  assert.deepEqual(hours.slice(1, 3).map((h) => formatZoned(h, ny)), ['2024-11-03T01:00:00.000-0400', '2024-11-03T01:00:00.000-0500']);
  // Its day bucket is 25 hours long and the next one starts at local midnight.
  const dayBuckets = bucketStarts({ from, to: zonedTimeToUtc(ny, 2024, 11, 5), granularity: 'day', timezone: ny });
  assert.deepEqual(dayBuckets.map((d) => formatZoned(d, ny)), ['2024-11-03T00:00:00.000-0400', '2024-11-04T00:00:00.000-0500']);
  assert.equal(formatZoned(Date.parse('2024-05-22T00:00:00Z'), 'UTC'), '2024-05-22T00:00:00.000+0000');
  assert.equal(formatZoned(Date.parse('2024-05-22T00:00:00Z'), 'Asia/Kathmandu'), '2024-05-22T05:45:00.000+0545');
});

test('zone helpers', () => {
  assert.equal(offsetMinutes(NOW, 'America/Los_Angeles'), -420);
  assert.equal(iso(startOfDay(NOW, 'America/Los_Angeles')), '2024-05-14T07:00:00.000Z');
  assert.equal(iso(startOfDay(NOW, 'UTC')), '2024-05-15T00:00:00.000Z');
});

test('plan limits on the range (behaviour.md §7.2)', () => {
  const created = ctx.workspaceCreatedAt;
  const check = (plan: string, req: RangeRequest) => () => assertRangeAllowedForPlan(plan, req, range(req), created);
  assert.throws(check('free', { interval: '90d' }), /up to 30 days on a Free plan/);
  assert.throws(check('free', { interval: 'ytd' }), /Free plan/);
  assert.throws(check('free', { start: '2024-01-01' }), /Free plan/);
  assert.doesNotThrow(check('free', { interval: '30d' }));
  assert.doesNotThrow(check('free', { interval: 'qtd' }));
  // the workspace is older than 31 days, so `all` reaches too far on free
  assert.throws(check('free', { interval: 'all' }), /Free plan/);
  assert.throws(check('pro', { start: '2022-01-01' }), /up to 1 year on a Pro plan/);
  assert.doesNotThrow(check('pro', { interval: 'all' }));
  assert.doesNotThrow(check('business', { start: '2020-01-01' }));
});
