/**
 * The domain events' payloads as the published webhooks send them, and the expander that builds
 * them from outbox rows, which app.ts gives the publisher (outbox/publisher.ts): `link.*` rows hold
 * their data as committed; click, lead and sale rows hold their event row, turned here into the
 * click and customer objects of the `/events` records (analytics/event-records.ts) and the link as
 * the links API returns it, read now (null when the link was deleted since). Every subscriber (the
 * webhooks, the `EVENTS_FILE` sink) receives these.
 *
 * @example
 * const publisher = createOutboxPublisher({ db, subscribers, expander: () => createEventExpander(db, settings) });
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.js';
import { toLinkResponse, type LinkResponse, type LinkUrlSettings } from '../links/response.js';
import { loadLinkExtras } from '../links/store.js';
import { toEventRecord, type CustomerRow, type EventRow } from '../analytics/event-records.js';
import type { ClickEventResponse, LeadEventResponse } from '../analytics/schema.js';
import type { DomainEvent, DomainEventType, OutboxPayloads } from '../outbox/outbox.js';
import type { OutboxRow } from '../outbox/publisher.js';

/** The click object as in the `/events` click records. */
export type ClickObject = ClickEventResponse['click'];
/** The customer object as in the `/events` lead and sale records. */
export type CustomerObject = LeadEventResponse['customer'];

export interface LeadCreatedData {
  eventName: string;
  customer: CustomerObject;
  click: ClickObject;
  /** The link as the links API returns it, read at delivery; null when it was deleted since. */
  link: LinkResponse | null;
  metadata: unknown;
}

/** `data` of each event as subscribers receive it. */
export interface DomainEventData {
  'link.created': LinkResponse;
  'link.updated': LinkResponse;
  'link.deleted': LinkResponse;
  'link.clicked': { click: ClickObject; link: LinkResponse | null };
  'lead.created': LeadCreatedData;
  'sale.created': LeadCreatedData & { sale: { amount: number; currency: string | null; paymentProcessor: string; invoiceId: string | null } };
}

/** A domain event with its published payload. */
export type PublishedEvent<T extends DomainEventType = DomainEventType> = DomainEvent<T, DomainEventData & { 'mail.send': unknown }>;

/** Expands rows; links and customers read once per expander (create one per delivery round). */
export function createEventExpander(db: Kysely<Database>, settings: LinkUrlSettings) {
  const links = new Map<string, Promise<LinkResponse | null>>();
  const customers = new Map<string, Promise<CustomerRow | undefined>>();

  function linkOf(workspaceId: string, linkId: string): Promise<LinkResponse | null> {
    const key = `${workspaceId}\u0000${linkId}`;
    let p = links.get(key);
    if (!p) {
      p = (async () => {
        const row = await db.selectFrom('links').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', linkId).executeTakeFirst();
        if (!row) return null;
        const extras = await loadLinkExtras(db, workspaceId, [row.id]);
        return toLinkResponse(row, extras.tags(row.id), settings, extras.webhookIds(row.id));
      })();
      links.set(key, p);
    }
    return p;
  }

  function customerOf(workspaceId: string, id: string): Promise<CustomerRow | undefined> {
    let p = customers.get(id);
    if (!p) {
      p = db.selectFrom('customers').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
      customers.set(id, p);
    }
    return p;
  }

  return async function expand(row: OutboxRow): Promise<PublishedEvent> {
    const type = row.type as DomainEventType;
    const envelope = { id: row.id, createdAt: new Date(Number(row.created_at)).toISOString(), workspaceId: row.workspace_id };
    if (type === 'link.created' || type === 'link.updated' || type === 'link.deleted') {
      return { ...envelope, event: type, data: JSON.parse(row.payload) as LinkResponse };
    }
    const stored = (JSON.parse(row.payload) as OutboxPayloads['link.clicked']).event as EventRow;
    const link = await linkOf(row.workspace_id, stored.link_id);
    const customer = stored.customer_id ? await customerOf(row.workspace_id, stored.customer_id) : undefined;
    // The record's own `link` is not used: ours may be null (a link deleted since the event).
    const record = toEventRecord(stored, link as LinkResponse, new Map(customer ? [[customer.id, customer]] : []));
    if (type === 'link.clicked' || record.event === 'click') return { ...envelope, event: 'link.clicked', data: { click: record.click, link } };
    const lead = { eventName: record.eventName, customer: record.customer, click: record.click, link, metadata: record.metadata };
    if (record.event === 'lead') return { ...envelope, event: 'lead.created', data: lead };
    const { amount, currency, paymentProcessor, invoiceId } = record.sale;
    return { ...envelope, event: 'sale.created', data: { ...lead, sale: { amount, currency, paymentProcessor, invoiceId } } };
  };
}
