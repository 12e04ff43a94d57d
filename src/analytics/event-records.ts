/**
 * Stored event rows → the event list's records (spec: "Event records"; behaviour.md §7.4): the
 * nested `click`, `link`, `customer` and `sale` objects plus the deprecated flat copies.
 *
 * Choices where the published service is odd: the top-level `timestamp` is ISO-8601 (the
 * published one is a `Date.toString()` by accident; any client that parses one parses the
 * other); `sale.currency` is `usd`, the currency `amount` is in.
 */
import type { Selectable } from 'kysely';
import type { CustomersTable, EventsTable } from '../db/tables.js';
import type { LinkResponse } from '../links/response.js';
import { stripQuery } from '../events/index.js';
import { formatRegion } from './shape.js';
import type { ClickEventResponse, EventRecord, LeadEventResponse } from './schema.js';

export type EventRow = Selectable<EventsTable>;
export type CustomerRow = Selectable<CustomersTable>;

const PAYMENT_PROCESSORS = new Set(['stripe', 'shopify', 'polar', 'paddle', 'apple', 'revenuecat', 'lemonsqueezy', 'dub', 'custom']);

const iso = (ms: number) => new Date(Number(ms)).toISOString();

function parseMetadata(text: string | null): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function customerOf(id: string | null, row: CustomerRow | undefined): LeadEventResponse['customer'] {
  if (!row) {
    // A deleted customer keeps its id; the rest reads as the published placeholder.
    return {
      id: id ?? '',
      name: 'Deleted Customer',
      email: 'deleted@customer.com',
      avatar: null,
      externalId: id ?? '',
      country: null,
      createdAt: new Date(0).toISOString(),
    };
  }
  return {
    id: row.id,
    name: row.name,
    email: row.email ?? '',
    avatar: row.avatar,
    externalId: row.external_id,
    country: row.country,
    createdAt: iso(row.created_at),
  };
}

/** One record; `link` is the event's link (events of deleted links never get here). */
export function toEventRecord(e: EventRow, link: LinkResponse, customers: ReadonlyMap<string, CustomerRow>): EventRecord {
  const qr = e.trigger === 'qr';
  const click: ClickEventResponse['click'] = {
    id: e.click_id,
    timestamp: iso(e.timestamp),
    url: e.url,
    country: e.country,
    city: e.city,
    region: formatRegion(e.country, e.region),
    continent: e.continent,
    device: e.device,
    browser: e.browser,
    os: e.os,
    trigger: e.trigger || null,
    referer: e.referer,
    refererUrl: stripQuery(e.referer_url),
    qr,
    ip: e.ip,
  };
  const flat = {
    click_id: e.click_id,
    link_id: e.link_id,
    domain: e.domain,
    key: e.key,
    url: e.url,
    continent: e.continent,
    country: e.country,
    city: e.city,
    device: e.device,
    browser: e.browser,
    os: e.os,
    qr: qr ? 1 : 0,
    ip: e.ip,
  };
  const timestamp = iso(e.timestamp);
  if (e.kind === 'click') return { event: 'click', timestamp, click, link, ...flat };

  const customer = customerOf(e.customer_id, e.customer_id ? customers.get(e.customer_id) : undefined);
  const conversion = {
    timestamp,
    eventId: e.id,
    eventName: e.event_name ?? '',
    metadata: parseMetadata(e.metadata),
    click,
    link,
    customer,
    ...flat,
  };
  if (e.kind === 'lead') return { event: 'lead', ...conversion };

  const processor = e.payment_processor && PAYMENT_PROCESSORS.has(e.payment_processor) ? e.payment_processor : 'custom';
  const amount = Number(e.amount);
  return {
    event: 'sale',
    ...conversion,
    sale: { amount, invoiceId: e.invoice_id, paymentProcessor: processor, currency: 'usd' },
    saleAmount: amount,
    invoice_id: e.invoice_id ?? '',
    payment_processor: processor,
  };
}
