/**
 * A click writer in a process of its own for bench/backup.ts: appends batches of 200 clicks on one
 * link through the event writer, one after the other, and prints the running count and the time (ms) after each.
 * Argument: the database URL.
 */
import { openDatabase } from '../../src/db/open.js';
import { createSqlEventStore } from '../../src/events/sql/store.js';
import { clickEvent } from '../../src/events/rows.js';
import { newClickId } from '../../src/ids.js';

const database = await openDatabase(process.argv[2]!, { migrate: false });
const events = createSqlEventStore({ database });
const link = await database.db.selectFrom('links').select(['id', 'workspace_id', 'domain', 'key', 'url']).limit(1).executeTakeFirstOrThrow();
let batches = 0;
process.on('SIGTERM', () => void database.close().then(() => process.exit(0)));
for (;;) {
  const rows = Array.from({ length: 200 }, () => clickEvent({
    workspace_id: link.workspace_id, timestamp: Date.now(), id: newClickId(), link_id: link.id, domain: link.domain, key: link.key, url: link.url,
    country: 'DE', city: 'Berlin', region: 'DE-BE', continent: 'EU', device: 'Desktop', browser: 'Chrome', os: 'Linux', referer: '(direct)', referer_url: '(direct)',
    trigger: 'link', ip: '10.0.0.1', ua: '', utm_source: null, utm_medium: null, utm_campaign: null, utm_term: null, utm_content: null,
  }));
  await events.append(rows);
  process.stdout.write(`${++batches} ${Date.now()}\n`);
  await new Promise((r) => setTimeout(r, 5));
}
