/**
 * The retention benchmark's database, built fast and as production would hold it: click events
 * inserted with SQL (100,000 per transaction) together with their rollups, computed by the click
 * fold's own code (`rollupDeltas`, src/events/sql/rollup-deltas.ts) and added with the same
 * upsert, the fold's watermark (`click_rollup_state.folded_before`) past the newest filled event,
 * and each link's `clicks` / `last_clicked`. So the server starts with nothing to fold or recover,
 * and a retention pass deletes events whose periods the rollups still answer, as in production.
 * The workspace's monthly `usage` is left at 0 (the filled clicks are older than this month's
 * limits would care about, and a full usage must not refuse the benchmark's clicks).
 *
 * Time layout, relative to the fill: `old` events spread over 60 → 45 days ago, the others over
 * the last 15 days (newest one minute ago). With a 30-day horizon a pass deletes exactly the old
 * ones for 15 days after the fill, so the cached file (cachedDatabase) stays valid that long.
 *
 * @example
 * const file = await cachedDatabase({ events: 500_000, old: 100_000, links: 10_000 }, console.log);
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite from 'better-sqlite3';
import type { StoredEvent } from '../../src/events/event-store.js';
import { DAILY_COLUMNS, HOURLY_COLUMNS, boundValues, rollupDeltas } from '../../src/events/sql/rollup-deltas.js';
import { ROLLUP_DIMS } from '../../src/events/sql/rollup-spec.js';
import { seedLinks, BENCH_DOMAIN } from '../redirect/seed.js';

export const DAY = 86_400_000;
/** A cached file is rebuilt after this long: new events would start to cross a 30-day horizon. */
const VALID_MS = 14 * DAY;
const BATCH = 100_000;

export interface FillParams {
  events: number;
  old: number;
  links: number;
}

export interface FilledDatabase {
  file: string;
  /** When the fill ran: old events are older than `filledAt - 45 days`, the others newer than `filledAt - 15 days`. */
  filledAt: number;
}

/** Where the file for these parameters is kept between runs. */
export function cacheFile(p: FillParams): string {
  return join(tmpdir(), 'waymark-bench-retention', `v2-e${p.events}-o${p.old}-l${p.links}.db`);
}

/** The cached file for `p`, built when missing or stale. Callers copy it; they never open it. */
export async function cachedDatabase(p: FillParams, log: (line: string) => void): Promise<FilledDatabase> {
  const file = cacheFile(p);
  const meta = `${file}.json`;
  if (existsSync(file) && existsSync(meta)) {
    const { filledAt } = JSON.parse(readFileSync(meta, 'utf8')) as { filledAt: number };
    if (Date.now() - filledAt < VALID_MS) {
      log(`reusing ${file} (filled ${new Date(filledAt).toISOString()})`);
      return { file, filledAt };
    }
  }
  mkdirSync(join(file, '..'), { recursive: true });
  const building = `${file}.building`;
  for (const f of [building, `${building}-wal`, `${building}-shm`, file, meta]) rmSync(f, { force: true });
  const started = Date.now();
  const workspaceId = await seedLinks(`file:${building}`, p.links);
  const filledAt = Date.now();
  fill(building, workspaceId, p, filledAt);
  verify(building, p, filledAt);
  // Checkpointed and closed: the side files are empty; a stale pair must not sit beside the next build.
  for (const f of [`${building}-wal`, `${building}-shm`]) rmSync(f, { force: true });
  renameSync(building, file);
  writeFileSync(meta, JSON.stringify({ filledAt, ...p }));
  log(`built ${file} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return { file, filledAt };
}

const COUNTRIES = [['US', 'San Francisco', 'US-CA', 'NA'], ['DE', 'Berlin', 'DE-BE', 'EU'], ['FR', 'Paris', 'FR-IDF', 'EU'], ['JP', 'Tokyo', 'JP-13', 'AS'], ['BR', 'São Paulo', 'BR-SP', 'SA']] as const;
const AGENTS = [['Desktop', 'Chrome', 'Mac OS'], ['Mobile', 'Safari', 'iOS'], ['Desktop', 'Firefox', 'Windows'], ['Mobile', 'Chrome', 'Android']] as const;
const REFERERS = [['google.com', 'https://google.com/'], ['(direct)', '(direct)'], ['t.co', 'https://t.co/x'], ['news.ycombinator.com', 'https://news.ycombinator.com/item']] as const;

/** Timestamp of event i (0 is the newest): the first `events - old` over the last 15 days, the rest over 60 → 45 days ago. */
function stamp(i: number, p: FillParams, filledAt: number): number {
  const recent = p.events - p.old;
  if (i < recent) return Math.floor(filledAt - 60_000 - (i * (15 * DAY - 120_000)) / Math.max(1, recent));
  return Math.floor(filledAt - 45 * DAY - ((i - recent) * (15 * DAY - 60_000)) / Math.max(1, p.old));
}

function fill(file: string, workspaceId: string, p: FillParams, filledAt: number): void {
  const db = new BetterSqlite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  const links = db.prepare('select id, key, url from links where workspace_id = ? order by key').all(workspaceId) as { id: string; key: string; url: string }[];
  const insert = db.prepare(`insert into events (workspace_id, timestamp, id, kind, click_id, link_id, domain, key, url, country, city, region, continent,
    device, browser, os, referer, referer_url, trigger, ip, ua, amount) values (?, ?, ?, 'click', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)`);
  const add = (cols: readonly string[]) => cols.slice(-4).map((c) => `${c} = ${c} + excluded.${c}`).join(', ');
  const hourly = db.prepare(`insert into analytics_hourly (${HOURLY_COLUMNS.join(', ')}) values (${HOURLY_COLUMNS.map(() => '?').join(', ')})
    on conflict (workspace_id, bucket) do update set ${add(HOURLY_COLUMNS)}`);
  const daily = db.prepare(`insert into analytics_daily (${DAILY_COLUMNS.join(', ')}) values (${DAILY_COLUMNS.map(() => '?').join(', ')})
    on conflict (workspace_id, dim, bucket, key_hash) do update set ${add(DAILY_COLUMNS)}`);
  const perLink = new Map<string, { clicks: number; last: number }>();
  const batch = db.transaction((from: number, to: number) => {
    const rows: StoredEvent[] = [];
    for (let i = from; i < to; i++) {
      const link = links[i % links.length]!;
      const [country, city, region, continent] = COUNTRIES[i % COUNTRIES.length]!;
      const [device, browser, os] = AGENTS[(i >> 3) % AGENTS.length]!;
      const [referer, refererUrl] = REFERERS[(i >> 5) % REFERERS.length]!;
      const id = `evt_${i.toString(36).padStart(10, '0')}`;
      // Click ids are random in production (ids.ts, newClickId), so deleting old events dirties
      // pages all over the click-id index: a bijective scramble of i spreads them the same way.
      const clickId = `${(Math.imul(i, 0x9e3779b1) >>> 0).toString(36).padStart(7, '0')}${i.toString(36)}`;
      const timestamp = stamp(i, p, filledAt);
      const e = {
        workspace_id: workspaceId, timestamp, id, kind: 'click', click_id: clickId, link_id: link.id, domain: BENCH_DOMAIN, key: link.key, url: link.url,
        country, city, region, continent, device, browser, os, referer, referer_url: refererUrl, trigger: 'link', ip: '203.0.113.0', ua: 'Mozilla/5.0', amount: 0,
        utm_source: null, utm_medium: null, utm_campaign: null, utm_term: null, utm_content: null,
      };
      insert.run(e.workspace_id, e.timestamp, e.id, e.click_id, e.link_id, e.domain, e.key, e.url, e.country, e.city, e.region, e.continent,
        e.device, e.browser, e.os, e.referer, e.referer_url, e.trigger, e.ip, e.ua);
      rows.push(e as unknown as StoredEvent);
      const c = perLink.get(link.id);
      if (c) (c.clicks++, (c.last = Math.max(c.last, timestamp)));
      else perLink.set(link.id, { clicks: 1, last: timestamp });
    }
    // The fold's own summing, so the rollups hold what the fold would have made of these events.
    const deltas = rollupDeltas(rows);
    for (const h of deltas.hourly) hourly.run(boundValues([h], HOURLY_COLUMNS));
    for (const d of deltas.daily) daily.run(boundValues([d], DAILY_COLUMNS));
  });
  for (let i = 0; i < p.events; i += BATCH) batch(i, Math.min(p.events, i + BATCH));
  const bump = db.prepare('update links set clicks = ?, last_clicked = ? where id = ?');
  db.transaction(() => {
    for (const [id, c] of perLink) bump.run(c.clicks, c.last, id);
    // Every filled click is folded: the server recovers nothing and folds only its own clicks.
    db.prepare('update click_rollup_state set folded_before = ? where id = 1').run(stamp(0, p, filledAt) + 1);
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

/** Throws unless events, rollups and counters agree: every dimension and the hourly table count each event once. */
function verify(file: string, p: FillParams, filledAt: number): void {
  const db = new BetterSqlite(file, { readonly: true });
  const one = (q: string, ...args: unknown[]) => Number(Object.values(db.prepare(q).get(...args) as object)[0] ?? 0);
  const checks: [string, number, number][] = [
    ['events', one('select count(*) from events'), p.events],
    ['old events', one('select count(*) from events where timestamp < ?', filledAt - 30 * DAY), p.old],
    ['hourly clicks', one('select sum(clicks) from analytics_hourly'), p.events],
    ['hourly clicks before the horizon', one('select sum(clicks) from analytics_hourly where bucket < ?', filledAt - 30 * DAY), p.old],
    ['link counters', one('select sum(clicks) from links'), p.events],
    ['watermark past the events', one('select folded_before > (select max(timestamp) from events) from click_rollup_state'), 1],
    ...Object.keys(ROLLUP_DIMS).map((dim): [string, number, number] => [`daily clicks (${dim})`, one('select sum(clicks) from analytics_daily where dim = ?', dim), p.events]),
  ];
  db.close();
  const wrong = checks.filter(([, got, want]) => got !== want);
  if (wrong.length) throw new Error(`filled database inconsistent: ${wrong.map(([what, got, want]) => `${what} ${got} ≠ ${want}`).join('; ')}`);
}
