/**
 * The database the click-writing benchmarks write into (write-cost.ts, statement-journal.ts): a
 * fresh SQLite file opened as the flush worker opens its connection, one workspace, 10,000 links
 * on `go.bench` as in bench/redirect.ts; and the click rows they write.
 *
 * @example
 * const bench = await openClickBench();
 * const row = benchClick(bench, bench.links[0]!, 1);
 * await bench.close();
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { openDatabase, type OpenDatabase } from '../../src/db/open.js';
import type { StoredEvent } from '../../src/events/sql/event-writer.js';
import { newClickIdAt } from '../../src/visitors/click-id.js';
import { createWorkspaceService } from '../../src/workspaces/service.js';
import { createWorkspaceStore } from '../../src/workspaces/store.js';
import { insertLink } from '../../src/redirect/testing.js';

export interface ClickBench {
  database: OpenDatabase;
  workspaceId: string;
  links: { id: string; key: string }[];
  /** Closes the database and removes its folder. */
  close(): Promise<void>;
}

export async function openClickBench(linkCount = 10_000): Promise<ClickBench> {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-click-bench-'));
  // Opened as the app opens SQLite: prepared statements kept (db/statement-cache.ts).
  const database = await openDatabase(`file:${join(dir, 'w.db')}`);
  const ws = await createWorkspaceService(createWorkspaceStore(database.db), Date.now).createWorkspace({ name: 'Bench', plan: 'enterprise' });
  const links: { id: string; key: string }[] = [];
  for (let i = 0; i < linkCount; i++) {
    const row = await insertLink(database.db, ws.id, { domain: 'go.bench', key: `k${i}`, url: 'https://example.com/' });
    links.push({ id: row.id as string, key: row.key });
  }
  return {
    database,
    workspaceId: ws.id,
    links,
    async close() {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const BROWSERS = ['Chrome', 'Firefox', 'Mobile Safari', 'Edge'];
const COUNTRIES = ['US', 'DE', 'GB', 'FR', 'IN', 'BR'];

/** The `n`th benchmark click, on `link`, stamped now; its other values vary with `n`. */
export function benchClick(bench: ClickBench, link: { id: string; key: string }, n: number): StoredEvent {
  const now = Date.now();
  const id = newClickIdAt(now);
  return {
    workspace_id: bench.workspaceId, timestamp: now, id, kind: 'click', click_id: id, link_id: link.id, domain: 'go.bench', key: link.key,
    url: `https://example.com/landing/${n % 10_000}?utm_source=bench&utm_medium=wrk`, country: COUNTRIES[n % 6]!, city: `City ${n % 50}`,
    region: 'US-CA', continent: 'NA', device: n % 3 ? 'Desktop' : 'Mobile', browser: BROWSERS[n % 4]!, os: 'Windows',
    referer: ['google.com', '(direct)', 't.co'][n % 3]!, referer_url: 'https://www.google.com/', trigger: 'link', ip: `11.${n % 256}.3.4`,
    ua: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
    utm_source: 'bench', utm_medium: 'wrk', utm_campaign: null, utm_term: null, utm_content: null, customer_id: null, event_name: null,
    amount: 0, currency: null, original_amount: null, payment_processor: null, invoice_id: null, sale_type: null, metadata: null,
  };
}
