/**
 * What a stored click sets off, registered in one place: the link counters and the workspaces'
 * usage, `link.clicked` outbox rows for outbox subscribers, and webhook deliveries for the clicks
 * webhooks cover (imported clicks: their links' counters only). The event log's thread imports this module (app.ts names it to `startEventLog`)
 * and runs each listener in the fold's transaction (events/log/fold.ts); after a fold that wrote
 * outbox rows or deliveries, the main thread tells their deliverers (`onCounted`).
 *
 * @example
 * startEventLog({ ..., listeners: { module: new URL('./click-listeners/index.js', import.meta.url), settings: () => ({ clicks }), watch } });
 */
import type { Dialect } from '../db/dialect.js';
import { createLinkCounters, type ClickListener, type ClickListenerModule } from '../events/index.js';
import { clickFilter, clickOutboxEntries, NO_CLICK_SUBSCRIPTIONS, writeOutbox, type ClickSubscriptions } from '../outbox/outbox.js';
import { clickRouter, writeClickWebhookBatch } from '../webhooks/click-batches.js';

/** The listeners' settings the main thread sends whenever they change. */
export interface ClickListenerSettings {
  clicks: ClickSubscriptions;
}

/**
 * The fold's listeners, in the one place they are registered. Each runs in the fold's
 * transaction over the clicks it counts (events/log/fold.ts); `settings()` is read at each fold.
 */
export function clickListeners(options: { dialect: Dialect; settings: () => unknown }): ClickListener[] {
  // Until the main thread's first settings arrive: no subscriptions.
  const settings = options.settings as () => ClickListenerSettings | undefined;
  const counters = createLinkCounters(options.dialect);
  // Filters and routes are rebuilt when the subscriptions change, not at every fold.
  let seen: ClickSubscriptions | undefined;
  let wanted: ReturnType<typeof clickFilter> = null;
  let route: ReturnType<typeof clickRouter> = null;
  const current = () => {
    const s = settings()?.clicks ?? NO_CLICK_SUBSCRIPTIONS;
    if (s !== seen) {
      seen = s;
      wanted = clickFilter(s);
      route = clickRouter(s);
    }
    return { wanted, route };
  };
  return [
    {
      name: 'counters',
      async count(trx, clicks, fold) {
        // Imported clicks are history: the workspace's monthly usage (what it is billed for) stays.
        // Counted from the columns: no row per click.
        await counters.addClicks(trx, clicks.linkBumps(), fold.imported ? [] : clicks.workspaceBumps());
        return false;
      },
    },
    {
      name: 'outbox',
      urgent: (clicks) => {
        const { wanted: w } = current();
        return !!w && clicks.some(w);
      },
      async count(trx, clicks, fold) {
        const { wanted: w } = current();
        if (!w || fold.imported) return false;
        // Rows only of the clicks someone subscribed to.
        const entries = clickOutboxEntries(clicks.rowsWhere(w), fold.now, fold.eventIdOf);
        if (!entries.length) return false;
        await writeOutbox(trx, entries);
        return true;
      },
    },
    {
      name: 'webhooks',
      urgent: (clicks) => {
        const { route: r } = current();
        return !!r && clicks.some((link) => r({ kind: 'click', ...link }).length > 0);
      },
      async count(trx, clicks, fold) {
        const { route: r } = current();
        if (!r || fold.imported) return false;
        const rows = clicks.rowsWhere((link) => r({ kind: 'click', ...link }).length > 0);
        if (!rows.length) return false;
        // One row of webhook work per fold, whatever the webhooks (webhooks/click-batches.ts).
        return (await writeClickWebhookBatch(trx, rows, r, { now: fold.now, idOf: fold.eventIdOf })) > 0;
      },
    },
  ];
}

clickListeners satisfies ClickListenerModule['clickListeners'];
