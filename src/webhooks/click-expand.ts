/**
 * The dispatcher's side of click batches (click-batches.ts): turns the one row a click batch
 * wrote into deliveries, one webhook at a time and a chunk at a time, when the dispatcher has room
 * to send them (fairness.ts), so a receiver that is slow or backed off holds only its own work.
 *
 * - `open` makes a batch's cursors, one per webhook it names that still exists, still takes
 *   `link.clicked` and was not disabled before the batch (a webhook disabled since keeps its
 *   work, which waits like its pending deliveries); a batch left with none is deleted.
 * - `expand` writes the next deliveries of a webhook's oldest cursor: the envelope
 *   `{id, event: 'link.clicked', createdAt, data: {click, link}}` with the event id the click got in
 *   its batch (the same for every webhook and every attempt), the batch's time, and the link as the
 *   links API returns it now (read once per batch and workspace; null if deleted since), as the
 *   published service reads it when it drains its click stream. Idempotent per (webhook, event);
 *   the cursor moves in the same transaction, by compare-and-set, so two processes never expand the
 *   same clicks twice.
 *
 * @example
 * const expander = createClickExpander({ db, settings });
 * await expander.open();
 * for (const id of await expander.webhooksWithWork()) await expander.expand(id, Date.now(), 200);
 */
import type { Insertable, Kysely } from 'kysely';
import type { Database, WebhookDeliveriesTable } from '../db/tables.js';
import { toLinkResponse, type LinkResponse, type LinkUrlSettings } from '../links/response.js';
import { loadLinkExtras } from '../links/store.js';
import { newId } from '../ids.js';
import type { ClickBatchPayload } from './click-batches.js';

/** Batches opened per call of `open`. */
export const CLICK_BATCHES_PER_OPEN = 50;
/** Ids per IN list: far below either engine's bound-value limit. */
const ID_PAGE = 500;
/** 13 columns a delivery row: 200 rows stay below SQLite's bound-value limit. */
const INSERT_PAGE = 200;
/** Batches one expansion walks at most. */
const CURSORS_PER_EXPAND = 100;

/** Another process moved a cursor first: the expansion is rolled back. */
class CursorMoved extends Error {}

interface CachedBatch {
  createdAt: number;
  payload: ClickBatchPayload;
  /** workspace + link id → the link's API form (null: deleted); filled as clicks are expanded. */
  links: Map<string, LinkResponse | null>;
}

const linkKey = (workspaceId: string, linkId: string) => `${workspaceId}\u0000${linkId}`;

export function createClickExpander(deps: { db: Kysely<Database>; settings: LinkUrlSettings; cachedBatches?: number }) {
  const { db } = deps;
  // Batches never change once written: parsed once, kept while webhooks work through them.
  const cache = new Map<string, CachedBatch>();
  const cacheSize = deps.cachedBatches ?? 16;

  async function batch(id: string): Promise<CachedBatch | null> {
    const hit = cache.get(id);
    if (hit) {
      cache.delete(id);
      cache.set(id, hit);
      return hit;
    }
    const row = await db.selectFrom('webhook_click_batches').select(['created_at', 'payload']).where('id', '=', id).executeTakeFirst();
    if (!row) return null;
    const entry: CachedBatch = { createdAt: Number(row.created_at), payload: JSON.parse(row.payload) as ClickBatchPayload, links: new Map() };
    cache.set(id, entry);
    while (cache.size > cacheSize) cache.delete(cache.keys().next().value!);
    return entry;
  }

  /**
   * Puts in each batch the links of its clicks it has not read yet, read once per workspace for
   * all the batches (a link read for one batch serves the others of this call).
   */
  async function readLinks(parts: { entry: CachedBatch; clicks: ClickBatchPayload['clicks'] }[]): Promise<void> {
    const missing = new Map<string, Set<string>>();
    for (const { entry, clicks } of parts) {
      for (const c of clicks) {
        if (entry.links.has(linkKey(c.workspaceId, c.linkId))) continue;
        let ids = missing.get(c.workspaceId);
        if (!ids) missing.set(c.workspaceId, (ids = new Set()));
        ids.add(c.linkId);
      }
    }
    const read = new Map<string, LinkResponse | null>();
    for (const [workspaceId, set] of missing) {
      const ids = [...set];
      for (let i = 0; i < ids.length; i += ID_PAGE) {
        const page = ids.slice(i, i + ID_PAGE);
        const links = await db.selectFrom('links').selectAll().where('workspace_id', '=', workspaceId).where('id', 'in', page).execute();
        const extras = await loadLinkExtras(db, workspaceId, links.map((l) => l.id));
        for (const id of page) read.set(linkKey(workspaceId, id), null);
        for (const l of links) read.set(linkKey(workspaceId, l.id), toLinkResponse(l, extras.tags(l.id), deps.settings, extras.webhookIds(l.id)));
      }
    }
    for (const { entry, clicks } of parts) {
      for (const c of clicks) {
        const k = linkKey(c.workspaceId, c.linkId);
        if (!entry.links.has(k)) entry.links.set(k, read.get(k) ?? null);
      }
    }
  }

  return {
    /** Makes the cursors of batches not opened yet; answers how many batches it opened. */
    async open(): Promise<number> {
      const batches = await db.selectFrom('webhook_click_batches').select(['id', 'created_at', 'hooks']).where('opened', '=', 0).orderBy('id').limit(CLICK_BATCHES_PER_OPEN).execute();
      if (!batches.length) return 0;
      const named = [...new Set(batches.flatMap((b) => JSON.parse(b.hooks) as string[]))];
      const state = new Map<string, { disabledAt: number | null; clicks: boolean }>();
      for (let i = 0; i < named.length; i += ID_PAGE) {
        const rows = await db.selectFrom('webhooks').select(['id', 'disabled_at', 'triggers']).where('id', 'in', named.slice(i, i + ID_PAGE)).execute();
        for (const r of rows) state.set(r.id, { disabledAt: r.disabled_at === null ? null : Number(r.disabled_at), clicks: (JSON.parse(r.triggers) as string[]).includes('link.clicked') });
      }
      let opened = 0;
      await db.transaction().execute(async (trx) => {
        for (const b of batches) {
          // Writes first (SQLite: the lock is taken at once); another process may have opened it.
          const r = await trx.updateTable('webhook_click_batches').set({ opened: 1 }).where('id', '=', b.id).where('opened', '=', 0).executeTakeFirst();
          if (Number(r.numUpdatedRows) === 0) continue;
          opened++;
          const keep = (JSON.parse(b.hooks) as string[]).filter((h) => {
            const s = state.get(h);
            return s && s.clicks && (s.disabledAt === null || s.disabledAt > Number(b.created_at));
          });
          if (!keep.length) {
            await trx.deleteFrom('webhook_click_batches').where('id', '=', b.id).execute();
            continue;
          }
          await trx.insertInto('webhook_click_cursors').values(keep.map((webhook_id) => ({ batch_id: b.id, webhook_id, next_click: 0 }))).onConflict((oc) => oc.doNothing()).execute();
        }
      });
      return opened;
    },

    /** The webhooks with click work not expanded yet. */
    async webhooksWithWork(): Promise<Set<string>> {
      const rows = await db.selectFrom('webhook_click_cursors').select('webhook_id').distinct().execute();
      return new Set(rows.map((r) => r.webhook_id));
    },

    /**
     * Writes up to `max` deliveries (due at `now`) of the webhook's oldest click work, across as
     * many of its batches as that takes (small batches: a quiet site flushes a few clicks at a
     * time), in one transaction; answers how many. 0: it has none left, or another process moved
     * one of these cursors first (nothing is written; the next call goes on from there).
     */
    async expand(webhookId: string, now: number, max: number): Promise<number> {
      const cursors = await db.selectFrom('webhook_click_cursors').select(['batch_id', 'next_click']).where('webhook_id', '=', webhookId).orderBy('batch_id').limit(CURSORS_PER_EXPAND).execute();
      if (!cursors.length) return 0;
      const steps: { batchId: string; from: number; to: number; done: boolean; entry: CachedBatch | null; picked: ClickBatchPayload['clicks'] }[] = [];
      let total = 0;
      for (const cursor of cursors) {
        if (total >= max) break;
        const from = Number(cursor.next_click);
        const entry = await batch(cursor.batch_id);
        const clicks = entry?.payload.clicks ?? [];
        const picked: ClickBatchPayload['clicks'] = [];
        let i = from;
        for (; i < clicks.length && total + picked.length < max; i++) {
          if (entry!.payload.sets[clicks[i]!.set]!.includes(webhookId)) picked.push(clicks[i]!);
        }
        total += picked.length;
        steps.push({ batchId: cursor.batch_id, from, to: i, done: i >= clicks.length, entry, picked });
      }
      await readLinks(steps.filter((st) => st.entry).map((st) => ({ entry: st.entry!, clicks: st.picked })));
      const rows: Insertable<WebhookDeliveriesTable>[] = [];
      for (const st of steps) {
        const createdAt = st.entry ? new Date(st.entry.createdAt).toISOString() : '';
        for (const c of st.picked) {
          const body = JSON.stringify({ id: c.id, event: 'link.clicked', createdAt, data: { click: c.click, link: st.entry!.links.get(linkKey(c.workspaceId, c.linkId)) ?? null } });
          rows.push({
            id: newId('whd', now), webhook_id: webhookId, workspace_id: c.workspaceId, event_id: c.id, event: 'link.clicked', body,
            attempts: 0, next_attempt_at: now, delivered_at: null, status_code: null, latency_ms: null, error: null, created_at: now,
          });
        }
      }
      const moved = await db
        .transaction()
        .execute(async (trx) => {
          // Cursors first (writes: on SQLite the lock is taken at once), each by compare-and-set.
          for (const st of steps) {
            const r = st.done
              ? await trx.deleteFrom('webhook_click_cursors').where('batch_id', '=', st.batchId).where('webhook_id', '=', webhookId).where('next_click', '=', st.from).executeTakeFirst()
              : await trx.updateTable('webhook_click_cursors').set({ next_click: st.to }).where('batch_id', '=', st.batchId).where('webhook_id', '=', webhookId).where('next_click', '=', st.from).executeTakeFirst();
            if (Number('numDeletedRows' in r ? r.numDeletedRows : r.numUpdatedRows) === 0) throw new CursorMoved();
          }
          for (let k = 0; k < rows.length; k += INSERT_PAGE) {
            await trx.insertInto('webhook_deliveries').values(rows.slice(k, k + INSERT_PAGE)).onConflict((oc) => oc.columns(['webhook_id', 'event_id']).doNothing()).execute();
          }
          for (const st of steps.filter((x) => x.done)) {
            await trx
              .deleteFrom('webhook_click_batches')
              .where('id', '=', st.batchId)
              .where((eb) => eb.not(eb.exists(eb.selectFrom('webhook_click_cursors').select('batch_id').where('batch_id', '=', st.batchId))))
              .execute();
          }
          return true;
        })
        .catch((err) => {
          if (err instanceof CursorMoved) return false;
          throw err;
        });
      return moved ? rows.length : 0;
    },
  };
}
export type ClickExpander = ReturnType<typeof createClickExpander>;
