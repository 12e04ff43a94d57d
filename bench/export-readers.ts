/**
 * Slow export readers (issue 26): N clients each start `GET /events/export` and then read nothing,
 * so each export waits on its socket. Prints the process's RSS and JS heap per waiting export: what
 * one slow reader holds (a page of events and the text buffered ahead of it). The workspace limit
 * is raised to N for the measure; with the default (`EXPORTS_PER_WORKSPACE=3`) the 4th is refused.
 *
 *   npm run bench -- export-readers            # 50 readers, DuckDB event store
 *   node --import tsx bench/export-readers.ts 100 sql
 */
import { get, type IncomingMessage } from 'node:http';
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { createTestApp } from '../src/test-support/harness.js';
import { insertLink } from '../src/redirect/testing.js';
import type { StoredEvent } from '../src/events/event-store.js';

const N = Number(process.argv[2] ?? 50);
const EVENTS_URL = process.argv[3] ?? 'duckdb';
const EVENTS = 20_000;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const mb = (n: number) => Math.round(n / 1048576);
function memory() {
  gc();
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed };
}

async function main() {
  const t = await createTestApp({ env: { EXPORTS_PER_WORKSPACE: String(N) }, config: { eventsUrl: EVENTS_URL } });
  try {
    const base = await t.listen();
    const link = await insertLink(t.database.db, t.workspaceId, { domain: 'go.test', key: 'big', url: 'https://example.com/big' });
    const start = Date.now() - 3_600_000;
    for (let from = 0; from < EVENTS; from += 5000) {
      const rows: StoredEvent[] = [];
      for (let i = from; i < from + 5000; i++) {
        const id = `clk_bench_${String(i).padStart(6, '0')}`;
        rows.push({
          workspace_id: t.workspaceId, timestamp: start + i, id, kind: 'click', click_id: id, link_id: link.id!, domain: 'go.test', key: 'big', url: 'https://example.com/big',
          country: 'US', city: 'Austin', region: 'US-TX', continent: 'NA', device: 'Desktop', browser: 'Chrome', os: 'Windows', referer: 'google.com', referer_url: 'https://google.com/',
          trigger: 'link', ip: '203.0.113.9', ua: 'Mozilla/5.0', amount: 0,
        });
      }
      await t.ctx.events.append(rows);
    }
    await new Promise((r) => setTimeout(r, 1000));
    const before = memory();
    const readers: IncomingMessage[] = [];
    for (let i = 0; i < N; i++) {
      readers.push(
        await new Promise<IncomingMessage>((resolve, reject) =>
          get(`${base}/events/export?event=clicks&interval=24h`, { headers: t.headers }, (res) => {
            res.pause();
            resolve(res);
          }).on('error', reject),
        ),
      );
    }
    // Let every export fill its buffers.
    await new Promise((r) => setTimeout(r, 8000));
    const after = memory();
    console.log(`${N} waiting exports of ${EVENTS.toLocaleString('en')} events (EVENTS_URL=${EVENTS_URL}), node ${process.version}`);
    console.log(`RSS ${mb(before.rss)} -> ${mb(after.rss)} MB: ${((after.rss - before.rss) / N / 1048576).toFixed(2)} MB per waiting export`);
    console.log(`JS heap ${mb(before.heap)} -> ${mb(after.heap)} MB: ${((after.heap - before.heap) / N / 1048576).toFixed(2)} MB per waiting export`);
    for (const r of readers) r.destroy();
    console.error("closing", new Date().toISOString());
    setTimeout(() => { console.error("STILL OPEN", (process as any)._getActiveHandles().map((h: any) => h.constructor?.name + (h.remotePort ? ":" + h.remotePort + ":" + h.localPort : "")).join(" ")); process.exit(3); }, 30000).unref();
  } finally {
    await t.close();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
