/**
 * Column event store benchmark (issue 19): DuckDB as the event log's column store at BENCH_EVENTS
 * click rows (default 5,000,000), in a temporary folder.
 *
 * - Lead attribution's click look-up (`findClick` → `eventById`, which bounds `timestamp` with the
 *   time a click id spells, src/visitors/click-id.ts, so zone maps skip row groups), against a
 *   plain table looked up the same way by hand.
 * - Writer CPU per appended click in batches of 2,000 (the click writer's batch): the engine's
 *   `append` (which skips ids stored within the rows' span) against a plain table's appender, at
 *   the full size; bytes per event on disk after a checkpoint; the load rate.
 * - Grouping latency (median of BENCH_RUNS) on a big workspace (1/4 of the rows) and a small one,
 *   through the store's SQL builder; including a filter combination no rollup holds. Measured in
 *   insertion (time) order, then again after the compaction of closed days (duckdb-engine.ts `compact`,
 *   timed too), side by side.
 * - Beside it, the SQL store's writer (events + rollups, SQLite file) on 20 batches of 2,000.
 *
 * Run: npm run bench -- column-store   (BENCH_EVENTS=1000000 for a quicker run; ~15 min at 5M on 2 cores)
 * Heavy phases hold /tmp/waymark-bench.lock (flock), shared with the other benchmarks.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { BIGINT, DuckDBDataChunk, DuckDBInstance, VARCHAR, type DuckDBValue } from '@duckdb/node-api';
import { openDuckDbEngine } from '../src/events/duckdb/duckdb-engine.js';
import { duckDbDialect } from '../src/events/duckdb/dialect.js';
import { EVENT_COLUMNS, INTEGER_COLUMNS, NULLABLE_EVENT_COLUMNS } from '../src/events/column/column-engine.js';
import { aggregateQuery, pageQuery } from '../src/events/column/query-sql.js';
import { buildScope } from '../src/events/link-scope.js';
import { clickEvent } from '../src/events/rows.js';
import { clickIdOf, clickIdTime } from '../src/visitors/click-id.js';
import type { AggregateSpec, EventRow } from '../src/events/event-store.js';
import { openDatabase } from '../src/db/open.js';
import { createEventWriter } from '../src/events/sql/event-writer.js';
import { prng } from './analytics/generate.js';

const N = Number(process.env.BENCH_EVENTS ?? 5_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
// BENCH_COMPACT_DAYS: the compaction's period (1: each closed day; 30: 30-day periods).
const BATCH = 2000;
const LOAD_BATCH = 20_000;
const DAY = 86_400_000;
const END = Date.parse('2026-11-01T00:00:00Z');
const START = END - 90 * DAY;
const LOCK = '/tmp/waymark-bench.lock';

function acquireLock(): Promise<{ release(): void }> {
  const holder = spawn('flock', [LOCK, 'sh', '-c', 'echo locked; read _'], { stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    holder.stdout.once('data', () => resolve({ release: () => holder.stdin.end() }));
    holder.once('error', reject);
  });
}

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};
const fmt = (ms: number) => (ms < 10 ? ms.toFixed(2) : ms.toFixed(1));
const cpuMicros = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

const COUNTRIES = ['US', 'DE', 'FR', 'GB', 'IN', 'BR', 'JP', 'CA', 'ES', 'IT', 'NL', 'SE', 'PL', 'MX', 'AU', 'KR', 'TR', 'AR', 'ZA', 'NG'];
const DEVICES = ['Desktop', 'Mobile', 'Tablet'];
const BROWSERS = ['Chrome', 'Safari', 'Firefox', 'Edge', 'Samsung Internet', 'Opera'];
const OSES = ['Windows', 'iOS', 'Android', 'Mac OS', 'Linux'];
const REFERERS = Array.from({ length: 50 }, (_, i) => (i === 0 ? '(direct)' : `site${i}.example`));

/** Row `i` of the data set: time-ordered, a quarter in the big workspace, 5,000 in the small one. */
function makeRows(from: number, count: number, rnd: () => number): EventRow[] {
  const out: EventRow[] = [];
  for (let i = from; i < from + count; i++) {
    const ts = START + Math.floor((i / N) * 90 * DAY);
    const big = i % 4 === 0;
    const small = !big && i % Math.max(1, Math.floor(N / 5000)) === 1;
    const ws = big ? 'ws_big' : small ? 'ws_small' : `ws_${i % 200}`;
    const link = `lnk_${ws}_${Math.floor(rnd() * rnd() * 2000)}`;
    const country = COUNTRIES[Math.floor(rnd() * rnd() * COUNTRIES.length)]!;
    const referer = REFERERS[Math.floor(rnd() * rnd() * REFERERS.length)]!;
    out.push(
      clickEvent({
        workspace_id: ws, timestamp: ts, id: clickIdOf(ts, Math.floor(rnd() * 14_776_336), Math.floor(rnd() * 916_132_832)), link_id: link,
        domain: 'go.bench', key: link.slice(-6), url: `https://example.com/p/${link.slice(-4)}?utm_source=x`, country, city: `${country}-city-${Math.floor(rnd() * 20)}`,
        region: `${country}-R${Math.floor(rnd() * 5)}`, continent: 'EU', device: DEVICES[Math.floor(rnd() * 3)]!, browser: BROWSERS[Math.floor(rnd() * rnd() * 6)]!,
        os: OSES[Math.floor(rnd() * 5)]!, referer, referer_url: referer === '(direct)' ? referer : `https://${referer}/post/${Math.floor(rnd() * 100)}`,
        trigger: rnd() < 0.05 ? 'qr' : 'link', ip: `203.0.${Math.floor(rnd() * 256)}.0`, ua: 'Mozilla/5.0 (bench)',
        utm_source: rnd() < 0.6 ? 'newsletter' : null, utm_medium: null, utm_campaign: null, utm_term: null, utm_content: null,
      }),
    );
  }
  return out;
}

/** The comparison table: the same columns, no index at all, appended with the same data chunks. */
async function openPlainTable(path: string) {
  const instance = await DuckDBInstance.create(path, { memory_limit: '512MB', threads: '2', preserve_insertion_order: 'false' });
  const c = await instance.connect();
  const cols = EVENT_COLUMNS.map((col) => `"${col}" ${INTEGER_COLUMNS.has(col) ? 'BIGINT' : 'VARCHAR'}${NULLABLE_EVENT_COLUMNS.has(col) ? '' : ' NOT NULL'}`);
  await c.run(`CREATE TABLE events (${cols.join(', ')})`);
  const types = EVENT_COLUMNS.map((col) => (INTEGER_COLUMNS.has(col) ? BIGINT : VARCHAR));
  return {
    async append(rows: readonly EventRow[]) {
      await c.run('BEGIN TRANSACTION');
      const appender = await c.createAppender('events');
      for (let i = 0; i < rows.length; i += 2048) {
        const part = rows.slice(i, i + 2048);
        const chunk = DuckDBDataChunk.create(types, part.length);
        chunk.setColumns(EVENT_COLUMNS.map((col) => part.map((r): DuckDBValue => {
          const v = r[col];
          return v == null ? null : INTEGER_COLUMNS.has(col) ? BigInt(v as number) : (v as string);
        })));
        appender.appendDataChunk(chunk);
      }
      appender.flushSync();
      appender.closeSync();
      await c.run('COMMIT');
    },
    /** The look-up with the time its click id spells: zone maps on `timestamp` skip the other row groups. */
    async find(id: string) {
      const t = clickIdTime(id);
      const r = await c.runAndReadAll('SELECT * FROM events WHERE "timestamp" = $1::BIGINT AND id = $2::VARCHAR', [BigInt(t), id], [BIGINT, VARCHAR]);
      return r.getRowObjectsJS()[0];
    },
    checkpoint: () => c.run('CHECKPOINT'),
    close() {
      c.closeSync();
      instance.closeSync();
    },
  };
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-column-bench-'));
  const lock = await acquireLock();
  try {
    console.log(`column store benchmark: ${N.toLocaleString('en')} click rows, batches of ${BATCH}, DuckDB memory_limit 512MB, threads 2`);
    const enginePath = join(dir, 'engine.duckdb');
    const plainPath = join(dir, 'plain.duckdb');
    const engine = await openDuckDbEngine({ path: enginePath });
    const plain = await openPlainTable(plainPath);
    const rnd = prng(19);
    const sample: string[] = [];
    let genCpu = 0;
    let engineCpu = 0;
    let plainCpu = 0;
    const wall0 = performance.now();
    // Loaded LOAD_BATCH rows per transaction: one commit (a WAL fsync) per 2,000 rows made the load
    // wait on the disk for most of its time; the click writer's own batch size is timed below.
    for (let i = 0; i < N; i += LOAD_BATCH) {
      let c = cpuMicros();
      const rows = makeRows(i, Math.min(LOAD_BATCH, N - i), rnd);
      genCpu += cpuMicros() - c;
      for (let k = 0; k < 10; k++) sample.push(rows[Math.floor(rnd() * rows.length)]!.id);
      c = cpuMicros();
      await engine.append(rows);
      engineCpu += cpuMicros() - c;
      c = cpuMicros();
      await plain.append(rows);
      plainCpu += cpuMicros() - c;
    }
    const loadS = (performance.now() - wall0) / 1000;
    console.log(`load (${LOAD_BATCH.toLocaleString('en')} rows per transaction): ${loadS.toFixed(1)} s for both tables; CPU per click over the whole load: making the row ${(genCpu / N).toFixed(1)} µs, ` +
      `append through the engine ${(engineCpu / N).toFixed(1)} µs, plain appender ${(plainCpu / N).toFixed(1)} µs ` +
      `(→ ${Math.round(N / ((genCpu + engineCpu) / 1e6)).toLocaleString('en')} events/s of one core through the engine)`);

    // Steady state at the full size: 50 more batches, CPU per click.
    for (const [name, append] of [['through the engine', (r: EventRow[]) => engine.append(r)], ['plain appender', (r: EventRow[]) => plain.append(r)]] as const) {
      const extra = Array.from({ length: 50 }, (_, b) => makeRows(N + b * BATCH, BATCH, prng(1000 + b)).map((r) => ({ ...r, timestamp: END + b * 1000, id: clickIdOf(END + b * 1000, b, Math.floor(Math.random() * 9e8)) })));
      for (const rows of extra) for (const r of rows) r.click_id = r.id;
      const c0 = cpuMicros();
      const w0 = performance.now();
      for (const rows of extra) await append(rows);
      const perClick = (cpuMicros() - c0) / (50 * BATCH);
      console.log(`append at ${N.toLocaleString('en')} rows, ${name}: ${perClick.toFixed(1)} µs CPU per click, ${((performance.now() - w0) / 50).toFixed(1)} ms wall per batch of ${BATCH}`);
    }

    await engine.checkpoint();
    await plain.checkpoint();
    const total = N + 50 * BATCH;
    const size = (p: string) => statSync(p).size;
    console.log(`on disk after CHECKPOINT: the engine's file ${(size(enginePath) / 1e6).toFixed(0)} MB (${(size(enginePath) / total).toFixed(1)} B/event), ` +
      `plain table ${(size(plainPath) / 1e6).toFixed(0)} MB (${(size(plainPath) / total).toFixed(1)} B/event)`);

    // Lead attribution: find a click by id.
    const misses = sample.slice(0, 100).map((id) => id.slice(0, 7) + 'zzzzzzzzz');
    for (const [name, find] of [['eventById', (id: string) => engine.eventById(id)], ['plain table, time from the id', (id: string) => plain.find(id)]] as const) {
      for (const id of sample.slice(0, 20)) await find(id);
      const times: number[] = [];
      let found = 0;
      for (const id of sample) {
        const t = performance.now();
        if (await find(id)) found++;
        times.push(performance.now() - t);
      }
      const missTimes: number[] = [];
      for (const id of misses) {
        const t = performance.now();
        await find(id);
        missTimes.push(performance.now() - t);
      }
      console.log(`findClick, ${name}: ${found}/${sample.length} found; p50 ${fmt(quantile(times, 0.5))} ms, p99 ${fmt(quantile(times, 0.99))} ms, max ${fmt(Math.max(...times))} ms; unknown id p50 ${fmt(quantile(missTimes, 0.5))} ms`);
    }

    // Groupings through the store's SQL builder (links resolved to an empty exclusion list).
    const spec = (workspaceId: string, over: Partial<AggregateSpec>): AggregateSpec => ({
      workspaceId, kinds: ['click'], group: [], timeseries: false, dims: [], conversions: {}, scope: buildScope({ workspaceId, links: {}, named: false }), ...over,
    });
    const queries: [string, Partial<AggregateSpec>, 'agg' | 'page'][] = [
      ['count', {}, 'agg'],
      ['timeseries', { timeseries: true }, 'agg'],
      ['top countries', { group: ['country'] }, 'agg'],
      ['top links', { group: ['link_id'] }, 'agg'],
      ['links × browser=Chrome, country in (US,DE), referer without query', {
        group: ['link_id'],
        dims: [
          { column: 'browser', mode: 'ci', filter: { op: 'in', values: ['chrome'] } },
          { column: 'country', mode: 'exact', filter: { op: 'in', values: ['US', 'DE'] } },
          { column: 'referer_url', mode: 'withoutQuery', filter: { op: 'notIn', values: ['https://site1.example/post/1'] } },
        ],
      }, 'agg'],
      ['events page (100, newest first)', {}, 'page'],
    ];
    /** Median ms of every query per (workspace, days), and the clicks counted. */
    const groupings = async () => {
      const out: { label: string; clicks: number; medians: number[] }[] = [];
      for (const [workspaceId, days] of [['ws_big', 30], ['ws_big', 90], ['ws_small', 30], ['ws_small', 90]] as const) {
        const range = { from: END - days * DAY, to: END };
        const counted = await engine.query(aggregateQuery(duckDbDialect, spec(workspaceId, {}), range, { exclude: [] }));
        const medians: number[] = [];
        for (const [, over, kind] of queries) {
          const q = kind === 'agg'
            ? aggregateQuery(duckDbDialect, spec(workspaceId, over), range, { exclude: [] })
            : pageQuery(duckDbDialect, spec(workspaceId, over), range, { exclude: [] }, { order: 'desc', limit: 100, offset: 0 });
          await engine.query(q);
          const times: number[] = [];
          for (let r = 0; r < RUNS; r++) {
            const t = performance.now();
            await engine.query(q);
            times.push(performance.now() - t);
          }
          medians.push(quantile(times, 0.5));
        }
        out.push({ label: `${workspaceId}, last ${days} days`, clicks: Number(counted[0]?.clicks ?? 0), medians });
      }
      return out;
    };
    const before = await groupings();
    // Compaction (duckdb-engine.ts `compact`): every day of the data set is closed; each is rewritten in
    // (workspace_id, timestamp) order, then the same queries again, side by side.
    const cc0 = cpuMicros();
    const cw0 = performance.now();
    const periodDays = Number(process.env.BENCH_COMPACT_DAYS ?? 1);
    const compacted = await engine.compact(END, undefined, periodDays);
    const compactS = (performance.now() - cw0) / 1000;
    console.log(`compaction of ${compacted.days} closed periods of ${periodDays} day(s), ${compacted.rows.toLocaleString('en')} rows: ${compactS.toFixed(1)} s wall, ` +
      `${((cpuMicros() - cc0) / compacted.rows).toFixed(1)} µs CPU per row (${((compactS * 1000) / compacted.days).toFixed(0)} ms per period held from appends)`);
    await engine.checkpoint();
    console.log(`on disk after compaction and CHECKPOINT: ${(statSync(enginePath).size / 1e6).toFixed(0)} MB (${(statSync(enginePath).size / total).toFixed(1)} B/event)`);
    const after = await groupings();
    console.log('grouping medians in ms, insertion (time) order → closed days compacted by workspace:');
    for (let i = 0; i < before.length; i++) {
      const b = before[i]!;
      const a = after[i]!;
      const cells = queries.map(([name], k) => `${name} ${fmt(b.medians[k]!)} → ${fmt(a.medians[k]!)}`);
      console.log(`  ${b.label} (${b.clicks.toLocaleString('en')} clicks${a.clicks === b.clicks ? '' : `, after: ${a.clicks}`}): ${cells.join('; ')}`);
    }
    console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
    await engine.close();
    plain.close();

    // The SQL store's writer beside it: events + rollups in one transaction per batch, SQLite file.
    const database = await openDatabase(`file:${join(dir, 'sql.db')}`);
    const writer = createEventWriter(database.dialect);
    const batches = Array.from({ length: 21 }, (_, b) => makeRows(b * BATCH, BATCH, prng(2000 + b)));
    await writer.append(database.db, batches[0]!);
    const c0 = cpuMicros();
    for (const rows of batches.slice(1)) await writer.append(database.db, rows);
    console.log(`SQL store writer (events + rollups, SQLite file, ≤ 42,000 rows): ${((cpuMicros() - c0) / (20 * BATCH)).toFixed(1)} µs CPU per click`);
    await database.close();
  } finally {
    lock.release();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
