/**
 * What a span costs this process when tracing is on (docs/tracing.md): the CPU of starting,
 * attributing and ending spans shaped like the log thread's batch spans (`events.append_clicks`
 * with a child `events.fold`), with the batch processor serialising them to OTLP JSON and sending
 * them over HTTP to a receiver in a child process (its CPU is not counted). Divided by the clicks a
 * batch carries, it is what tracing adds per redirect: the redirect itself has no span
 * (bench/tracing/README.md). Alternates rounds of traced and untraced (`NO_TRACES`) batches.
 *
 * Settings: BENCH_SPANS (20000 batches a round), BENCH_ROUNDS (4).
 * Run: npx tsx bench/tracing.ts
 */
import { fork } from 'node:child_process';
import { loadavg } from 'node:os';
import { NO_TRACES, startTraces, type Traces } from '../src/tracing/traces.js';
import { acquireLock } from './redirect/wrk.js';

const SPANS = Number(process.env.BENCH_SPANS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);

if (process.argv[2] === 'receiver') {
  const { startOtlpReceiver } = await import('../src/tracing/testing.js');
  const otlp = await startOtlpReceiver();
  process.send!({ url: otlp.url });
  process.on('message', () => process.send!({ spans: otlp.spans.length }, () => process.exit(0)));
} else {
  const child = fork(new URL(import.meta.url).pathname, ['receiver'], { execArgv: ['--import', 'tsx'] });
  const url = await new Promise<string>((ok) => child.once('message', (m: { url: string }) => ok(m.url)));
  const traces = await startTraces({ url, headers: {}, serviceName: 'bench', sampleRatio: 1, exportDelayMs: 200 }, 'event-log');

  const batches = async (t: Traces, n: number) => {
    const before = process.cpuUsage();
    for (let i = 0; i < n; i++) {
      const span = t.start('events.append_clicks', { kind: 'consumer', attributes: { 'waymark.batch.id': `b${i}`, 'waymark.batch.clicks': 2000, 'waymark.event_store': 'duckdb' } });
      const fold = t.start('events.fold', { parent: span, attributes: { 'waymark.fold.mode': 'inline', 'waymark.fold.clicks': 2000 } });
      fold.set({ 'waymark.fold.listeners': 'counters,outbox,webhooks' });
      fold.end();
      span.set({ 'waymark.batch.stored': true });
      span.end();
      // Let the batch processor's timer and sends run, as they do between real batches.
      if (i % 100 === 99) await new Promise((r) => setTimeout(r, 1));
    }
    await new Promise((r) => setTimeout(r, 400));
    const used = process.cpuUsage(before);
    return (used.user + used.system) / n;
  };

  // No two benchmarks measure at once (bench/redirect/wrk.ts).
  const lock = await acquireLock();
  await batches(traces, 2000);
  console.log(`tracing: CPU of one click batch's spans (the batch and its fold), ${SPANS} batches a round, exported to a receiver in another process`);
  const on: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const off = await batches(NO_TRACES, SPANS);
    const traced = await batches(traces, SPANS);
    on.push(traced - off);
    console.log(`  round ${round}: traced ${traced.toFixed(2)} µs, off ${off.toFixed(2)} µs a batch (the difference includes the 400 ms idle tail / ${SPANS}); load ${loadavg()[0]!.toFixed(2)}`);
  }
  lock.release();
  await traces.close();
  const received = await new Promise<number>((ok) => {
    child.once('message', (m: { spans: number }) => ok(m.spans));
    child.send('count');
  });
  const mean = on.reduce((a, b) => a + b, 0) / on.length;
  console.log(`  mean ${mean.toFixed(2)} µs a batch for 2 spans; per click: ${(mean / 2000).toFixed(4)} µs at 2,000 clicks a batch, ${(mean / 100).toFixed(3)} µs at 100; spans received ${received} of ${2 * (2000 + SPANS * ROUNDS)}`);
}
