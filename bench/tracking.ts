/**
 * Track endpoints benchmark (issue 5): leads (`wait`) and sales through the whole Fastify stack
 * (auth, validation, service, one transaction per request), in process with `inject`, so the
 * figure is the service and database cost without sockets.
 *
 * Seeds BENCH_LINKS links with one click each, then runs BENCH_N leads (one new customer each) and
 * BENCH_N sales (one per customer, each with its own invoice id) with BENCH_CONCURRENCY requests
 * in flight. Prints requests/s and p50/p99 latency per phase, and checks the counters afterwards.
 *
 * Engine: temp SQLite by default; DATABASE_URL=postgres://… uses a private schema on that server.
 * Run: npm run bench -- tracking
 */
import { cpus } from 'node:os';
import { createTestApp } from '../src/test-support/harness.js';
import { insertClick, insertLink } from '../src/test-support/conversions.js';

const N = Number(process.env.BENCH_N ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const LINKS = Number(process.env.BENCH_LINKS ?? 50);

async function phase(name: string, count: number, run: (i: number) => Promise<number>): Promise<void> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        const i = next++;
        const t0 = performance.now();
        const status = await run(i);
        latencies.push(performance.now() - t0);
        if (status !== 200) throw new Error(`${name} #${i}: HTTP ${status}`);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!.toFixed(2);
  console.log(`${name.padEnd(6)} ${count} requests in ${seconds.toFixed(2)} s: ${(count / seconds).toFixed(0)} req/s, p50 ${q(0.5)} ms, p99 ${q(0.99)} ms`);
}

const t = await createTestApp();
try {
  const engine = t.database.dialect.name;
  console.log(`engine ${engine}, ${cpus()[0]?.model ?? 'cpu'} × ${cpus().length}, node ${process.version}; N=${N}, concurrency ${CONCURRENCY}, ${LINKS} links`);
  const clicks = [];
  for (let i = 0; i < LINKS; i++) clicks.push(await insertClick(t, await insertLink(t)));

  await phase('lead', N, async (i) => {
    const click = clicks[i % LINKS]!;
    const res = await t.inject({
      method: 'POST',
      url: '/track/lead',
      payload: { clickId: click.click_id, eventName: 'Sign up', customerExternalId: `bench-${i}`, mode: 'wait' },
    });
    return res.statusCode;
  });
  await phase('sale', N, async (i) => {
    const res = await t.inject({
      method: 'POST',
      url: '/track/sale',
      payload: { customerExternalId: `bench-${i}`, amount: 1000, currency: 'eur', invoiceId: `inv-${i}` },
    });
    return res.statusCode;
  });

  const totals = await t.ctx.database.db
    .selectFrom('links')
    .select((eb) => [eb.fn.sum<number>('leads').as('leads'), eb.fn.sum<number>('sales').as('sales'), eb.fn.sum<number>('conversions').as('conversions')])
    .where('workspace_id', '=', t.workspaceId)
    .executeTakeFirstOrThrow();
  console.log(`counters: leads ${Number(totals.leads)}, sales ${Number(totals.sales)}, conversions ${Number(totals.conversions)} (expected ${N} each)`);
} finally {
  await t.close();
}
