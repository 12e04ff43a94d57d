/**
 * Domain events: what users may want to hear about (the published service's workspace webhook
 * events), what the outbox stores of each, and the outbox they go through. A change writes its events with
 * `writeOutbox` inside its own transaction, so nothing is announced that did not commit and
 * nothing committed is lost to a crash; `publisher.ts` reads the outbox after the commit and hands
 * the events to the subscribers registered at start.
 *
 * Envelope as the published webhooks send it: `{id: "evt_…", event, createdAt, data}`, plus the
 * workspace the event belongs to.
 *
 * @example
 * await db.transaction().execute(async (trx) => {
 *   await trx.insertInto('links').values(row).execute();
 *   await outbox.write(trx, [outboxEntry('link.created', row.workspace_id, toLinkResponse(row, [], settings), now)]);
 * });
 * outbox.nudge();
 */
import type { Insertable, Kysely } from 'kysely';
import type { Database, OutboxTable } from '../db/tables.js';
import type { StoredEvent } from '../events/index.js';
import { newId } from '../ids.js';
import type { MailIntent } from '../mail/intents.js';

export const DOMAIN_EVENT_TYPES = ['link.created', 'link.updated', 'link.deleted', 'link.clicked', 'lead.created', 'sale.created'] as const;
export type DomainEventType = (typeof DOMAIN_EVENT_TYPES)[number];
/**
 * Outbox types that are no domain event: work the app hands to its own subscribers after a commit
 * (`mail.send`: src/mail/), never offered to webhooks or the file sink.
 */
export const INTERNAL_EVENT_TYPES = ['mail.send'] as const;
export type OutboxType = DomainEventType | (typeof INTERNAL_EVENT_TYPES)[number];

/**
 * An event as subscribers receive it. `Data` types each event's `data`: what the outbox hands on
 * is built by the expander the app gives the publisher (webhooks/event-payloads.ts types it as
 * the published payloads; `mail.send` carries the intent as written); the outbox itself treats it
 * as opaque.
 */
export type DomainEvent<T extends OutboxType = DomainEventType, Data extends Record<OutboxType, unknown> = Record<OutboxType, unknown>> = {
  [K in T]: { id: string; event: K; createdAt: string; workspaceId: string; data: Data[K] };
}[T];

/**
 * What the outbox stores per event type: `link.*` the link as the API returned it at commit (a
 * deleted link cannot be read later; links/link-events.ts writes it); clicks, leads and sales their
 * event row, expanded at delivery into the click, customer and link objects (the expander), since
 * a click batch has no link response at hand.
 */
export interface OutboxPayloads {
  'link.created': unknown;
  'link.updated': unknown;
  'link.deleted': unknown;
  'link.clicked': { event: StoredEvent };
  'lead.created': { event: StoredEvent };
  'sale.created': { event: StoredEvent };
  'mail.send': MailIntent;
}

export type OutboxEntry = Insertable<OutboxTable> & { type: OutboxType };

/** One outbox row; pure (id and time from the arguments' clock). */
export function outboxEntry<T extends OutboxType>(type: T, workspaceId: string, payload: OutboxPayloads[T], now: number): OutboxEntry {
  return { id: newId('evt', now), workspace_id: workspaceId, type, payload: JSON.stringify(payload), created_at: now };
}

/** Inserts outbox rows inside the caller's transaction (rows per statement stay under SQLite's bound values). */
export async function writeOutbox(trx: Kysely<Database>, entries: readonly OutboxEntry[]): Promise<void> {
  for (let i = 0; i < entries.length; i += 500) await trx.insertInto('outbox').values(entries.slice(i, i + 500)).execute();
}

/**
 * `link.clicked` entries for a batch of stored events (the click batch's transaction calls it when
 * the registry wants `link.clicked`); rows that are not clicks are left out. `idOf` gives a click
 * the event id it also has elsewhere (its webhook deliveries, written in the same batch).
 */
export function clickOutboxEntries(rows: readonly StoredEvent[], now: number, idOf?: (row: StoredEvent) => string): OutboxEntry[] {
  const out: OutboxEntry[] = [];
  for (const row of rows) {
    if (row.kind !== 'click') continue;
    const entry = outboxEntry('link.clicked', row.workspace_id, { event: row }, now);
    out.push(idOf ? { ...entry, id: idOf(row) } : entry);
  }
  return out;
}

/** The `lead.created` or `sale.created` entry of a tracked lead or sale event row. */
export function conversionOutboxEntry(row: StoredEvent, now: number): OutboxEntry {
  if (row.kind === 'click') throw new Error('conversionOutboxEntry: a click row; use clickOutboxEntries');
  return outboxEntry(row.kind === 'lead' ? 'lead.created' : 'sale.created', row.workspace_id, { event: row }, now);
}

/**
 * The webhooks taking `link.clicked`, by the clicks they cover: every click of a workspace
 * (linkScope workspace), or of one link (listed, in a listed folder, or naming the webhook in its
 * `webhookIds`). The click batch records their work itself, one row in its own transaction
 * (webhooks/click-batches.ts), so neither the outbox nor the redirect thread carries clicks
 * for webhooks. Plain records: they cross to the event log's thread as a message.
 */
export interface ClickRoutes {
  workspaces: Readonly<Record<string, readonly string[]>>;
  links: Readonly<Record<string, readonly string[]>>;
}

/**
 * Whose clicks anyone hears about: every click (`all`: a subscriber to every `link.clicked`), or
 * those of whole workspaces and of single links; the click batch writes outbox rows for these
 * alone, so clicks of links nobody subscribes to cost nothing extra. `routes`: the webhooks'
 * clicks, written as deliveries by the batch (ClickRoutes), not to the outbox.
 */
export interface ClickSubscriptions {
  all: boolean;
  workspaces: readonly string[];
  links: readonly string[];
  routes?: ClickRoutes;
}

export const NO_CLICK_SUBSCRIPTIONS: ClickSubscriptions = { all: false, workspaces: [], links: [] };

/** The test of a click row against the subscriptions; null when no click is wanted at all. */
export function clickFilter(s: ClickSubscriptions): ((row: Pick<StoredEvent, 'workspace_id' | 'link_id'>) => boolean) | null {
  if (s.all) return () => true;
  if (!s.workspaces.length && !s.links.length) return null;
  const workspaces = new Set(s.workspaces);
  const links = new Set(s.links);
  return (row) => workspaces.has(row.workspace_id) || links.has(row.link_id);
}

/** Which event types anyone subscribes to: nothing is written for the others. */
export interface EventRegistry {
  wants(type: OutboxType): boolean;
  /** Whose clicks are wanted now (they change when webhooks do). */
  clickSubscriptions(): ClickSubscriptions;
  /** Calls `listener` whenever `clickSubscriptions()` changes. */
  watchClicks(listener: () => void): void;
  /** A click batch committed deliveries of `clickSubscriptions().routes`: their subscriber sends them now. */
  clicksRouted(): void;
}

/**
 * What the services write domain events through: the registry's answer, the write in the
 * caller's transaction (entries of unwanted types are dropped), and the nudge after the commit.
 */
export interface Outbox extends EventRegistry {
  write(trx: Kysely<Database>, entries: readonly OutboxEntry[]): Promise<void>;
  /** Call after the transaction that wrote entries committed: this process delivers them now. */
  nudge(): void;
}

export function createOutbox(registry: EventRegistry, nudge: () => void = () => {}): Outbox {
  return {
    wants: (type) => registry.wants(type),
    clickSubscriptions: () => registry.clickSubscriptions(),
    watchClicks: (listener) => registry.watchClicks(listener),
    clicksRouted: () => registry.clicksRouted(),
    async write(trx, entries) {
      const wanted = entries.filter((e) => registry.wants(e.type));
      if (wanted.length) await writeOutbox(trx, wanted);
    },
    nudge,
  };
}
