/**
 * The `link.clicked` work of a click batch, recorded in the batch's own transaction as ONE row of
 * `webhook_click_batches`, whatever the number of webhooks and clicks: the covered clicks (each
 * with its event id, workspace, link and the click as the events API shows it) and which webhooks
 * cover each. The dispatcher expands it into deliveries at its own pace, fairly between receivers
 * (click-expand.ts). So the click writer's transaction costs one insert per batch for webhooks, not
 * one row per click and webhook (100 webhooks on one workspace cut redirects from ~10,000/s to
 * ~300/s that way), and a click and its webhook work commit together, or neither does.
 *
 * One row per batch rather than one per (batch, webhook): a click that ten webhooks cover is
 * stored once, and the transaction's work does not grow with the webhooks at all; where each
 * webhook is in the batch lives in `webhook_click_cursors`, written by the dispatcher.
 *
 * Whoever commits a click batch calls `writeClickWebhookBatch` inside that transaction (today the
 * fold's `webhooks` listener, src/click-listeners/, on the event log's thread); nothing
 * else about clicks reaches webhooks.
 *
 * @example
 * const route = clickRouter(subscriptions);            // null: no webhook takes clicks
 * if (route) await writeClickWebhookBatch(trx, rows, route, { now: Date.now() });
 */
import type { Insertable, Kysely } from 'kysely';
import type { Database, WebhookClickBatchesTable } from '../db/tables.js';
import type { StoredEvent } from '../events/index.js';
import type { ClickSubscriptions } from '../outbox/outbox.js';
import type { LinkResponse } from '../links/response.js';
import { toEventRecord, type EventRow } from '../analytics/event-records.js';
import { newId } from '../ids.js';

/** The webhook ids covering a click (none: an empty list). */
export type ClickRouter = (row: StoredEvent) => readonly string[];

const NONE: readonly string[] = [];

/** The router of the subscriptions' `routes`; null when no webhook takes clicks. It reads a click's kind, workspace and link only: the fold asks it once per link of a batch. */
export function clickRouter(s: ClickSubscriptions): ((row: Pick<StoredEvent, 'kind' | 'workspace_id' | 'link_id'>) => readonly string[]) | null {
  const r = s.routes;
  if (!r || (!Object.keys(r.workspaces).length && !Object.keys(r.links).length)) return null;
  const workspaces = new Map(Object.entries(r.workspaces));
  const links = new Map(Object.entries(r.links));
  return (row) => {
    if (row.kind !== 'click') return NONE;
    const w = workspaces.get(row.workspace_id);
    const l = links.get(row.link_id);
    if (!w) return l ?? NONE;
    if (!l) return w;
    return [...new Set([...w, ...l])];
  };
}

/** One covered click of a batch. */
export interface BatchedClick {
  /** The event id: the same for every webhook and every attempt. */
  id: string;
  workspaceId: string;
  linkId: string;
  /** Index into `ClickBatchPayload.sets`: the webhooks covering this click. */
  set: number;
  /** `data.click` of the envelope, as the events API shows a click. */
  click: unknown;
}

/** `webhook_click_batches.payload`: clicks sharing the same webhooks share one set. */
export interface ClickBatchPayload {
  sets: string[][];
  clicks: BatchedClick[];
}

/**
 * The batch row for these rows (the clicks `route` covers; `clicks`: how many, not a column), or
 * null when it covers none. `idOf`
 * gives a click the event id it already has (its outbox row, written in the same batch for another
 * subscriber); else each covered click gets a new one.
 */
export function clickWebhookBatch(
  rows: readonly StoredEvent[],
  route: ClickRouter,
  options: { now: number; idOf?: (row: StoredEvent) => string },
): (Insertable<WebhookClickBatchesTable> & { clicks: number }) | null {
  const { now } = options;
  const sets: string[][] = [];
  const setIndex = new Map<readonly string[] | string, number>();
  const clicks: BatchedClick[] = [];
  const hooks = new Set<string>();
  for (const row of rows) {
    const covering = route(row);
    if (!covering.length) continue;
    // Routes hand out the same array for a workspace or link: one look-up by identity, then by content.
    let set = setIndex.get(covering);
    if (set === undefined) {
      const key = [...covering].sort().join(',');
      set = setIndex.get(key);
      if (set === undefined) {
        set = sets.push([...covering]) - 1;
        setIndex.set(key, set);
        for (const h of covering) hooks.add(h);
      }
      setIndex.set(covering, set);
    }
    // The record's own `link` is not used: the dispatcher puts the link in when it expands the click.
    const { click } = toEventRecord(row as EventRow, null as unknown as LinkResponse, new Map());
    clicks.push({ id: options.idOf?.(row) ?? newId('evt', now), workspaceId: row.workspace_id, linkId: row.link_id, set, click });
  }
  if (!clicks.length) return null;
  const payload: ClickBatchPayload = { sets, clicks };
  return { id: newId('whb', now), created_at: now, hooks: JSON.stringify([...hooks]), payload: JSON.stringify(payload), opened: 0, clicks: clicks.length };
}

/**
 * Records the `link.clicked` work of a committed (or committing) click batch inside the caller's
 * transaction: at most one row of `webhook_click_batches`. Answers how many clicks it covers.
 */
export async function writeClickWebhookBatch(
  trx: Kysely<Database>,
  rows: readonly StoredEvent[],
  route: ClickRouter,
  options: { now: number; idOf?: (row: StoredEvent) => string },
): Promise<number> {
  const batch = clickWebhookBatch(rows, route, options);
  if (!batch) return 0;
  const { clicks: _, ...row } = batch;
  await trx.insertInto('webhook_click_batches').values(row).execute();
  return batch.clicks;
}
