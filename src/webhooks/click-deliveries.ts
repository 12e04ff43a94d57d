/**
 * `link.clicked` deliveries written by the click batch itself, in its own transaction
 * (redirect/flush-worker.ts, off the redirect thread): for each click a webhook covers
 * (ClickRoutes, pushed to the writer when webhooks or links change), a row of
 * `webhook_deliveries` with the exact body the dispatcher sends and signs. No outbox row and no
 * fan-out on the redirect thread: a click and its deliveries commit together, or neither does.
 *
 * The body is the envelope receivers get, `{id, event: 'link.clicked', createdAt, data: {click,
 * link}}`, with the link as the links API returns it, read in the batch's transaction (one query
 * per page of links, whatever the number of clicks).
 *
 * @example
 * const route = clickRouter(subscriptions);
 * if (route) await writeClickDeliveries(trx, rows, route, { settings, now: Date.now() });
 */
import type { Insertable, Kysely } from 'kysely';
import type { Database, WebhookDeliveriesTable } from '../db/tables.js';
import type { StoredEvent } from '../events/event-store.js';
import type { ClickSubscriptions } from '../outbox/outbox.js';
import { toLinkResponse, type LinkResponse, type LinkUrlSettings } from '../links/response.js';
import { loadLinkExtras } from '../links/store.js';
import { toEventRecord, type EventRow } from '../analytics/event-records.js';
import { newId } from '../ids.js';

/** The webhook ids covering a click (none: an empty list). */
export type ClickRouter = (row: StoredEvent) => readonly string[];

const NONE: readonly string[] = [];

/** The router of the subscriptions' `routes`; null when no webhook takes clicks. */
export function clickRouter(s: ClickSubscriptions): ClickRouter | null {
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

/** Links per query: far below either engine's bound-value limit. */
const LINK_PAGE = 500;
/** 13 columns a delivery row: 200 rows stay below SQLite's bound-value limit. */
const INSERT_PAGE = 200;

/** The links (API form) of these clicks, keyed workspace + link id; a link deleted meanwhile is absent. */
async function linkResponses(trx: Kysely<Database>, rows: readonly StoredEvent[], settings: LinkUrlSettings): Promise<Map<string, LinkResponse>> {
  const byWorkspace = new Map<string, Set<string>>();
  for (const r of rows) {
    let ids = byWorkspace.get(r.workspace_id);
    if (!ids) byWorkspace.set(r.workspace_id, (ids = new Set()));
    ids.add(r.link_id);
  }
  const out = new Map<string, LinkResponse>();
  for (const [workspaceId, set] of byWorkspace) {
    const ids = [...set];
    for (let i = 0; i < ids.length; i += LINK_PAGE) {
      const page = ids.slice(i, i + LINK_PAGE);
      const links = await trx.selectFrom('links').selectAll().where('workspace_id', '=', workspaceId).where('id', 'in', page).execute();
      const extras = await loadLinkExtras(trx, workspaceId, links.map((l) => l.id));
      for (const l of links) out.set(`${workspaceId}\u0000${l.id}`, toLinkResponse(l, extras.tags(l.id), settings, extras.webhookIds(l.id)));
    }
  }
  return out;
}

/**
 * Writes a delivery per (covered click, webhook) inside the caller's transaction; answers how many.
 * `idOf` gives a click the event id it already has (its outbox row, written in the same batch for
 * another subscriber); else each click gets a new one, the same for all its webhooks and retries.
 */
export async function writeClickDeliveries(
  trx: Kysely<Database>,
  rows: readonly StoredEvent[],
  route: ClickRouter,
  options: { settings: LinkUrlSettings; now: number; idOf?: (row: StoredEvent) => string },
): Promise<number> {
  let covered: { row: StoredEvent; hooks: readonly string[] }[] = [];
  const named = new Set<string>();
  for (const row of rows) {
    const hooks = route(row);
    if (!hooks.length) continue;
    covered.push({ row, hooks });
    for (const h of hooks) named.add(h);
  }
  if (!covered.length) return 0;
  // The routes may be a moment old: a webhook deleted or disabled since gets nothing, as the
  // fan-out's own read of the enabled webhooks would have it.
  const enabled = new Set((await trx.selectFrom('webhooks').select('id').where('id', 'in', [...named]).where('disabled_at', 'is', null).execute()).map((w) => w.id));
  if (enabled.size < named.size) {
    covered = covered.map((c) => ({ row: c.row, hooks: c.hooks.filter((h) => enabled.has(h)) })).filter((c) => c.hooks.length);
    if (!covered.length) return 0;
  }
  const { now } = options;
  const links = await linkResponses(trx, covered.map((c) => c.row), options.settings);
  const createdAt = new Date(now).toISOString();
  const deliveries: Insertable<WebhookDeliveriesTable>[] = [];
  for (const { row, hooks } of covered) {
    const id = options.idOf?.(row) ?? newId('evt', now);
    const link = links.get(`${row.workspace_id}\u0000${row.link_id}`) ?? null;
    // The record's own `link` is not used: ours may be null (a link deleted since the click).
    const { click } = toEventRecord(row as EventRow, link as LinkResponse, new Map());
    const body = JSON.stringify({ id, event: 'link.clicked', createdAt, data: { click, link } });
    for (const webhookId of hooks) {
      deliveries.push({
        id: newId('whd', now), webhook_id: webhookId, workspace_id: row.workspace_id, event_id: id, event: 'link.clicked', body,
        attempts: 0, next_attempt_at: now, delivered_at: null, status_code: null, latency_ms: null, error: null, created_at: now,
      });
    }
  }
  // Idempotent per (webhook, event), as the fan-out's inserts.
  for (let i = 0; i < deliveries.length; i += INSERT_PAGE) {
    await trx.insertInto('webhook_deliveries').values(deliveries.slice(i, i + INSERT_PAGE)).onConflict((oc) => oc.columns(['webhook_id', 'event_id']).doNothing()).execute();
  }
  return deliveries.length;
}
