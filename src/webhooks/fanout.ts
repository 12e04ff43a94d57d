/**
 * The one outbox subscriber of webhooks (events/publisher.ts delivers each domain event to it at
 * least once): it writes a delivery per matching enabled webhook, idempotent on (webhook, event),
 * and nudges the dispatcher. Matching: the webhook's triggers; for `link.clicked` also its
 * linkScope (the workspace, folders holding the link, listed links) or the link's `webhookIds`.
 *
 * It also answers, from a cache, what the registry asks before anything is written: whether an
 * event type is wanted by any enabled webhook, and whose clicks are (`ClickSubscriptions`). The
 * cache is reloaded after every webhook change in this process (`refresh`) and every few seconds
 * for changes made by other processes.
 */
import type { Insertable } from 'kysely';
import type { WebhookDeliveriesTable } from '../db/tables.js';
import type { DomainEvent, DomainEventType, ClickSubscriptions } from '../events/outbox.js';
import { DOMAIN_EVENT_TYPES, NO_CLICK_SUBSCRIPTIONS } from '../events/outbox.js';
import type { Subscriber } from '../events/publisher.js';
import { newId } from '../ids.js';
import type { WebhookStore } from './store.js';
import type { DeliveryStore } from './delivery-store.js';
import type { WebhookRow } from './schema.js';

/** The envelope receivers get: the publisher's event without Waymark's `workspaceId`. */
export function envelope(event: DomainEvent): string {
  return JSON.stringify({ id: event.id, event: event.event, createdAt: event.createdAt, data: event.data });
}

/** Whether a webhook taking `link.clicked` covers a click on this link. */
export function coversClick(hook: WebhookRow, link: { id: string; folderId: string | null } | null, attached: ReadonlySet<string>): boolean {
  if (hook.link_scope === 'workspace') return true;
  if (!link) return false;
  if (attached.has(hook.id)) return true;
  if (hook.link_scope === 'links') return (JSON.parse(hook.link_ids) as string[]).includes(link.id);
  if (hook.link_scope === 'folders') return link.folderId !== null && (JSON.parse(hook.folder_ids) as string[]).includes(link.folderId);
  return false;
}

/** Link writes within this window share one reload of the click subscriptions. */
const LINK_CHANGE_DELAY_MS = 100;

export function createFanout(deps: { webhooks: WebhookStore; deliveries: DeliveryStore; now: () => number; nudge: () => void }) {
  const { webhooks, deliveries } = deps;
  let triggers = new Set<DomainEventType>();
  let clicks: ClickSubscriptions = NO_CLICK_SUBSCRIPTIONS;
  let clicksKey = '';
  const listeners: (() => void)[] = [];
  let refreshing: Promise<void> | null = null;

  async function load(): Promise<void> {
    triggers = await webhooks.activeTriggers();
    const next = triggers.has('link.clicked') ? await webhooks.clickSubscriptions() : NO_CLICK_SUBSCRIPTIONS;
    const key = JSON.stringify([[...next.workspaces].sort(), [...next.links].sort()]);
    if (key === clicksKey) return;
    clicksKey = key;
    clicks = { all: false, workspaces: next.workspaces, links: next.links };
    for (const l of listeners) l();
  }

  /** Reloads the cache; concurrent calls wait for a reload that starts after them. */
  async function refresh(): Promise<void> {
    while (refreshing) await refreshing.catch(() => undefined);
    refreshing = load().finally(() => (refreshing = null));
    return refreshing;
  }

  /** Deliveries of a batch of events, written in one transaction; webhooks read once per batch. */
  async function deliverBatch(events: DomainEvent[]): Promise<void> {
    const candidates = new Map<string, Promise<WebhookRow[]>>();
    const attached = new Map<string, Promise<Set<string>>>();
    const once = <T>(cache: Map<string, Promise<T>>, key: string, load: () => Promise<T>) => {
      let p = cache.get(key);
      if (!p) cache.set(key, (p = load()));
      return p;
    };
    const t = deps.now();
    const rows: Insertable<WebhookDeliveriesTable>[] = [];
    for (const event of events) {
      let hooks = await once(candidates, `${event.workspaceId}\u0000${event.event}`, () => webhooks.enabledFor(event.workspaceId, event.event));
      if (event.event === 'link.clicked' && hooks.length) {
        const link = event.data.link;
        const mine = link ? await once(attached, link.id, () => webhooks.attachedTo(event.workspaceId, link.id)) : new Set<string>();
        hooks = hooks.filter((h) => coversClick(h, link, mine));
      }
      if (!hooks.length) continue;
      const body = envelope(event);
      for (const h of hooks) {
        rows.push({
          id: newId('whd', t), webhook_id: h.id, workspace_id: event.workspaceId, event_id: event.id, event: event.event, body,
          attempts: 0, next_attempt_at: t, delivered_at: null, status_code: null, latency_ms: null, error: null, created_at: t,
        });
      }
    }
    if (!rows.length) return;
    await deliveries.insert(rows);
    deps.nudge();
  }

  const subscriber: Subscriber = {
    name: 'webhooks',
    events: DOMAIN_EVENT_TYPES,
    wants: (type) => triggers.has(type),
    clicks: { current: () => clicks, watch: (listener) => void listeners.push(listener) },
    deliver: (event) => deliverBatch([event]),
    deliverBatch,
  };

  let soon: NodeJS.Timeout | null = null;
  /**
   * A link was written (its `webhookIds` or folder may have changed): while any webhook takes
   * `link.clicked`, the click subscriptions are reloaded shortly, once for a burst of writes.
   */
  function linksChanged(): void {
    if (soon || !triggers.has('link.clicked')) return;
    soon = setTimeout(() => {
      soon = null;
      void refresh().catch(() => undefined);
    }, LINK_CHANGE_DELAY_MS);
    soon.unref();
  }

  return { subscriber, refresh, linksChanged };
}
