/**
 * The one outbox subscriber of webhooks (outbox/publisher.ts delivers each domain event to it at
 * least once): it writes a delivery per matching enabled webhook, idempotent on (webhook, event),
 * and nudges the dispatcher. Matching: the webhook's triggers.
 *
 * Clicks do not come this way: the click batch records their work itself, one row in its own
 * transaction off the redirect thread (click-batches.ts; the dispatcher expands it), following
 * the routes this module keeps (ClickRoutes: which webhooks cover which workspaces and links,
 * through their linkScope or the links' `webhookIds`). So this subscriber takes every event type
 * but `link.clicked`.
 *
 * It also answers, from a cache, what the registry asks before anything is written: whether an
 * event type is wanted by any enabled webhook, and the click routes. The cache is reloaded after
 * every webhook change in this process (`refresh`) and every few seconds for changes made by
 * other processes.
 */
import type { Insertable } from 'kysely';
import type { WebhookDeliveriesTable } from '../db/tables.js';
import type { DomainEvent, DomainEventType, ClickSubscriptions } from '../outbox/outbox.js';
import { DOMAIN_EVENT_TYPES, NO_CLICK_SUBSCRIPTIONS } from '../outbox/outbox.js';
import type { Subscriber } from '../outbox/publisher.js';
import { newId } from '../ids.js';
import type { WebhookStore } from './store.js';
import type { DeliveryStore } from './delivery-store.js';
import type { WebhookRow } from './schema.js';

/** The envelope receivers get: the publisher's event without Waymark's `workspaceId`. */
export function envelope(event: DomainEvent): string {
  return JSON.stringify({ id: event.id, event: event.event, createdAt: event.createdAt, data: event.data });
}

/** What comes through the outbox: every event type but clicks (see above). */
const OUTBOX_EVENTS = DOMAIN_EVENT_TYPES.filter((t) => t !== 'link.clicked');

const sortedEntries = (r: Readonly<Record<string, readonly string[]>>) => Object.entries(r).map(([k, v]) => [k, [...v].sort()]).sort((a, b) => (a[0]! < b[0]! ? -1 : 1));

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
    const routes = triggers.has('link.clicked') ? await webhooks.clickRoutes() : { workspaces: {}, links: {} };
    const key = JSON.stringify([sortedEntries(routes.workspaces), sortedEntries(routes.links)]);
    if (key === clicksKey) return;
    clicksKey = key;
    clicks = { ...NO_CLICK_SUBSCRIPTIONS, routes };
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
    const once = <T>(cache: Map<string, Promise<T>>, key: string, load: () => Promise<T>) => {
      let p = cache.get(key);
      if (!p) cache.set(key, (p = load()));
      return p;
    };
    const t = deps.now();
    const rows: Insertable<WebhookDeliveriesTable>[] = [];
    for (const event of events) {
      // link.clicked is not among this subscriber's events: the click batch records that work.
      const hooks = await once(candidates, `${event.workspaceId}\u0000${event.event}`, () => webhooks.enabledFor(event.workspaceId, event.event));
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
    events: OUTBOX_EVENTS,
    wants: (type) => type !== 'link.clicked' && triggers.has(type),
    // `routed`: a click batch committed webhook work: expand and send it now.
    clicks: { current: () => clicks, watch: (listener) => void listeners.push(listener), routed: () => deps.nudge() },
    deliver: (event) => deliverBatch([event]),
    deliverBatch,
  };

  let soon: NodeJS.Timeout | null = null;
  /**
   * A link was written (its `webhookIds` or folder may have changed): while any webhook takes
   * `link.clicked`, the click routes are reloaded shortly, once for a burst of writes.
   */
  function linksChanged(): void {
    if (soon || !triggers.has('link.clicked')) return;
    soon = setTimeout(() => {
      soon = null;
      void refresh().catch(() => undefined);
    }, LINK_CHANGE_DELAY_MS);
    soon.unref();
  }

  /** Whether any enabled webhook exists (its deliveries need a dispatcher). */
  const active = () => triggers.size > 0;

  return { subscriber, refresh, linksChanged, active };
}
