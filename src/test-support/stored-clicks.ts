/**
 * What the crash tests of the DuckDB event store read once the servers stopped (events/column/crash.test.ts,
 * fold-crash.test.ts): the clicks of a link in the event file, by client address (address → copies),
 * and the link's counter in the metadata database.
 */
import { basename, dirname, join } from 'node:path';
import type { PrivateDatabase } from './server-process.js';
import { openDuckDbFile } from '../events/index.js';

export async function storedClicks(db: PrivateDatabase, linkId: string): Promise<{ copies: Map<string, number>; counter: number }> {
  const file = db.url.slice('file:'.length);
  const engine = await openDuckDbFile({ path: join(dirname(file), `${basename(file, '.db')}.events.duckdb`) });
  const copies = new Map<string, number>();
  try {
    for (const r of await engine.query({ text: "SELECT ip FROM events WHERE kind = 'click' AND link_id = $1", params: [{ type: 'text', value: linkId }] })) {
      copies.set(String(r.ip), (copies.get(String(r.ip)) ?? 0) + 1);
    }
  } finally {
    await engine.close();
  }
  const database = await db.open();
  try {
    const counter = Number((await database.db.selectFrom('links').select('clicks').where('id', '=', linkId).executeTakeFirstOrThrow()).clicks);
    return { copies, counter };
  } finally {
    await database.close();
  }
}
