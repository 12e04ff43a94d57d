/**
 * Counts what an earlier version left uncounted. On SQLite it stored clicks first and folded them
 * into the rollups and link counters a second later, behind a watermark (`click_rollup_state`,
 * migration 0008; the workspaces' usage was added as they were stored); a crash, or the stop
 * before this upgrade, left the clicks at or after the watermark unfolded. The SQL store now rolls
 * clicks up in the transaction that stores them, so those are rolled up and counted here, once, in
 * one transaction that also clears the watermark. Called at every start (events/open.ts), before
 * anything else reads or moves the events: a cleared watermark means nothing is left.
 *
 * @example
 * const counted = await foldClicksLeftUnfolded(database); // 0 when nothing was left
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { OpenDatabase } from '../../db/open.js';
import type { StoredEvent } from '../event-store.js';
import { createLinkCounters, linkBumps } from '../counters.js';
import { createEventWriter } from '../sql/event-writer.js';

/** Rows read per query. */
const PAGE = 10_000;

/** Returns the clicks it counted. */
export async function foldClicksLeftUnfolded(database: Pick<OpenDatabase, 'db' | 'dialect'>): Promise<number> {
  const { db, dialect } = database;
  const state = await db.selectFrom('click_rollup_state').select('folded_before').where('id', '=', 1).executeTakeFirst();
  if (state?.folded_before == null) return 0;
  const from = Number(state.folded_before);
  const writer = createEventWriter(dialect);
  const counters = createLinkCounters(dialect);
  return db.transaction().execute(async (trx) => {
    const rows = await unfolded(trx, from);
    await writer.rollUp(trx, rows);
    await counters.addClicks(trx, linkBumps(rows), []);
    await trx.updateTable('click_rollup_state').set({ folded_before: null }).where('id', '=', 1).execute();
    return rows.length;
  });
}

/** The clicks stamped at or after `from`, in (timestamp, id) order. */
async function unfolded(trx: Kysely<Database>, from: number): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  let after: { timestamp: number; id: string } | null = null;
  for (;;) {
    let q = trx.selectFrom('events').selectAll().where('kind', '=', 'click').where('timestamp', '>=', from).orderBy('timestamp').orderBy('id').limit(PAGE);
    if (after) {
      const a: { timestamp: number; id: string } = after;
      q = q.where((eb) => eb(eb.refTuple('timestamp', 'id'), '>', eb.tuple(a.timestamp, a.id)));
    }
    const rows = await q.execute();
    for (const r of rows) out.push({ ...r, timestamp: Number(r.timestamp), amount: Number(r.amount) } as StoredEvent);
    if (rows.length < PAGE) return out;
    const last = rows[rows.length - 1]!;
    after = { timestamp: Number(last.timestamp), id: last.id };
  }
}
