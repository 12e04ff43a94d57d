/**
 * Copies one page of the source's event list (`GET /events`) into the target: each record
 * becomes an event row (events/rows.ts) attributed to the copied link with the same domain and
 * key. A page of clicks is one batch of the event log's `appendClicks`, as the redirect's are:
 * stored once by its batch id (`imp_` and a hash of the workspace and the click ids, so a re-run
 * of the same page is the same batch) and counted by the same fold, on the links only (imported
 * clicks are not the workspace's usage and reach no subscriber: events/click-log.ts). A page of
 * leads or sales is one transaction through the `ConversionStore` with the link counters it adds
 * to (links/counters.ts), as the track endpoints do. Idempotent by ids: clicks keep their click
 * ids and leads and sales their event ids, and a page skips the ones the target already holds, so
 * a re-run writes nothing twice.
 *
 * A record's link is found by the domain its link goes to in the target (`domainOf`, the
 * import's domain plan), so events follow links that moved to another domain. A record whose link
 * was not copied, or that lacks what it needs, is returned as a rejection with its reason. With
 * `dryRun` a page is judged (already there by id, or to be written) and nothing is written.
 *
 * @example
 * const copy = createEventCopier({ database, log, conversions, store, workspaceId, links, customers, domainOf: plan.target, retry });
 * const { written, rejected } = await copy('click', page.items);
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.js';
import type { OpenDatabase } from '../db/open.js';
import { createHash } from 'node:crypto';
import { clickEvent, columnsOf, conversionEvent, createLinkCounters, IMPORTED_BATCH_PREFIX, type ConversionStore, type EventLog, type StoredEvent } from '../events/index.js';
import { lookupKey, normaliseDomain } from '../links/keys.js';
import { utmOf } from '../redirect/final-url.js';
import { msOf } from './target.js';
import type { MigrationStore } from './store.js';
import { appendWithCredits } from '../attribution/credit-writer.js';


export type CopiedKind = 'click' | 'lead' | 'sale';

/** A record not written, and why. */
export interface RejectedRecord {
  /** The click id (clicks) or event id (leads, sales), as the source has it. */
  sourceId: string;
  /** `domain/key` of its link in the source. */
  item: string;
  reason: string;
}

/** What one page did. */
export interface PageResult {
  written: number;
  /** Already in the target (an earlier run). */
  skipped: number;
  /** Records whose link was not copied, or that were unreadable; not written. */
  rejected: RejectedRecord[];
}

interface SourceClick {
  id?: string;
  timestamp?: string;
  url?: string;
  country?: string;
  city?: string;
  region?: string;
  continent?: string;
  device?: string;
  browser?: string;
  os?: string;
  referer?: string;
  refererUrl?: string;
  trigger?: string | null;
  qr?: boolean;
  ip?: string;
}

interface SourceRecord {
  event?: string;
  timestamp?: string;
  eventId?: string;
  eventName?: string;
  metadata?: unknown;
  click?: SourceClick;
  link?: { domain?: string; key?: string };
  domain?: string;
  key?: string;
  customer?: { id?: string; externalId?: string };
  sale?: { amount?: number; invoiceId?: string | null; paymentProcessor?: string | null };
}

export interface EventCopierDeps {
  database: Pick<OpenDatabase, 'db' | 'dialect'>;
  /** The target's event log (its client: the log thread stores and counts the clicks). */
  log: Pick<EventLog, 'appendClicks' | 'existingClickIds'>;
  /** Leads and sales, in the page's transaction. */
  conversions: ConversionStore<Kysely<Database>>;
  store: MigrationStore;
  workspaceId: string;
  /** Target link ids by lower-cased `domain/key`. */
  links: ReadonlyMap<string, string>;
  /** Target customer ids by source customer id and by external id. */
  customers: ReadonlyMap<string, string>;
  /** The target domain of a source domain (domain-plan.ts); the identity when absent. */
  domainOf?: (sourceDomain: string) => string;
  /** Judge pages without writing. */
  dryRun?: boolean;
  /** Runs a page's write again while the database is busy (busy.ts); called once when absent. */
  retry?: <T>(work: () => Promise<T>) => Promise<T>;
}

const text = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback);

/** The source domain and key of a record: its nested link, else the deprecated flat copies. */
function linkOf(r: SourceRecord): { domain: string; key: string } | undefined {
  const domain = r.link?.domain ?? r.domain;
  const key = r.link?.key ?? r.key;
  if (typeof domain !== 'string' || typeof key !== 'string' || !domain || !key) return undefined;
  return { domain: normaliseDomain(domain) ?? domain.toLowerCase(), key };
}

/** The click dimensions of a record (a click, or the click a lead or sale is attributed to), on its link's target domain. */
function clickRow(workspaceId: string, linkId: string, domain: string, r: SourceRecord, timestamp: number, id: string): StoredEvent {
  const c = r.click ?? {};
  const url = text(c.url);
  const utm = utmOf(url);
  return clickEvent({
    workspace_id: workspaceId,
    timestamp,
    id,
    link_id: linkId,
    domain,
    key: text(r.link?.key ?? r.key),
    url,
    country: text(c.country, 'Unknown'),
    city: text(c.city, 'Unknown'),
    region: text(c.region, 'Unknown'),
    continent: text(c.continent, 'Unknown'),
    device: text(c.device, 'Unknown'),
    browser: text(c.browser, 'Unknown'),
    os: text(c.os, 'Unknown'),
    referer: text(c.referer, '(direct)'),
    referer_url: text(c.refererUrl, '(direct)'),
    trigger: c.trigger ?? (c.qr ? 'qr' : ''),
    ip: text(c.ip),
    // The event list does not give the user agent; its traits (device, browser, os) are copied.
    ua: '',
    ...utm,
  });
}

export function createEventCopier(deps: EventCopierDeps) {
  const { db } = deps.database;
  const counters = createLinkCounters(deps.database.dialect);
  const { workspaceId, store, log } = deps;
  const events = deps.conversions;
  const domainOf = deps.domainOf ?? ((d: string) => d);
  const retry = deps.retry ?? (<T>(work: () => Promise<T>) => work());

  /** Rows of a page's records, and the records that cannot be written, with their reasons. */
  function rowsOf(kind: CopiedKind, records: readonly SourceRecord[]): { rows: StoredEvent[]; rejected: RejectedRecord[] } {
    const rows: StoredEvent[] = [];
    const rejected: RejectedRecord[] = [];
    for (const r of records) {
      const link = linkOf(r);
      const domain = link ? domainOf(link.domain) : '';
      const linkId = link ? deps.links.get(`${domain}/${lookupKey(link.key)}`) : undefined;
      const clickId = r.click?.id;
      const timestamp = msOf(r.timestamp ?? r.click?.timestamp, NaN);
      const sourceId = text(kind === 'click' ? clickId : r.eventId, '?');
      const reason = !link
        ? 'the record names no link'
        : !linkId
          ? 'its link was not copied'
          : !clickId || Number.isNaN(timestamp)
            ? 'the record has no click id or time'
            : kind !== 'click' && !r.eventId
              ? 'the record has no event id'
              : undefined;
      if (reason) {
        rejected.push({ sourceId, item: link ? `${link.domain}/${link.key}` : '?', reason });
        continue;
      }
      const click = clickRow(workspaceId, linkId!, domain, r, msOf(r.click?.timestamp, timestamp), clickId!);
      if (kind === 'click') {
        rows.push({ ...click, timestamp });
        continue;
      }
      const sourceCustomer = r.customer?.id ?? '';
      const customerId = deps.customers.get(sourceCustomer) ?? deps.customers.get(`ext:${r.customer?.externalId ?? ''}`) ?? (sourceCustomer || null);
      const metadata = r.metadata === undefined || r.metadata === null ? null : JSON.stringify(r.metadata);
      if (kind === 'lead') {
        rows.push(conversionEvent(click, { kind: 'lead', workspace_id: workspaceId, timestamp, id: r.eventId!, customer_id: customerId, event_name: r.eventName ?? null, metadata }));
      } else {
        const amount = Math.max(0, Math.trunc(Number(r.sale?.amount ?? 0)) || 0);
        rows.push(conversionEvent(click, {
          kind: 'sale', workspace_id: workspaceId, timestamp, id: r.eventId!, customer_id: customerId, event_name: r.eventName ?? null, metadata,
          amount, currency: 'usd', original_amount: amount, payment_processor: r.sale?.paymentProcessor ?? 'custom', invoice_id: r.sale?.invoiceId ?? null,
        }));
      }
    }
    return { rows, rejected };
  }

  /**
   * The page's clicks not stored yet, as one batch of the event log: its id is spelled by the
   * workspace and the click ids, so the batch of a page written before is not stored again.
   */
  async function writeClicks(rows: StoredEvent[]): Promise<StoredEvent[]> {
    const held = new Set(await log.existingClickIds(rows.map((r) => r.id)));
    const fresh = rows.filter((r) => !held.has(r.id));
    if (!fresh.length) return fresh;
    // Imported clicks arrive as rows: columns at this edge.
    await log.appendClicks(importedBatchId(workspaceId, fresh), columnsOf(fresh));
    return fresh;
  }

  /** The page's leads or sales not stored yet (a sale also not by its invoice id), each sale marked `new` or `recurring`. */
  async function freshConversions(trx: Kysely<Database>, kind: 'lead' | 'sale', rows: StoredEvent[]): Promise<StoredEvent[]> {
    const held = await store.existingEventIds(trx, workspaceId, rows.map((r) => r.id));
    const fresh: StoredEvent[] = [];
    // A sale is a conversion (and `new`) when it is its customer's first on the link, as tracked.
    const soldOn = new Set<string>();
    for (const r of rows) {
      if (held.has(r.id)) continue;
      if (kind === 'sale') {
        if (r.invoice_id && (await events.saleByInvoice(workspaceId, r.invoice_id, trx))) continue;
        const pair = `${r.customer_id}\u0000${r.link_id}`;
        const first = !!r.customer_id && !soldOn.has(pair) && !(await events.hasSaleOnLink(workspaceId, r.customer_id, r.link_id, trx));
        if (r.customer_id) soldOn.add(pair);
        fresh.push({ ...r, sale_type: first ? 'new' : 'recurring' });
      } else fresh.push(r);
    }
    return fresh;
  }

  async function writeConversions(trx: Kysely<Database>, kind: 'lead' | 'sale', rows: StoredEvent[]): Promise<StoredEvent[]> {
    const fresh = await freshConversions(trx, kind, rows);
    if (!fresh.length) return fresh;
    // Imported sales get their attribution credits in the page's write; the customers' later
    // sales already stored are recomputed, their journey having gained earlier touches
    // (docs/decisions/0015).
    await appendWithCredits(events, fresh, trx);
    const buyers = [...new Set(fresh.map((r) => r.customer_id).filter((c): c is string => !!c))];
    if (buyers.length) await events.queueRecompute(workspaceId, buyers, Math.min(...fresh.map((r) => Number(r.timestamp))), trx, fresh.map((r) => r.id));
    for (const r of fresh) {
      if (kind === 'lead') {
        await counters.addLeads(trx, workspaceId, r.link_id, 1);
        if (r.customer_id) await store.noteCustomerLead(trx, workspaceId, r.customer_id, r.click_id, r.link_id);
      } else {
        await counters.addSale(trx, workspaceId, r.link_id, Number(r.amount), r.sale_type === 'new');
        if (r.customer_id) await store.noteCustomerSale(trx, workspaceId, r.customer_id, r.timestamp);
      }
    }
    return fresh;
  }

  /** Writes one page of records of one kind; all of it or nothing. */
  return async function copyPage(kind: CopiedKind, records: readonly unknown[]): Promise<PageResult> {
    const { rows, rejected } = rowsOf(kind, records as SourceRecord[]);
    if (!rows.length) return { written: 0, skipped: 0, rejected };
    if (deps.dryRun) {
      const fresh = kind === 'click'
        ? rows.length - (await log.existingClickIds(rows.map((r) => r.id))).length
        : (await freshConversions(db, kind, rows)).length;
      return { written: fresh, skipped: rows.length - fresh, rejected };
    }
    if (kind === 'click') {
      // One migration runs at a time per workspace: no other writer adds these click ids meanwhile.
      const written = await retry(() => writeClicks(rows));
      return { written: written.length, skipped: rows.length - written.length, rejected };
    }
    const written = await retry(() => db.transaction().execute((trx) => writeConversions(trx, kind, rows)));
    // Committed: the page's leads and sales handed to the log (a column store copies them in by id).
    await events.afterCommit();
    return { written: written.length, skipped: rows.length - written.length, rejected };
  };
}

/** The batch id of a page of imported clicks: the same page (workspace, click ids) gives the same id. */
export function importedBatchId(workspaceId: string, rows: readonly Pick<StoredEvent, 'id'>[]): string {
  const hash = createHash('sha256').update(workspaceId);
  for (const id of rows.map((r) => r.id).sort()) hash.update('\u0000').update(id);
  return `${IMPORTED_BATCH_PREFIX}${hash.digest('base64url').slice(0, 32)}`;
}
