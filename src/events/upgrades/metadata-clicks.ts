/**
 * Moves the clicks an earlier version left in the metadata database's `events` table into the
 * column store. Before imported clicks took the event log's `appendClicks`, `import api --events`
 * wrote them there (counted on their links in the import's own transaction), and the server moved
 * them into the column store about once a second; a server stopped or killed before that move
 * leaves some behind. They are counted already, so they are copied, not counted: each page is
 * appended (the engine skips ids it holds, so a move interrupted between its append and its
 * delete copies nothing twice), then deleted here. Called when a column store opens
 * (column/store.ts), after `foldClicksLeftUnfolded` (fold-clicks.ts) has counted and cleared the
 * SQLite fold's watermark, so every click found here is counted. A no-op once nothing is left.
 *
 * @example
 * const moved = await moveMetadataClicks(db, engine); // 0 on an installation of this version
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { ColumnEngine } from '../column/column-engine.js';
import { dropCopiedClicks, ID_CHUNK, rowsByIds } from '../column/metadata-events.js';

/** Returns the clicks it added to the column store (those it held already are only deleted here). */
export async function moveMetadataClicks(db: Kysely<Database>, engine: Pick<ColumnEngine, 'append' | 'existingIds'>): Promise<number> {
  let moved = 0;
  for (;;) {
    const left = await db.selectFrom('events').select('id').where('kind', '=', 'click').limit(ID_CHUNK).execute();
    if (!left.length) return moved;
    const ids = left.map((r) => r.id);
    const held = new Set(await engine.existingIds(ids));
    const rows = await rowsByIds(db, ids);
    if (rows.length) await engine.append(rows);
    await dropCopiedClicks(db, ids);
    moved += ids.filter((id) => !held.has(id)).length;
  }
}
