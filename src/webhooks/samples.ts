/**
 * The data of `POST /webhooks/{id}/test`: a sample of each trigger's payload, shaped like the real
 * thing (the link as the links API returns it, the click of `/events`), with made-up values.
 */
import type { DomainEventType } from '../outbox/outbox.js';
import type { DomainEventData } from './event-payloads.js';
import { toLinkResponse, type LinkResponse } from '../links/response.js';
import type { LinkRow } from '../links/store.js';

function sampleLink(workspaceId: string, t: number): LinkResponse {
  const known: Partial<LinkRow> = {
    id: 'link_sample', workspace_id: workspaceId, domain: 'example.com', key: 'sample', url: 'https://example.com/landing',
    short_link: 'https://example.com/sample', archived: 0, track_conversion: 0, proxy: 0, rewrite: 0, do_index: 0, public_stats: 0, public_stats_conversions: 0,
    clicks: 0, leads: 0, conversions: 0, sales: 0, sale_amount: 0, created_at: t, updated_at: t,
  };
  // Every other column of the row is null in a sample.
  const row = new Proxy(known, { get: (o, k) => (k in o ? o[k as keyof LinkRow] : null) }) as LinkRow;
  return toLinkResponse(row, [], { baseUrl: 'https://example.com', shortLinkProtocol: 'https' });
}

export function sampleData(trigger: DomainEventType, workspaceId: string, t: number): DomainEventData[DomainEventType] {
  const link = sampleLink(workspaceId, t);
  if (trigger === 'link.created' || trigger === 'link.updated' || trigger === 'link.deleted') return link;
  const timestamp = new Date(t).toISOString();
  const click = {
    id: 'sampleclick00000', timestamp, url: link.url, country: 'US', city: 'San Francisco', region: 'US-CA', continent: 'NA',
    device: 'Desktop', browser: 'Chrome', os: 'Mac OS', trigger: 'link', referer: '(direct)', refererUrl: '(direct)', qr: false, ip: '203.0.113.7',
  };
  if (trigger === 'link.clicked') return { click, link };
  const customer = { id: 'cus_sample', name: 'Sample Customer', email: 'customer@example.com', avatar: null, externalId: 'sample-customer', country: 'US', createdAt: timestamp };
  const lead = { eventName: 'Sign up', customer, click, link, metadata: null };
  if (trigger === 'lead.created') return lead;
  return { ...lead, eventName: 'Purchase', sale: { amount: 4900, currency: 'usd', paymentProcessor: 'stripe', invoiceId: null } };
}
