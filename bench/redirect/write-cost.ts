/**
 * CPU cost of writing clicks, per click, split by part: the flush transaction of the redirect
 * (events through the real EventWriter with its analytics rollups, plus link and workspace
 * counters) against variants without rollups or without counters. Batches of 1,000 clicks spread
 * over 10,000 links, as in bench/redirect.ts; CPU time (process.cpuUsage), not wall time, so the
 * figures hold on a busy machine.
 *
 * Run: node --import tsx bench/redirect/write-cost.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import type { Kysely } from 'kysely';
import { openDatabase } from '../../src/db/open.js';
import type { Database } from '../../src/db/tables.js';
import { createEventWriter, type EventWriter, type StoredEvent } from '../../src/analytics/event-writer.js';
import { createRedirectStore } from '../../src/redirect/store.js';
import { writeClickBatch } from '../../src/redirect/click-writer.js';
import { newClickIdAt } from '../../src/redirect/click-id.js';
import { createWorkspaceService } from '../../src/workspaces/service.js';
import { createWorkspaceStore } from '../../src/workspaces/store.js';
import { insertLink } from '../../src/redirect/testing.js';

const BATCH = Number(process.env.BATCH ?? 1000);
const CLICKS = Number(process.env.CLICKS ?? 60_000);

const dir = mkdtempSync(join(tmpdir(), 'waymark-write-cost-'));
// Opened as the flush worker opens its connection (statements of fixed-shape batches kept prepared).
const database = await openDatabase(`file:${join(dir, 'w.db')}`, { reuseStatements: true });
const ws = await createWorkspaceService(createWorkspaceStore(database.db), Date.now).createWorkspace({ name: 'Bench', plan: 'enterprise' });
const links: { id: string; key: string }[] = [];
for (let i = 0; i < 10_000; i++) {
  const row = await insertLink(database.db, ws.id, { domain: 'go.bench', key: `k${i}`, url: 'https://example.com/' });
  links.push({ id: row.id as string, key: row.key });
}
const store = createRedirectStore(database.db);
const noCounters = { bumpCounters: async () => {} };
/** The plain insert of the events, as the EventWriter does it before its rollups. */
const eventsOnly: EventWriter = {
  async append(trx, rows) {
    for (let i = 0; i < rows.length; i += 500) await (trx as Kysely<Database>).insertInto('events').values(rows.slice(i, i + 500)).execute();
  },
};
const noEvents: EventWriter = { append: async () => {} };

const BROWSERS = ['Chrome', 'Firefox', 'Mobile Safari', 'Edge'];
const COUNTRIES = ['US', 'DE', 'GB', 'FR', 'IN', 'BR'];
let n = 0;
function click(): StoredEvent {
  const now = Date.now();
  const id = newClickIdAt(now);
  const link = links[n++ % links.length]!;
  return {
    workspace_id: ws.id, timestamp: now, id, kind: 'click', click_id: id, link_id: link.id, domain: 'go.bench', key: link.key,
    url: `https://example.com/landing/${n % 10_000}?utm_source=bench&utm_medium=wrk`, country: COUNTRIES[n % 6]!, city: `City ${n % 50}`,
    region: 'US-CA', continent: 'NA', device: n % 3 ? 'Desktop' : 'Mobile', browser: BROWSERS[n % 4]!, os: 'Windows',
    referer: ['google.com', '(direct)', 't.co'][n % 3]!, referer_url: 'https://www.google.com/', trigger: 'link', ip: `11.${n % 256}.3.4`,
    ua: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
    utm_source: 'bench', utm_medium: 'wrk', utm_campaign: null, utm_term: null, utm_content: null, customer_id: null, event_name: null,
    amount: 0, currency: null, original_amount: null, payment_processor: null, invoice_id: null, sale_type: null, metadata: null,
  };
}

const variants: [string, EventWriter, Pick<typeof store, 'bumpCounters'>][] = [
  ['full flush (events + rollups + counters)', createEventWriter(database.dialect), store],
  ['events + rollups, no counters', createEventWriter(database.dialect), noCounters],
  ['events only (plain insert)', eventsOnly, noCounters],
  ['counters only', noEvents, store],
];
console.log(`CPU per click, batches of ${BATCH}, ${CLICKS} clicks per variant, 10,000 links (two passes)`);
for (let pass = 1; pass <= 2; pass++) {
  for (const [name, events, counters] of variants) {
    const before = process.cpuUsage();
    for (let i = 0; i < CLICKS; i += BATCH) {
      const batch = Array.from({ length: BATCH }, click);
      await writeClickBatch(database.db, events, counters, batch);
    }
    const used = process.cpuUsage(before);
    console.log(`  pass ${pass}  ${name.padEnd(42)} ${((used.user + used.system) / CLICKS).toFixed(1).padStart(6)} µs`);
  }
}
await database.close();
rmSync(dir, { recursive: true, force: true });
