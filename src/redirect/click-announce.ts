/**
 * What a click batch's transaction writes for those who hear about clicks (click-fold.ts,
 * `announce`), in the flush worker or, for an in-memory database, on the main thread: outbox rows
 * for the clicks outbox subscribers want (events/outbox.ts, clickFilter), and one row of webhook
 * work for the clicks webhooks cover (webhooks/click-batches.ts, `writeClickWebhookBatch`: one row
 * per batch whatever the number of webhooks; the dispatcher expands it). A click both kinds hear
 * about keeps one event id. Clicks nobody hears about cost two set look-ups.
 *
 * @example
 * const announcer = createClickAnnouncer({ subscriptions, writeOutbox });
 * announcer.set(next);                         // webhooks changed
 * await announcer.announce(trx, rows);         // inside the batch's transaction
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.js';
import type { StoredEvent } from '../events/event-store.js';
import { clickFilter, clickOutboxEntries, type ClickSubscriptions, type OutboxEntry } from '../events/outbox.js';
import { clickRouter, writeClickWebhookBatch } from '../webhooks/click-batches.js';
import { newId } from '../ids.js';

export function createClickAnnouncer(options: {
  subscriptions: ClickSubscriptions;
  writeOutbox: (trx: Kysely<Database>, entries: readonly OutboxEntry[]) => Promise<void>;
  now?: () => number;
}) {
  const now = options.now ?? Date.now;
  let wanted = clickFilter(options.subscriptions);
  let route = clickRouter(options.subscriptions);
  return {
    /** The subscriptions changed: applies from the next batch. */
    set(s: ClickSubscriptions): void {
      wanted = clickFilter(s);
      route = clickRouter(s);
    },
    /** Whether batches write outbox rows, webhook work (whose senders a commit should nudge). */
    get writesOutbox(): boolean {
      return wanted !== null;
    },
    get routes(): boolean {
      return route !== null;
    },
    async announce(trx: Kysely<Database>, rows: readonly StoredEvent[]): Promise<void> {
      const w = wanted;
      const r = route;
      if (!w && !r) return;
      const t = now();
      const ids = new Map<StoredEvent, string>();
      const idOf = (row: StoredEvent) => {
        let id = ids.get(row);
        if (!id) ids.set(row, (id = newId('evt', t)));
        return id;
      };
      if (w) {
        const entries = clickOutboxEntries(rows.filter(w), t, r ? idOf : undefined);
        if (entries.length) await options.writeOutbox(trx, entries);
      }
      if (r) await writeClickWebhookBatch(trx, rows, r, { now: t, idOf: w ? idOf : undefined });
    },
  };
}
export type ClickAnnouncer = ReturnType<typeof createClickAnnouncer>;
