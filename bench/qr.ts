/**
 * QR benchmark (issue 13): what a QR code costs the event loop, and what QR traffic does to
 * redirects, before (qrcode's PNG path, bench/limits/qrcode-render.ts) and after (src/qr/png.ts).
 *
 * 1. Per render, in this process, each code new (no cache): CPU on the main thread (the event
 *    loop's time), CPU on all threads, and wall time; for short-link codes at 600 and 2000 px and
 *    a ~1,900-character URL at 2000 px. Three sides: before, the matrix PNG drawn on the main
 *    thread (src/qr/draw.ts called directly), and after (through the render thread).
 * 2. Redirect latency under QR load: Waymark (SQLite) in its own process; wrk paced on one short
 *    link (every request a new click), alone and beside a second wrk with 8 connections asking
 *    for new 2000 px codes back to back (the 8 concurrent requesters), once with each
 *    renderer. The per-address QR limit is raised for the run: it would stop one address at 10
 *    codes a second, and this measures the renderer.
 *
 * Settings (environment): BENCH_DURATION (s per run, default 10), BENCH_RENDERS (renders per
 * case in part 1, default 20; the 2000 px "before" renders take ~0.25 s each), BENCH_PACED_RATE
 * (redirects/s offered, default 1000). The whole run holds /tmp/waymark-bench.lock (flock).
 *
 * Run: npm run bench -- qr   (needs wrk and flock)
 */
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createQrRenderer, type QrOptions } from '../src/qr/render.js';
import { drawQr } from '../src/qr/draw.js';
import { renderWithQrcode } from './limits/qrcode-render.js';
import { threadCpuNs } from './redirect/thread-cpu.js';
import { openClickBench } from './redirect/click-db.js';
import { LOAD_LUA, errors, holdBenchLock, machineLine, ms, rps, startServer, stopServer, wrk, type WrkResult } from './limits/harness.js';

holdBenchLock(import.meta.url, 'bench/qr');

const here = dirname(fileURLToPath(import.meta.url));
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const RENDERS = Number(process.env.BENCH_RENDERS ?? 20);
const PACED_RATE = Number(process.env.BENCH_PACED_RATE ?? 1000);
const CONNECTIONS = 10;
const QR_CONNECTIONS = 8;

// ---- 1. one render ---------------------------------------------------------------------------

interface RenderCost {
  mainMs: number;
  allMs: number;
  wallMs: number;
  bytes: number;
}

async function perRender(render: (o: QrOptions) => Promise<{ body: Buffer | string }>, text: (n: number) => string, size: number): Promise<RenderCost> {
  const options = (n: number): QrOptions => ({ text: text(n), format: 'png', size, level: 'L', margin: 2, fg: '#000000', bg: '#ffffff' });
  await render(options(-1)); // warm-up: code paths compiled
  const t0 = threadCpuNs();
  const c0 = process.cpuUsage();
  const w0 = performance.now();
  let bytes = 0;
  for (let n = 0; n < RENDERS; n++) bytes += (await render(options(n))).body.length;
  const wall = performance.now() - w0;
  const c1 = process.cpuUsage(c0);
  const t1 = threadCpuNs();
  return {
    mainMs: t0 && t1 ? (t1.main - t0.main) / 1e6 / RENDERS : NaN,
    allMs: (c1.user + c1.system) / 1000 / RENDERS,
    wallMs: wall / RENDERS,
    bytes: bytes / RENDERS,
  };
}

async function renderCosts(): Promise<void> {
  const cases = [
    { label: 'short link, 600 px ', size: 600, text: (n: number) => `https://go.bench/k${n}?qr=1` },
    { label: 'short link, 2000 px', size: 2000, text: (n: number) => `https://go.bench/k${n}?qr=1` },
    { label: '1,900-char URL, 2000 px', size: 2000, text: (n: number) => `https://go.bench/k${n}?p=${'a'.repeat(1880)}` },
  ];
  console.log(`1. per render (${RENDERS} new codes each, sequential, in this process; main = the event loop's CPU)`);
  console.log('   before: qrcode (RGBA pixel by pixel, pngjs); main thread: the matrix PNG drawn here; after: the same on the render thread');
  for (const c of cases) {
    const before = await perRender(renderWithQrcode, c.text, c.size);
    const mainThread = await perRender(drawQr, c.text, c.size);
    // A renderer per case and a new text per render: every render is a miss, as on the other sides.
    const renderer = createQrRenderer();
    const after = await perRender(renderer.render, c.text, c.size);
    await renderer.close();
    const cost = (x: RenderCost) => `main ${ms(x.mainMs)} ms, all threads ${ms(x.allMs)} ms, wall ${ms(x.wallMs)} ms`;
    console.log(`  ${c.label}`);
    console.log(`    before       ${cost(before)}, ${(before.bytes / 1024).toFixed(1)} KB`);
    console.log(`    main thread  ${cost(mainThread)}, ${(mainThread.bytes / 1024).toFixed(1)} KB`);
    console.log(`    after        ${cost(after)}   event-loop time before/after ${(before.mainMs / after.mainMs).toFixed(0)}×, CPU before/after ${(before.allMs / after.allMs).toFixed(0)}×`);
  }
}

// ---- 2. redirects beside QR traffic ----------------------------------------------------------

let octet = 11;
/** Paced redirects on go.bench/k0, each a new visitor (a new click), for `seconds`. */
function redirects(port: number, seconds: number): Promise<WrkResult> {
  const paceMs = Math.max(1, Math.round((CONNECTIONS * 1000) / PACED_RATE));
  const script = [String(octet++), '1', '1', 'human', String(paceMs)];
  return wrk(['-t', '1', '-c', String(CONNECTIONS), '-d', `${seconds}s`, '--timeout', '20s', '--latency', '-s', join(here, 'redirect', 'load.lua'), `http://127.0.0.1:${port}`, '--', ...script]);
}

/** 8 connections asking for new QR codes back to back, for `seconds`. */
function qrTraffic(port: number, seconds: number, url: 'short' | 'long'): Promise<WrkResult> {
  return wrk(['-t', '1', '-c', String(QR_CONNECTIONS), '-d', `${seconds}s`, '--timeout', '20s', '-s', LOAD_LUA, `http://127.0.0.1:${port}`, '--', 'qr', '2000', url]);
}


async function underQrLoad(dbUrl: string): Promise<void> {
  console.log(`\n2. redirect latency: wrk paced at ${PACED_RATE} redirects/s (${CONNECTIONS} connections, every request a new click), ${DURATION} s per run,`);
  console.log(`   alone and beside ${QR_CONNECTIONS} connections asking for new 2000 px QR codes back to back`);
  const rows: { label: string; alone: WrkResult; loaded: WrkResult; qr: WrkResult }[] = [];
  const sides: { label: string; renderer: string; url: 'short' | 'long' }[] = [
    { label: 'before: qrcode on the main thread, short-link codes', renderer: 'qrcode', url: 'short' },
    { label: 'matrix PNG on the main thread,     short-link codes', renderer: 'main', url: 'short' },
    { label: 'after: matrix PNG on the render thread, short-link codes', renderer: 'thread', url: 'short' },
    { label: 'matrix PNG on the main thread,     1,900-char URL codes', renderer: 'main', url: 'long' },
    { label: 'after: matrix PNG on the render thread, 1,900-char URL codes', renderer: 'thread', url: 'long' },
  ];
  for (const side of sides) {
    const server = await startServer({ DATABASE_URL: dbUrl, BASE_URL: 'http://localhost:3000', TRUST_PROXY: 'true', QR_RATE_LIMIT_PER_MINUTE: '100000000', BENCH_QR_RENDERER: side.renderer });
    try {
      await redirects(server.port, 2); // warm-up: the link cached, code paths compiled
      const alone = await redirects(server.port, DURATION);
      // The QR load starts first and ends after the redirect run, so it covers all of it.
      const qr = qrTraffic(server.port, DURATION + 3, side.url);
      await new Promise((r) => setTimeout(r, 1000));
      const loaded = await redirects(server.port, DURATION);
      rows.push({ label: side.label, alone, loaded, qr: await qr });
    } finally {
      await stopServer(server.child);
    }
    const r = rows.at(-1)!;
    const line = (w: WrkResult) => `${rps(w).toFixed(0).padStart(5)} req/s  p50 ${ms(w.p50_us / 1000).padStart(7)} ms  p99 ${ms(w.p99_us / 1000).padStart(7)} ms  max ${ms(w.max_us / 1000).padStart(7)} ms  errors ${errors(w)}`;
    console.log(`  ${r.label}`);
    console.log(`    redirects alone          ${line(r.alone)}`);
    console.log(
      r.loaded.requests
        ? `    redirects beside QR load ${line(r.loaded)}   (p50 ×${(r.loaded.p50_us / r.alone.p50_us).toFixed(1)}, p99 ×${(r.loaded.p99_us / r.alone.p99_us).toFixed(1)})`
        : `    redirects beside QR load     none answered within the ${DURATION} s run`,
    );
    console.log(`    QR codes served          ${rps(r.qr).toFixed(1)} /s, p50 ${ms(r.qr.p50_us / 1000)} ms, errors ${errors(r.qr)}`);
  }
}

async function main() {
  console.log(`${machineLine()}\n`);
  await renderCosts();
  const bench = await openClickBench(1);
  try {
    await underQrLoad(`file:${bench.database.sqlitePath}`);
  } finally {
    await bench.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
