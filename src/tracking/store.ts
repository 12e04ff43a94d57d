/**
 * The queries of the track endpoints: click, lead and sale look-ups in the event log and the
 * counter updates on links and workspaces. Every method takes the workspace id first. Bind it to
 * a transaction with `createTrackingStore(trx)` so counters commit with the events.
 */
import type { Kysely, Selectable } from 'kysely';
import type { Database, EventsTable, LinksTable } from '../db/tables.js';

export type EventRow = Selectable<EventsTable>;
export type LinkRow = Selectable<LinksTable>;

export interface TrackingStore {
  /** A flushed click of the workspace (the redirect module's lookup also covers the unflushed batch). */
  findClick(workspaceId: string, clickId: string): Promise<EventRow | undefined>;
  findLink(workspaceId: string, linkId: string): Promise<LinkRow | undefined>;
  /** The customer's latest lead, of the given event name (case-sensitive) when one is given. */
  latestLead(workspaceId: string, customerId: string, eventName?: string | null): Promise<EventRow | undefined>;
  hasAnyLead(workspaceId: string, customerId: string): Promise<boolean>;
  /** Distinct names of the customer's leads since `since` (ms), for de-duplication. */
  leadNamesSince(workspaceId: string, customerId: string, since: number): Promise<string[]>;
  saleByInvoice(workspaceId: string, invoiceId: string): Promise<EventRow | undefined>;
  hasSaleOnLink(workspaceId: string, customerId: string, linkId: string): Promise<boolean>;
  addLinkLeads(workspaceId: string, linkId: string, count: number): Promise<void>;
  addLinkSale(workspaceId: string, linkId: string, amountUsdCents: number, conversion: boolean): Promise<void>;
  /** Tracked events count toward the workspace's monthly usage, like clicks (behaviour.md §6). */
  addUsage(workspaceId: string, count: number): Promise<void>;
}

export function createTrackingStore(db: Kysely<Database>): TrackingStore {
  const customerEvents = (workspaceId: string, customerId: string, kind: 'lead' | 'sale') =>
    // Served by events_customer (workspace_id, customer_id, kind, timestamp).
    db.selectFrom('events').where('workspace_id', '=', workspaceId).where('customer_id', '=', customerId).where('kind', '=', kind);

  return {
    findClick: (workspaceId, clickId) =>
      db
        .selectFrom('events')
        .selectAll()
        .where('click_id', '=', clickId)
        .where('kind', '=', 'click')
        .where('workspace_id', '=', workspaceId)
        .limit(1)
        .executeTakeFirst(),

    findLink: (workspaceId, linkId) =>
      db.selectFrom('links').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', linkId).executeTakeFirst(),

    latestLead(workspaceId, customerId, eventName) {
      let q = customerEvents(workspaceId, customerId, 'lead').selectAll();
      if (eventName) q = q.where('event_name', '=', eventName);
      return q.orderBy('timestamp', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
    },

    async hasAnyLead(workspaceId, customerId) {
      const row = await customerEvents(workspaceId, customerId, 'lead').select('id').limit(1).executeTakeFirst();
      return !!row;
    },

    async leadNamesSince(workspaceId, customerId, since) {
      const rows = await customerEvents(workspaceId, customerId, 'lead')
        .select('event_name')
        .distinct()
        .where('timestamp', '>=', since)
        .execute();
      return rows.map((r) => r.event_name).filter((n): n is string => n !== null);
    },

    saleByInvoice: (workspaceId, invoiceId) =>
      db
        .selectFrom('events')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('invoice_id', '=', invoiceId)
        .where('kind', '=', 'sale')
        .limit(1)
        .executeTakeFirst(),

    async hasSaleOnLink(workspaceId, customerId, linkId) {
      const row = await customerEvents(workspaceId, customerId, 'sale').select('id').where('link_id', '=', linkId).limit(1).executeTakeFirst();
      return !!row;
    },

    async addLinkLeads(workspaceId, linkId, count) {
      await db
        .updateTable('links')
        .set((eb) => ({ leads: eb('leads', '+', count) }))
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', linkId)
        .execute();
    },

    async addLinkSale(workspaceId, linkId, amount, conversion) {
      await db
        .updateTable('links')
        .set((eb) => ({
          sales: eb('sales', '+', 1),
          sale_amount: eb('sale_amount', '+', amount),
          conversions: eb('conversions', '+', conversion ? 1 : 0),
        }))
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', linkId)
        .execute();
    },

    async addUsage(workspaceId, count) {
      await db
        .updateTable('workspaces')
        .set((eb) => ({ usage: eb('usage', '+', count) }))
        .where('id', '=', workspaceId)
        .execute();
    },
  };
}
