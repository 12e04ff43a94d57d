/**
 * ClickHouse engine benchmark (issue 19), in-process through chdb (ClickHouse 26.7): what an
 * append costs per event and how long groupings take on one workspace of BENCH_ROWS events.
 *
 * 1. Appends BENCH_ROWS synthetic clicks (one workspace, 2,000 links, 30 days) in batches of
 *    2,000 through the engine (stored-id look-up, then a JSONCompactEachRow insert), and prints the
 *    process CPU per event (Node and the embedded ClickHouse threads together, since chdb runs in
 *    this process; it includes making the rows in JavaScript) and the wall time.
 * 2. Appends as many rows of another workspace, over the same days, through bare inserts (no id
 *    look-up), to show what the idempotency look-up costs.
 * 3. Runs each grouping BENCH_RUNS times through the engine's query path (`final = 1`, as the
 *    store reads) and once more without FINAL, and prints the median of each.
 *
 * Settings: BENCH_ROWS (default 1,000,000), BENCH_RUNS (default 7).
 * Run: npm run bench -- clickhouse
 */
import { cpus, loadavg } from 'node:os';
import type { StoredEvent, AggregateSpec, DimColumn, DimFilter } from '../src/events/event-store.js';
import { aggregateQuery } from '../src/events/column/query-sql.js';
import { EVENT_COLUMNS } from '../src/events/column/column-engine.js';
import { openChdbExecutor } from '../src/events/clickhouse/chdb-executor.js';
import { bindParams } from '../src/events/clickhouse/dialect.js';
import { insertRow, openClickHouseEngine } from '../src/events/clickhouse/clickhouse-engine.js';
import { prng, zipf } from './analytics/generate.js';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const BATCH = 2000;
const LINKS = 2000;
const DAY = 86_400_000;
const END = Date.UTC(2026, 10, 1);
const START = END - 30 * DAY;
const WS = 'ws_bench';

const COUNTRIES = ['US', 'DE', 'GB', 'FR', 'IN', 'BR', 'CA', 'JP', 'NL', 'ES', 'IT', 'AU'];
const DEVICES = ['Desktop', 'Mobile', 'Tablet'];
const BROWSERS = ['Chrome', 'Safari', 'Firefox', 'Edge', 'Samsung Internet'];
const OSES = ['Windows', 'iOS', 'Android', 'Mac OS', 'Linux'];

/** `count` clicks of workspace `ws`, time-ordered across the 30 days, ids unique per `tag`. */
function* clicks(count: number, tag: string, seed: number, ws = WS): Generator<StoredEvent[]> {
  const rnd = prng(seed);
  const link = zipf(LINKS, 1.1, rnd);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  for (let i = 0; i < count; i += BATCH) {
    const batch: StoredEvent[] = [];
    for (let j = i; j < Math.min(count, i + BATCH); j++) {
      const l = link();
      const country = pick(COUNTRIES);
      const id = `clk_${tag}${j.toString(36).padStart(8, '0')}`;
      batch.push({
        workspace_id: ws, timestamp: START + Math.floor((j / count) * 30 * DAY), id, kind: 'click', click_id: id,
        link_id: `lnk_${l}`, domain: 'wm.test', key: `k${l}`, url: `https://example.com/p/${l}`, country, city: 'City', region: `${country}-01`,
        continent: 'EU', device: pick(DEVICES), browser: pick(BROWSERS), os: pick(OSES), referer: rnd() < 0.5 ? '(direct)' : 'google.com',
        referer_url: '(direct)', trigger: rnd() < 0.1 ? 'qr' : 'link', ip: `203.0.${j % 256}.0`, ua: 'Mozilla/5.0', amount: 0,
        utm_source: rnd() < 0.3 ? 'newsletter' : null,
      });
    }
    yield batch;
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

function spec(group: DimColumn[], dims: DimFilter[] = [], timeseries = false): AggregateSpec {
  return {
    workspaceId: WS, kinds: ['click'], group, dims, timeseries, conversions: {},
    // aggregateQuery takes the links already resolved: the scope is not read.
    scope: { mode: 'workspace', input: { workspaceId: WS } },
  } as unknown as AggregateSpec;
}

async function main(): Promise<void> {
  console.log(`ClickHouse engine through chdb: ${ROWS.toLocaleString('en-US')} clicks in one workspace, batches of ${BATCH}; ${cpus().length} CPUs, load average ${loadavg()[0]!.toFixed(1)}`);
  const executor = await openChdbExecutor();
  const engine = await openClickHouseEngine({ executor });

  let wall = performance.now();
  let cpu = cpuMs();
  for (const batch of clicks(ROWS, 'a', 1)) await engine.append(batch);
  const appendCpu = ((cpuMs() - cpu) * 1000) / ROWS;
  const appendWall = (performance.now() - wall) / 1000;
  console.log(`append through the engine (id look-up + insert): ${appendCpu.toFixed(1)} µs CPU per event, ${(ROWS / appendWall).toFixed(0)} events/s`);

  wall = performance.now();
  cpu = cpuMs();
  for (const batch of clicks(ROWS, 'b', 2, 'ws_other')) await executor.insert('events', EVENT_COLUMNS, batch.map(insertRow));
  const bareCpu = ((cpuMs() - cpu) * 1000) / ROWS;
  const bareWall = (performance.now() - wall) / 1000;
  console.log(`bare inserts (no id look-up):                    ${bareCpu.toFixed(1)} µs CPU per event, ${(ROWS / bareWall).toFixed(0)} events/s`);
  const [size] = await executor.query(`SELECT sum(data_compressed_bytes) AS b, sum(rows) AS r, count() AS parts FROM system.parts WHERE active AND table = 'events'`);
  console.log(`on disk: ${(Number(size!.b) / Number(size!.r)).toFixed(1)} bytes per event compressed, ${size!.parts} active parts`);

  const range = { from: START, to: END };
  const none = { exclude: [] as string[] };
  const queries: [string, AggregateSpec][] = [
    ['count', spec([])],
    ['top countries', spec(['country'])],
    ['top links', spec(['link_id'])],
    ['top links, browser=Chrome and device=Mobile', spec(['link_id'], [
      { column: 'browser', mode: 'exact', filter: { op: 'in', values: ['Chrome'] } },
      { column: 'device', mode: 'exact', filter: { op: 'in', values: ['Mobile'] } },
    ])],
    ['timeseries by quarter hour', spec([], [], true)],
    ['country x device', spec(['country', 'device'])],
  ];
  console.log(`\ngrouping over the ${ROWS.toLocaleString('en-US')} events of one workspace (another as large beside it), median of ${RUNS} runs (ms):`);
  console.log('query'.padEnd(46), 'final=1'.padStart(9), 'no FINAL'.padStart(9));
  for (const [name, s] of queries) {
    const q = aggregateQuery(engine.dialect, s, range, none);
    const timed = async (run: () => Promise<unknown>) => {
      await run();
      const ms: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const t = performance.now();
        await run();
        ms.push(performance.now() - t);
      }
      return median(ms);
    };
    const withFinal = await timed(() => engine.query(q));
    const plain = await timed(() => executor.query(q.text, bindParams(q.params)));
    console.log(name.padEnd(46), withFinal.toFixed(1).padStart(9), plain.toFixed(1).padStart(9));
  }
  // 50 clicks spread over the workspace, each looked up once; beside it the floor of any query.
  const lookups: number[] = [];
  const floor: number[] = [];
  for (let i = 0; i < 50; i++) {
    const probe = `clk_a${Math.floor((i * ROWS) / 50).toString(36).padStart(8, '0')}`;
    let t = performance.now();
    const found = await engine.eventById(probe);
    lookups.push(performance.now() - t);
    if (!found) throw new Error(`click ${probe} not found`);
    t = performance.now();
    await executor.query('SELECT 1');
    floor.push(performance.now() - t);
  }
  console.log(`\nlook-up of one click by id (lead attribution): ${median(lookups).toFixed(1)} ms median of 50; a bare SELECT 1: ${median(floor).toFixed(1)} ms`);
  // Latencies move with the machine's load (CPU per event does not): print it beside them.
  console.log(`load average at the end: ${loadavg()[0]!.toFixed(1)}`);
  await engine.close();
}

await main();
