/**
 * Waymark for bench/qr.ts and bench/rate-limit.ts: the real buildApp on the database the parent
 * names, with two switches for the side being measured:
 * - BENCH_QR_RENDERER=qrcode renders QR codes the way they were rendered before (qrcode-render.ts),
 *   `main` draws them as now but on the main thread, without the render thread;
 * - BENCH_RATE_COUNTERS=process counts rate limits in this process's memory even on PostgreSQL.
 * Reports its port when listening; answers `cpu` with its CPU time split by thread, `close` by
 * shutting down.
 */
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/open.js';
import { buildApp } from '../../src/app.js';
import { threadCpuNs } from '../redirect/thread-cpu.js';
import { renderWithQrcode } from './qrcode-render.js';
import { drawQr } from '../../src/qr/draw.js';

const config = loadConfig(process.env);
const database = await openDatabase(config.databaseUrl);
const { app, modules } = await buildApp({ config, database, logger: false, processLocalRateCounters: process.env.BENCH_RATE_COUNTERS === 'process' });
if (process.env.BENCH_QR_RENDERER === 'qrcode') modules.qr.renderer.render = renderWithQrcode;
if (process.env.BENCH_QR_RENDERER === 'main') modules.qr.renderer.render = drawQr;
await modules.redirect.geoReady();
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
process.send?.({ type: 'ready', port: typeof address === 'object' && address ? address.port : 0 });

process.on('message', async (msg: { type: string }) => {
  if (msg.type === 'cpu') process.send?.({ type: 'cpu', stats: { ...process.cpuUsage(), threads: threadCpuNs() } });
  if (msg.type === 'close') {
    await app.close();
    await database.close();
    process.send?.({ type: 'closed' }, () => process.exit(0));
  }
});
process.on('disconnect', () => process.exit(0));
