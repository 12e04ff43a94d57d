/**
 * The upgrade from the SQL store to the column store (src/events/upgrades/to-column-store.ts): BENCH_EVENTS
 * clicks (default 300,000, over 90 days, 200 workspaces) written through the SQL store's writer
 * (events + rollups) into a SQLite file, then moved into a DuckDB file: the time and CPU of the
 * copy, the count comparison and the drop, as events per second.
 *
 * Run: npm run bench -- column-upgrade   (BENCH_UPGRADE_BATCH: rows per batch, default 20,000 as at start)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../src/db/open.js';
import { createEventWriter } from '../src/events/sql/event-writer.js';
import { clickEvent } from '../src/events/rows.js';
import { clickIdOf } from '../src/visitors/click-id.js';
import { openDuckDbEngine } from '../src/events/duckdb/duckdb-engine.js';
import { upgradeToColumnStore } from '../src/events/upgrades/to-column-store.js';
import { prng } from './analytics/generate.js';

const N = Number(process.env.BENCH_EVENTS ?? 300_000);
const DAY = 86_400_000;
const END = Date.parse('2026-11-01T00:00:00Z');
const COUNTRIES = ['US', 'DE', 'FR', 'GB', 'IN', 'BR', 'JP', 'CA'];
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-upgrade-bench-'));
  try {
    const database = await openDatabase(`file:${join(dir, 'waymark.db')}`);
    const writer = createEventWriter(database.dialect);
    const rnd = prng(7);
    const w0 = performance.now();
    for (let i = 0; i < N; i += 5000) {
      const rows = Array.from({ length: Math.min(5000, N - i) }, (_, k) => {
        const n = i + k;
        const ts = END - 90 * DAY + Math.floor((n / N) * 90 * DAY);
        const ws = `ws_${n % 200}`;
        const id = clickIdOf(ts, n % 14_776_336, Math.floor(rnd() * 916_132_832));
        return clickEvent({
          workspace_id: ws, timestamp: ts, id, link_id: `lnk_${ws}_${Math.floor(rnd() * 50)}`, domain: 'go.bench', key: `k${n % 999}`,
          url: `https://example.com/p/${n % 300}`, country: COUNTRIES[n % 8]!, city: `c${n % 40}`, region: `r${n % 20}`, continent: 'EU',
          device: 'Desktop', browser: 'Chrome', os: 'Linux', referer: '(direct)', referer_url: '(direct)', trigger: 'link', ip: '203.0.113.0',
          ua: 'Mozilla/5.0 (bench)', utm_source: null, utm_medium: null, utm_campaign: null, utm_term: null, utm_content: null,
        });
      });
      await writer.append(database.db, rows);
    }
    console.log(`column store upgrade: ${N.toLocaleString('en')} clicks written through the SQL store in ${((performance.now() - w0) / 1000).toFixed(1)} s`);
    const engine = await openDuckDbEngine({ path: join(dir, 'waymark.events.duckdb') });
    const c0 = cpu();
    const t0 = performance.now();
    const phases: string[] = [];
    let last = t0;
    const batch = Number(process.env.BENCH_UPGRADE_BATCH ?? 20000);
    const report = await upgradeToColumnStore({
      db: database.db,
      engine,
      batch,
      log: (msg) => {
        if (msg.startsWith('events copied into the column store; counts') || msg.startsWith('the SQL event log is in')) {
          phases.push(`${msg.slice(0, 40)}… ${((performance.now() - last) / 1000).toFixed(1)} s`);
          last = performance.now();
        }
      },
    });
    const s = (performance.now() - t0) / 1000;
    console.log(`upgrade in batches of ${batch.toLocaleString('en')}: ${report.copied.toLocaleString('en')} copied, ${report.dropped.toLocaleString('en')} dropped, counts compared for ${report.counts.length} workspace×kind pairs, ` +
      `${s.toFixed(1)} s wall (${Math.round(N / s).toLocaleString('en')} events/s), ${(((cpu() - c0) * 1e6) / N).toFixed(1)} µs CPU per event in this process; phases: ${phases.join('; ')}`);
    await engine.close();
    await database.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
