/**
 * What SQLite's statement journal costs the click writer: two databases set up as in
 * write-cost.ts (10,000 links), one written with the app's dialect (`or fail`: no statement
 * journal, Dialect.orFail) and one with a copy of it that leaves the clause out. Batches of 2,000
 * clicks on random links go to the two in turn, so a busy machine slows both alike; each folds
 * every 28,000 clicks. Prints CPU per click (process.cpuUsage) of each. Both databases share the
 * caches, so the absolute figures are higher than write-cost.ts's; compare the two lines.
 *
 * Run: node --import tsx bench/redirect/statement-journal.ts   (ROUNDS=120 batches per side)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { sql } from 'kysely';
import { openDatabase } from '../../src/db/open.js';
import { sqliteDialect, type Dialect } from '../../src/db/dialect.js';
import { createEventWriter, type StoredEvent } from '../../src/analytics/event-writer.js';
import { createRedirectStore } from '../../src/redirect/store.js';
import { createClickFold } from '../../src/redirect/click-fold.js';
import { newClickIdAt } from '../../src/redirect/click-id.js';
import { createWorkspaceService } from '../../src/workspaces/service.js';
import { createWorkspaceStore } from '../../src/workspaces/store.js';
import { insertLink } from '../../src/redirect/testing.js';

const withJournal: Dialect = { ...sqliteDialect, orFail: sql``, insertOrFail: (q) => q };
async function side(dialect: Dialect) {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-orfail-'));
  const database = await openDatabase(`file:${join(dir, 'w.db')}`, { reuseStatements: true });
  const ws = await createWorkspaceService(createWorkspaceStore(database.db), Date.now).createWorkspace({ name: 'Bench', plan: 'enterprise' });
  const links: { id: string; key: string }[] = [];
  for (let i = 0; i < 10_000; i++) {
    const row = await insertLink(database.db, ws.id, { domain: 'go.bench', key: `k${i}`, url: 'https://example.com/' });
    links.push({ id: row.id as string, key: row.key });
  }
  const fold = createClickFold({ db: database.db, events: createEventWriter(dialect), store: createRedirectStore(database.db, dialect), mode: 'coalesced' });
  await fold.recover();
  let n = 0;
  const click = (): StoredEvent => {
    const now = Date.now();
    const id = newClickIdAt(now);
    const link = links[Math.floor(Math.random() * links.length)]!;
    n++;
    return {
      workspace_id: ws.id, timestamp: now, id, kind: 'click', click_id: id, link_id: link.id, domain: 'go.bench', key: link.key,
      url: `https://example.com/landing/${n % 10_000}?utm_source=bench`, country: 'US', city: `City ${n % 50}`, region: 'US-CA', continent: 'NA',
      device: 'Desktop', browser: 'Chrome', os: 'Windows', referer: '(direct)', referer_url: '(direct)', trigger: 'link', ip: `11.${n % 256}.3.4`,
      ua: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/126.0.0.0 Safari/537.36',
      utm_source: 'bench', utm_medium: null, utm_campaign: null, utm_term: null, utm_content: null, customer_id: null, event_name: null,
      amount: 0, currency: null, original_amount: null, payment_processor: null, invoice_id: null, sale_type: null, metadata: null,
    };
  };
  return { dir, database, fold, click, write: 0, folds: 0, since: 0 };
}
const sides = { journal: await side(withJournal), orFail: await side(sqliteDialect) };
const BATCH = 2000, ROUNDS = Number(process.env.ROUNDS ?? 120), FOLD_EVERY = 28_000;
for (let r = 0; r < ROUNDS; r++) {
  for (const name of (r % 2 ? ['journal', 'orFail'] : ['orFail', 'journal']) as (keyof typeof sides)[]) {
    const s = sides[name];
    const batch = Array.from({ length: BATCH }, s.click);
    let t = process.cpuUsage();
    await s.fold.write(batch);
    let d = process.cpuUsage(t);
    s.write += d.user + d.system;
    s.since += BATCH;
    if (s.since >= FOLD_EVERY) {
      t = process.cpuUsage();
      await s.fold.fold();
      d = process.cpuUsage(t);
      s.folds += d.user + d.system;
      s.since = 0;
    }
  }
}
for (const [name, s] of Object.entries(sides)) {
  const clicks = ROUNDS * BATCH;
  console.log(`${name.padEnd(8)} ${((s.write + s.folds) / clicks).toFixed(1)} µs per click (batches ${(s.write / clicks).toFixed(1)}, folds ${(s.folds / clicks).toFixed(1)})`);
  await s.database.close();
  rmSync(s.dir, { recursive: true, force: true });
}
