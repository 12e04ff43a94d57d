/**
 * The outbox writes of the links API's single create, update, upsert and delete: the link as the
 * API returns it, its tags read in the write's own transaction. Bulk operations write none
 * (the published rule). Each method answers undefined when nobody subscribes to the event type,
 * so the link write costs nothing extra then.
 */
import type { LinkRow, InTransaction } from './store.js';
import { toLinkResponse, type LinkUrlSettings } from './response.js';
import { loadLinkExtras } from './store.js';
import { outboxEntry, type Outbox } from '../outbox/outbox.js';

export function linkEvents(outbox: Outbox | undefined, settings: LinkUrlSettings, now: () => number) {
  function writer(type: 'link.created' | 'link.updated' | 'link.deleted', workspaceId: string, row: LinkRow): InTransaction | undefined {
    if (!outbox?.wants(type)) return undefined;
    return async (trx) => {
      const extras = await loadLinkExtras(trx, workspaceId, [row.id]);
      await outbox.write(trx, [outboxEntry(type, workspaceId, toLinkResponse(row, extras.tags(row.id), settings, extras.webhookIds(row.id)), now())]);
    };
  }
  return {
    created: (workspaceId: string, row: LinkRow) => writer('link.created', workspaceId, row),
    updated: (workspaceId: string, row: LinkRow) => writer('link.updated', workspaceId, row),
    /** Called by `deleteLinks` with the links it is about to delete (none when the link was gone). */
    deleted: (workspaceId: string, row: LinkRow) => writer('link.deleted', workspaceId, row),
    /** After the commit. */
    nudge: () => outbox?.nudge(),
  };
}
