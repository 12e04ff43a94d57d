/**
 * The one query of the track endpoints that is theirs: the link an event is attributed to.
 * Events are read and written through the event store (src/events/), link counters through
 * events/counters.ts, customers through customers/store.ts.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.js';
import type { LinkRow } from '../links/store.js';

export type { LinkRow } from '../links/store.js';

export interface TrackingStore {
  findLink(workspaceId: string, linkId: string): Promise<LinkRow | undefined>;
}

export function createTrackingStore(db: Kysely<Database>): TrackingStore {
  return {
    findLink: (workspaceId, linkId) =>
      db.selectFrom('links').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', linkId).executeTakeFirst(),
  };
}
