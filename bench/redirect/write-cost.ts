/**
 * CPU cost of writing clicks, per click, in the click writer's two modes (src/redirect/click-fold.ts):
 * - `each`: every batch's events, rollups and link/workspace counters in one transaction;
 * - `coalesced`: batches commit events and usage; a fold every FOLD_EVERY clicks (28,000 by
 *   default: one second at the redirect benchmark's rate) adds them to rollups and link counters.
 * Batches of 2,000 clicks spread over 10,000 links, as in bench/redirect.ts; CPU time
 * (process.cpuUsage), not wall time, so the figures hold on a busy machine. Each mode gets a
 * fresh database, written twice over (the second pass writes into a bigger table).
 *
 * Run: node --import tsx bench/redirect/write-cost.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { openDatabase } from '../../src/db/open.js';
import { createEventWriter, type StoredEvent } from '../../src/analytics/event-writer.js';
import { createRedirectStore } from '../../src/redirect/store.js';
import { createClickFold, type FoldMode } from '../../src/redirect/click-fold.js';
import { newClickIdAt } from '../../src/redirect/click-id.js';
import { createWorkspaceService } from '../../src/workspaces/service.js';
import { createWorkspaceStore } from '../../src/workspaces/store.js';
import { insertLink } from '../../src/redirect/testing.js';

const BATCH = Number(process.env.BATCH ?? 2000);
const CLICKS = Number(process.env.CLICKS ?? 112_000);
const FOLD_EVERY = Number(process.env.FOLD_EVERY ?? 28_000);

async function openBench() {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-write-cost-'));
  // Opened as the flush worker opens its connection (statements of fixed-shape batches kept prepared).
  const database = await openDatabase(`file:${join(dir, 'w.db')}`, { reuseStatements: true });
  const ws = await createWorkspaceService(createWorkspaceStore(database.db), Date.now).createWorkspace({ name: 'Bench', plan: 'enterprise' });
  const links: { id: string; key: string }[] = [];
  for (let i = 0; i < 10_000; i++) {
    const row = await insertLink(database.db, ws.id, { domain: 'go.bench', key: `k${i}`, url: 'https://example.com/' });
    links.push({ id: row.id as string, key: row.key });
  }
  return { dir, database, ws, links };
}
let bench = await openBench();

const BROWSERS = ['Chrome', 'Firefox', 'Mobile Safari', 'Edge'];
const COUNTRIES = ['US', 'DE', 'GB', 'FR', 'IN', 'BR'];
let n = 0;
function click(): StoredEvent {
  const now = Date.now();
  const id = newClickIdAt(now);
  const link = bench.links[n++ % bench.links.length]!;
  return {
    workspace_id: bench.ws.id, timestamp: now, id, kind: 'click', click_id: id, link_id: link.id, domain: 'go.bench', key: link.key,
    url: `https://example.com/landing/${n % 10_000}?utm_source=bench&utm_medium=wrk`, country: COUNTRIES[n % 6]!, city: `City ${n % 50}`,
    region: 'US-CA', continent: 'NA', device: n % 3 ? 'Desktop' : 'Mobile', browser: BROWSERS[n % 4]!, os: 'Windows',
    referer: ['google.com', '(direct)', 't.co'][n % 3]!, referer_url: 'https://www.google.com/', trigger: 'link', ip: `11.${n % 256}.3.4`,
    ua: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
    utm_source: 'bench', utm_medium: 'wrk', utm_campaign: null, utm_term: null, utm_content: null, customer_id: null, event_name: null,
    amount: 0, currency: null, original_amount: null, payment_processor: null, invoice_id: null, sale_type: null, metadata: null,
  };
}

console.log(`CPU per click, batches of ${BATCH}, ${CLICKS} clicks per pass, 10,000 links; coalesced folds every ${FOLD_EVERY} clicks`);
for (const mode of ['each', 'coalesced'] as FoldMode[]) {
  const { database } = bench;
  const fold = createClickFold({ db: database.db, events: createEventWriter(database.dialect), store: createRedirectStore(database.db, database.dialect), mode });
  await fold.recover();
  for (let pass = 1; pass <= 2; pass++) {
    let writeUs = 0;
    let foldUs = 0;
    let sinceFold = 0;
    for (let i = 0; i < CLICKS; i += BATCH) {
      const batch = Array.from({ length: BATCH }, click);
      const t0 = process.cpuUsage();
      await fold.write(batch);
      const t1 = process.cpuUsage(t0);
      writeUs += t1.user + t1.system;
      sinceFold += BATCH;
      if (sinceFold >= FOLD_EVERY) {
        const t2 = process.cpuUsage();
        await fold.fold();
        const t3 = process.cpuUsage(t2);
        foldUs += t3.user + t3.system;
        sinceFold = 0;
      }
    }
    const t4 = process.cpuUsage();
    await fold.fold({ all: true });
    const t5 = process.cpuUsage(t4);
    foldUs += t5.user + t5.system;
    const per = (us: number) => (us / CLICKS).toFixed(1).padStart(5);
    console.log(`  ${mode.padEnd(9)} pass ${pass}: ${per(writeUs + foldUs)} µs  (batch transactions ${per(writeUs)}, folds ${per(foldUs)})`);
  }
  await database.close();
  rmSync(bench.dir, { recursive: true, force: true });
  if (mode === 'each') bench = await openBench();
}
