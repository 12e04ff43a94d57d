/**
 * The SQL store's write cost beside the analytics data set (bench/analytics.ts): the production
 * write path on the 5M-row table, `EventWriter.append`, against the plain event insert alone.
 *
 * @example
 * await ingestCost('file:/tmp/copy.db', { domain: 'go.bench', from: Date.UTC(2026, 10, 2) });
 */
import { sql } from 'kysely';
import { openDatabase } from '../../src/db/open.js';
import { createEventWriter, insertEvents, type StoredEvent } from '../../src/events/sql/event-writer.js';
import type { SqlTexts } from '../../src/db/sql-texts.js';
import { prng } from './generate.js';

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/**
 * Cost of the production write path on the 5M-row table: `EventWriter.append` in flush-sized
 * batches (2,000 clicks of one moment, over every link), against the plain event insert alone.
 */
export async function ingestCost(url: string, at: { domain: string; from: number }): Promise<void> {
  const database = await openDatabase(url);
  const links = await database.db.selectFrom('links').select(['id', 'workspace_id', 'key', 'url']).orderBy('id').execute();
  const rnd = prng(7);
  let seq = 0;
  const batchAt = (ts: number): StoredEvent[] =>
    Array.from({ length: 2000 }, () => {
      const l = links[Math.floor(Math.pow(rnd(), 3) * links.length)]!;
      const id = `ing${(seq++).toString(36)}`;
      const c = ['US', 'IN', 'GB', 'DE', 'BR', 'FR'][Math.floor(rnd() * 6)]!;
      return {
        workspace_id: l.workspace_id, timestamp: ts + Math.floor(rnd() * 100), id, kind: 'click', click_id: id, link_id: l.id, domain: at.domain, key: l.key, url: l.url,
        country: c, city: `${c} City ${Math.floor(rnd() * 20)}`, region: `${c}-R1`, continent: 'EU', device: ['Desktop', 'Mobile'][Math.floor(rnd() * 2)]!,
        browser: ['Chrome', 'Safari', 'Firefox', 'Edge'][Math.floor(rnd() * 4)]!, os: ['Windows', 'iOS', 'Android', 'Mac OS'][Math.floor(rnd() * 4)]!,
        referer: '(direct)', referer_url: '(direct)', trigger: 'link', ip: '10.0.0.1', ua: 'Mozilla/5.0', amount: 0,
      };
    });
  const writer = createEventWriter(database.dialect);
  const texts: SqlTexts = new Map();
  const timeIt = async (label: string, write: (batch: StoredEvent[]) => Promise<void>) => {
    let ts = at.from;
    const times: number[] = [];
    for (let i = 0; i < 25; i++) {
      const batch = batchAt((ts += 100));
      const t0 = performance.now();
      await write(batch);
      times.push(performance.now() - t0);
    }
    const per = median(times.slice(5)) / 2000;
    console.log(`  ${label.padEnd(44)} ${(per * 1000).toFixed(1)} µs per event (median batch ${median(times.slice(5)).toFixed(1)} ms)`);
  };
  console.log('\nwrite cost on the 5M-row table, batches of 2,000 clicks (a full flush), 20 timed batches');
  await timeIt('events only (the insert inside append)', (b) => database.db.transaction().execute((trx) => insertEvents(trx, b, texts, database.dialect)));
  await timeIt('EventWriter.append: events + rollups', (b) => writer.append(database.db, b));
  await sql`pragma wal_checkpoint(truncate)`.execute(database.db);
  await database.close();
}
