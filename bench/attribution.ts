/**
 * Attribution benchmark (issue 43): `GET /analytics?event=sales&groupBy=top_links` with each
 * attribution model against the same query without one, on one workspace of BENCH_EVENTS events
 * (default 1,000,000) in a SQLite file with the SQL event store and its rollups, through the
 * HTTP stack (`inject`). bench/attribution/README.md says what it measures and why.
 *
 * Settings (environment): BENCH_EVENTS (default 1000000), BENCH_RUNS (timed runs per query,
 * default 7), BENCH_CUSTOMERS (default 60000), BENCH_SALES (default 20000), BENCH_EVENTS_URL
 * (the event store: `sql`, the default, or `duckdb`).
 *
 * Besides the HTTP figures, the time is split on the same aggregate: the credit step
 * (`attributedRows`), the read within it (`buyerConversions`), and on the SQL store the statement
 * alone on the main thread's connection, each with the load average beside it.
 *
 * The timed queries hold /tmp/waymark-bench.lock (acquireLock of bench/redirect/wrk.ts): run it
 * without a flock wrapper.
 *
 * Run: npm run bench -- attribution
 */
import { loadavg } from 'node:os';
import { sql } from 'kysely';
import { acquireLock } from './redirect/wrk.js';
import { createTestApp } from '../src/test-support/harness.js';
import { buildScope, conversionEvent, type AggregateSpec, type StoredEvent } from '../src/events/index.js';
import { attributedRows } from '../src/analytics/attributed.js';
import { buyerConversionsQuery } from '../src/events/sql/buyer-conversions.js';
import { createSqlEventStore } from '../src/events/sql/store.js';
import { clickIdOf } from '../src/visitors/click-id.js';
import { newId } from '../src/ids.js';
import { ATTRIBUTION_MODELS } from '../src/attribution/models.js';
import { prng, zipf } from './analytics/generate.js';

const N = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const CUSTOMERS = Number(process.env.BENCH_CUSTOMERS ?? 60_000);
const SALES = Number(process.env.BENCH_SALES ?? 20_000);
const EVENTS_URL = process.env.BENCH_EVENTS_URL ?? 'sql';
const LINKS = 1000;
const DAY = 86_400_000;
const BATCH = 10_000;

const t = await createTestApp({ env: { LOG_LEVEL: 'silent' }, config: { eventsUrl: EVENTS_URL } });
const db = t.ctx.database.db;
const now = Date.now();
const start = now - 85 * DAY;
const rnd = prng(43);
const pickLink = zipf(LINKS, 1.0, rnd);

const links: { id: string; domain: string; key: string; url: string }[] = [];
for (let i = 0; i < LINKS; i++) {
  const id = newId('link', start + i);
  const key = `b${i}`;
  links.push({ id, domain: 'bench.example', key, url: `https://shop.example.com/p/${i}` });
}
for (let i = 0; i < LINKS; i += 500) {
  await db
    .insertInto('links')
    .values(links.slice(i, i + 500).map((l, j) => ({ id: l.id, workspace_id: t.workspaceId, domain: l.domain, key: l.key, key_lower: l.key, url: l.url, short_link: `https://bench.example/${l.key}`, track_conversion: 1, created_at: start + i + j, updated_at: start + i + j })) as never)
    .execute();
}

let seq = 1;
function click(at: number): StoredEvent {
  const l = links[pickLink()]!;
  const id = clickIdOf(at, seq % 14_000_000, seq++);
  return {
    workspace_id: t.workspaceId, timestamp: at, id, kind: 'click', click_id: id, link_id: l.id, domain: l.domain, key: l.key, url: l.url,
    country: 'US', city: 'Austin', region: 'US-TX', continent: 'NA', device: 'Desktop', browser: 'Chrome', os: 'Windows', referer: '(direct)', referer_url: '(direct)',
    trigger: 'link', ip: '203.0.113.0', ua: 'bench',
  } as StoredEvent;
}

// Journeys: each customer 1-3 clicks, a lead on each; SALES sales on the latest lead's click; the
// rest anonymous clicks. Events go in time order per batch, as the log writes them.
const generated = performance.now();
let pending: StoredEvent[] = [];
let total = 0;
const flush = async () => {
  if (!pending.length) return;
  pending.sort((a, b) => a.timestamp - b.timestamp);
  // A checkpoint of a large log can hold the file for a moment (SQLITE_BUSY): try the batch again.
  for (let attempt = 0; ; attempt++) {
    try {
      await t.ctx.events.append(pending);
      break;
    } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_BUSY' || attempt >= 20) throw err;
      await new Promise((r) => setTimeout(r, 200 * (attempt + 1)));
    }
  }
  if (Math.floor((total + pending.length) / 100_000) > Math.floor(total / 100_000)) console.log(`  ${total + pending.length} events`);
  total += pending.length;
  pending = [];
};
const push = async (e: StoredEvent) => {
  pending.push(e);
  if (pending.length >= BATCH) await flush();
};
let sales = 0;
for (let c = 0; c < CUSTOMERS; c++) {
  const customer = `cus_bench_${c}`;
  let at = start + Math.floor(rnd() * 60 * DAY);
  let last: StoredEvent | undefined;
  for (let k = 1 + Math.floor(rnd() * 3); k > 0; k--) {
    const ck = click(at);
    await push(ck);
    await push(conversionEvent(ck as never, { workspace_id: t.workspaceId, timestamp: at + 60_000, id: newId('evt', at + 60_000), kind: 'lead', customer_id: customer, event_name: `Step ${k}` }) as StoredEvent);
    last = ck;
    at += Math.floor(rnd() * 10 * DAY);
  }
  if (sales < SALES && rnd() < SALES / CUSTOMERS + 0.05) {
    const when = Math.min(now - 1, at + Math.floor(rnd() * 3 * DAY));
    await push(conversionEvent(last as never, { workspace_id: t.workspaceId, timestamp: when, id: newId('evt', when), kind: 'sale', customer_id: customer, event_name: 'Purchase', amount: 1 + Math.floor(rnd() * 20_000) }) as StoredEvent);
    sales++;
  }
}
await flush();
while (total + pending.length < N) await push(click(start + Math.floor(rnd() * 85 * DAY)));
await flush();
console.log(`generated ${total} events (${CUSTOMERS} customers, ${sales} sales, ${LINKS} links) in ${((performance.now() - generated) / 1000).toFixed(1)} s`);

// Written around the roads: the credits' backfill credits every sale (docs/decisions/0015), as an
// upgrade does; its time per sale is the credit write a sale's transaction pays (the journey read
// and the rows), without the sale's own append.
const b0 = performance.now();
const backfilled = await t.modules.analytics.backfill.run({ restart: true });
const backfillMs = performance.now() - b0;
const creditRows = Number((await db.selectFrom('credits').select((e) => e.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
console.log(`backfill: ${backfilled} sales, ${creditRows} credit rows in ${(backfillMs / 1000).toFixed(1)} s (${((backfillMs / backfilled) * 1000).toFixed(0)} µs a sale)  load ${loadavg()[0]!.toFixed(2)}`);
if (EVENTS_URL === 'duckdb') {
  // The backfill's credits reach the event file by the log's upkeep (events/column/credit-copies.ts):
  // the timed part starts once the file is in step (until then the metadata database answers).
  const c0 = performance.now();
  const marked = async () => Number((await db.selectFrom('credit_copies').select((e) => e.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  while ((await marked()) > 0) await new Promise((r) => setTimeout(r, 50));
  console.log(`credits in the event file ${((performance.now() - c0) / 1000).toFixed(1)} s after the backfill  load ${loadavg()[0]!.toFixed(2)}`);
}

async function median(url: string): Promise<{ ms: number; rows: number }> {
  const times: number[] = [];
  let rows = 0;
  for (let i = 0; i < RUNS + 1; i++) {
    const t0 = performance.now();
    const res = await t.inject({ method: 'GET', url });
    const ms = performance.now() - t0;
    if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
    rows = (res.json() as unknown[]).length;
    if (i > 0) times.push(ms); // the first run warms caches
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(times.length / 2)]!, rows };
}

const load = () => loadavg()[0]!.toFixed(2);
// The timed part holds the benchmarks' lock (shared with the other benchmarks); generating does not.
const lock = await acquireLock();
const base = '/analytics?event=sales&groupBy=top_links&interval=90d';
console.log(`store ${EVENTS_URL}; median of ${RUNS} runs each, after one warm-up run`);
const plain = await median(base);
console.log(`none (published)      ${plain.ms.toFixed(1)} ms  (${plain.rows} rows)  load ${load()}`);
// Each model twice: the stored credits (the default lookback) and the read-time path (its own
// lookbackDays, the same 90 days), which must answer the same.
const answer = async (url: string) => JSON.stringify((await t.inject({ method: 'GET', url })).json());
for (const model of ATTRIBUTION_MODELS) {
  const r = await median(`${base}&attribution=${model}`);
  console.log(`${model.padEnd(21)} ${r.ms.toFixed(1)} ms  (${r.rows} rows, ${(r.ms / plain.ms).toFixed(2)} × none)  load ${load()}`);
  if (model === 'last_click') continue;
  const raw = await median(`${base}&attribution=${model}&lookbackDays=90`);
  console.log(`${`${model}, read-time`.padEnd(21)} ${raw.ms.toFixed(1)} ms  (${raw.rows} rows, ${(raw.ms / plain.ms).toFixed(2)} × none)  load ${load()}`);
  if ((await answer(`${base}&attribution=${model}`)) !== (await answer(`${base}&attribution=${model}&lookbackDays=90`))) throw new Error(`${model}: stored and read-time answers differ`);
}
// The stored credits' read alone, on the same spec (first_click by link): the log's own
// (`creditAggregate`: the DuckDB file's copy on DuckDB) against the metadata database's
// statement on the main thread's connection (where the DuckDB store read them before the copy).
{
  const spec: AggregateSpec = { workspaceId: t.workspaceId, kinds: ['sale'], group: ['link_id'], timeseries: false, dims: [], conversions: {}, scope: buildScope({ workspaceId: t.workspaceId, links: {}, named: false }) };
  const range = { from: Date.now() - 90 * DAY, to: Date.now() };
  const metadata = createSqlEventStore({ database: t.ctx.database });
  const logs: number[] = [];
  const metas: number[] = [];
  for (let i = 0; i < RUNS + 1; i++) {
    const t0 = performance.now();
    const a = await t.ctx.events.creditAggregate(spec, range, 'first_click');
    const t1 = performance.now();
    const b = await metadata.creditAggregate(spec, range, 'first_click');
    const t2 = performance.now();
    if (i > 0) (logs.push(t1 - t0), metas.push(t2 - t1));
    const sum = (rows: typeof a) => rows.reduce((x, r) => x + Number(r.sale_amount), 0);
    if (sum(a) !== sum(b)) throw new Error(`creditAggregate: the log's ${sum(a)} cents against the metadata database's ${sum(b)}`);
  }
  const mid = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  console.log(`credit read alone (first_click by link): the log's creditAggregate ${mid(logs).toFixed(1)} ms, the metadata database's statement ${mid(metas).toFixed(1)} ms  load ${load()}`);
  if (EVENTS_URL === 'sql') {
    // The covering index `credits_links` (migration 0040) against the clustered key alone, the same
    // statement alternated in this process: dropped, timed, created again, timed.
    const withIndex: number[] = [];
    const without: number[] = [];
    const timeOnce = async (into: number[]) => {
      const t0 = performance.now();
      await metadata.creditAggregate(spec, range, 'first_click');
      into.push(performance.now() - t0);
    };
    for (let i = 0; i < RUNS; i++) {
      await sql`drop index credits_links`.execute(db);
      await timeOnce([]);
      await timeOnce(without);
      await sql`create index credits_links on credits (workspace_id, model, "timestamp", sale_link_id, link_id, share, cents)`.execute(db);
      await timeOnce([]);
      await timeOnce(withIndex);
    }
    console.log(`the metadata database's credit statement with credits_links ${mid(withIndex).toFixed(1)} ms, without it ${mid(without).toFixed(1)} ms (alternated, ${RUNS} each)  load ${load()}`);
  }
}
const composite = await median('/analytics?event=composite&groupBy=top_links&interval=90d&attribution=linear');
console.log(`linear, composite     ${composite.ms.toFixed(1)} ms  (${composite.rows} rows)  load ${load()}`);
const byCountry = await median('/analytics?event=sales&groupBy=countries&interval=90d&attribution=linear&country=US');
console.log(`linear, countries, country=US (filter on the sale: the stored path joins the sales) ${byCountry.ms.toFixed(1)} ms  load ${load()}`);

// The split, same aggregate, same process: the credit step (read and models; the aggregate
// itself is run once and handed to it).
const spec: AggregateSpec = { workspaceId: t.workspaceId, kinds: ['sale'], group: ['link_id'], timeseries: false, dims: [], conversions: {}, scope: buildScope({ workspaceId: t.workspaceId, links: {}, named: false }) };
const range = { from: Date.now() - 90 * DAY, to: Date.now() };
const merged = await t.ctx.events.aggregate(spec, range);
const choice = { model: 'first_click' as const, lookbackMs: 90 * DAY };
const mid = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const credits: number[] = [];
let credited = 0;
for (let i = 0; i < RUNS + 1; i++) {
  const t0 = performance.now();
  const rows = await attributedRows(t.ctx.events, spec, range, merged, choice);
  if (i > 0) credits.push(performance.now() - t0);
  credited = rows.reduce((s, r) => s + r.sale_amount, 0);
}
const published = merged.reduce((s, r) => s + r.sale_amount, 0);
if (credited !== published) throw new Error(`first_click credits ${credited} cents of ${published}`);
console.log(`first_click credit step (attributedRows) ${mid(credits).toFixed(1)} ms  (credits all ${credited} cents)  load ${load()}`);
const reads: number[] = [];
let read = { sales: 0, journeys: 0 };
for (let i = 0; i < RUNS + 1; i++) {
  const t0 = performance.now();
  const r = await t.ctx.events.buyerConversions(spec, range, range.from - choice.lookbackMs);
  if (i > 0) reads.push(performance.now() - t0);
  read = { sales: r.sales.length, journeys: r.journeys.length };
}
console.log(`of which the read alone (buyerConversions: ${read.sales} sales, ${read.journeys} journey rows) ${mid(reads).toFixed(1)} ms  load ${load()}`);
if (EVENTS_URL === 'sql') {
  // The same statement on the main thread's own connection: the engine's share, without the
  // reader thread and the log thread's hand-offs.
  const q = buyerConversionsQuery(db, t.ctx.database.dialect, spec, range, range.from - choice.lookbackMs);
  const engine: number[] = [];
  for (let i = 0; i < RUNS + 1; i++) {
    const t0 = performance.now();
    await db.executeQuery(q);
    if (i > 0) engine.push(performance.now() - t0);
  }
  console.log(`of which SQLite runs the statement in ${mid(engine).toFixed(1)} ms  load ${load()}`);
}
lock.release();
await t.close();
