/**
 * Click batches into DuckDB's `events`, two roads side by side in one process (issue 40): the
 * wide rows by value (`rowsOf` + the Appender, one native call per value: the road before) and
 * the batch's columns as data chunks (src/events/duckdb/click-chunks.ts). Each road has its own
 * file; a batch is what the click writer commits (BEGIN, the rows, its `click_batches` row,
 * COMMIT). Rounds alternate the roads; the figure is CPU of the whole process (every thread:
 * DuckDB's included) per click, from `process.cpuUsage`, over the round's batches.
 *
 * Clicks as bench/redirect/load.lua makes them: 10,000 links in 10 workspaces, every click from
 * its own address, 8 browser agents, 4 referers, half the URLs with UTM values.
 *
 * Settings: BENCH_BATCH (rows a batch, 300: the click writer's batch at ~3,000 clicks/s),
 * BENCH_BATCHES (a round, 200), BENCH_ROUNDS (6).
 * Run: npm run bench -- click-append
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { tableStatements } from '../src/events/duckdb/schema.js';
import { createEventAppender } from '../src/events/duckdb/row-appender.js';
import { columnsOf, rowsOf } from '../src/events/batch/wide-rows.js';
import type { ClickColumns } from '../src/events/batch/click-columns.js';
import { clickEvent } from '../src/events/rows.js';
import { clickIdOf } from '../src/visitors/click-id.js';

const BATCH = Number(process.env.BENCH_BATCH ?? 300);
const BATCHES = Number(process.env.BENCH_BATCHES ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const THREADS = Number(process.env.BENCH_THREADS ?? 2);
const CHECKPOINT = process.env.BENCH_CHECKPOINT ?? '256MB';

const AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
  'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
  'Mozilla/5.0 (iPad; CPU OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
];
const REFERERS = [['(direct)', '(direct)'], ['google.com', 'https://www.google.com/'], ['t.co', 'https://t.co/abc'], ['news.ycombinator.com', 'https://news.ycombinator.com/item?id=1']] as const;

let serial = 0;
/** One batch of clicks as the log thread hands it over: columns, ids from time and two random parts. */
function batch(now: number): ClickColumns {
  const rows = Array.from({ length: BATCH }, (_, i) => {
    const n = serial++;
    const link = (n * 7919) % 10_000;
    const [referer, referer_url] = REFERERS[n % 4]!;
    return clickEvent({
      workspace_id: `ws_bench_${link % 10}`, timestamp: now + i, id: clickIdOf(now + i, n % 14_000_000, n), link_id: `link_bench_${link}`,
      domain: 'wm.example', key: `k${link}`, url: `https://shop.example.com/product/${link}`, country: 'DE', city: 'Berlin', region: 'DE-BE', continent: 'EU',
      device: 'Desktop', browser: 'Chrome', os: 'Windows', referer, referer_url, trigger: 'link', ip: `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`,
      ua: AGENTS[n % 8]!, utm_source: link % 2 ? 'newsletter' : null, utm_medium: link % 2 ? 'email' : null, utm_campaign: link % 2 ? 'spring' : null, utm_term: null, utm_content: null,
    });
  });
  const columns = columnsOf(rows);
  // The log thread's form: no text ids, the random parts instead.
  const random = new Uint32Array(2 * BATCH);
  rows.forEach((r, i) => [random[2 * i], random[2 * i + 1]] = [(serial - BATCH + i) % 14_000_000, serial - BATCH + i]);
  const { ids: _ids, ...rest } = columns;
  return { ...rest, random };
}

type Road = 'rows' | 'chunks';
const dir = mkdtempSync(join(tmpdir(), 'wm-click-append-'));
const sides = new Map<Road, { writer: DuckDBConnection; append: ReturnType<typeof createEventAppender>; seq: number; cpuUs: number; clicks: number; file: string }>();
for (const road of ['rows', 'chunks'] as Road[]) {
  const file = join(dir, `${road}.duckdb`);
  const instance = await DuckDBInstance.create(file, { threads: String(THREADS), memory_limit: '512MB', preserve_insertion_order: 'false', checkpoint_threshold: CHECKPOINT });
  const writer = await DuckDBConnection.create(instance);
  for (const s of tableStatements()) await writer.run(s);
  sides.set(road, { writer, append: createEventAppender(writer), seq: 0, cpuUs: 0, clicks: 0, file });
}

async function round(road: Road): Promise<number> {
  const side = sides.get(road)!;
  const batches = Array.from({ length: BATCHES }, () => batch(Date.now()));
  const before = process.cpuUsage();
  for (const c of batches) {
    const seq = ++side.seq;
    await side.writer.run('BEGIN TRANSACTION');
    if (road === 'rows') await side.append.rows(rowsOf(c), seq);
    else await side.append.clicks(c, seq);
    await side.writer.run(`INSERT INTO click_batches VALUES (${seq}, 'b${seq}', ${Date.now()}, ${c.length}); COMMIT`);
  }
  const used = process.cpuUsage(before);
  const us = used.user + used.system;
  side.cpuUs += us;
  side.clicks += BATCH * BATCHES;
  return us / (BATCH * BATCHES);
}

const load = (): string => loadavg()[0]!.toFixed(2);
console.log(`click-append: ${ROUNDS} rounds × ${BATCHES} batches × ${BATCH} clicks per road; load ${load()}`);
for (let r = 0; r < ROUNDS; r++) {
  const order: Road[] = r % 2 ? ['chunks', 'rows'] : ['rows', 'chunks'];
  const figures: Record<string, number> = {};
  for (const road of order) figures[road] = await round(road);
  console.log(`round ${r + 1}: rows ${figures.rows!.toFixed(2)} µs/click, chunks ${figures.chunks!.toFixed(2)} µs/click, chunks ÷ rows ${(figures.chunks! / figures.rows!).toFixed(3)} (load ${load()})`);
}
const rowsSide = sides.get('rows')!;
const chunksSide = sides.get('chunks')!;
// Both files must hold every click, once.
for (const [road, side] of sides) {
  const [row] = (await side.writer.runAndReadAll('SELECT count(*) AS n, count(DISTINCT id) AS ids FROM events')).getRowObjectsJS();
  if (Number(row!.n) !== side.clicks || Number(row!.ids) !== side.clicks) throw new Error(`${road}: ${row!.n} rows, ${row!.ids} ids for ${side.clicks} clicks`);
  await side.writer.run('CHECKPOINT');
}
const mean = (s: typeof rowsSide) => s.cpuUs / s.clicks;
console.log(`all rounds: rows ${mean(rowsSide).toFixed(2)} µs/click, chunks ${mean(chunksSide).toFixed(2)} µs/click: ${(mean(chunksSide) / mean(rowsSide)).toFixed(3)} ×; every click stored once on both`);
console.log(`file after CHECKPOINT: rows ${(statSync(rowsSide.file).size / rowsSide.clicks).toFixed(1)} B/click, chunks ${(statSync(chunksSide.file).size / chunksSide.clicks).toFixed(1)} B/click`);
for (const side of sides.values()) side.writer.closeSync();
rmSync(dir, { recursive: true, force: true });
