/**
 * Test fixtures for analytics: a known set of links, tags, folders, customers, clicks, leads and
 * sales written straight to the database (events through `ctx.events.append`, so rollups are
 * maintained exactly as in production), plus a plain-JS oracle that computes the expected figures
 * from the same list, independently of any SQL.
 *
 * Clock: `SEED_NOW` = 2024-05-15T03:00:00Z, i.e. 2024-05-14 20:00 in Los Angeles.
 */
import type { Insertable, Kysely } from 'kysely';
import type { Database, EventsTable, LinksTable } from '../db/tables.js';
import type { EventLog, StoredEvent } from '../events/index.js';
import { linkRow } from '../test-support/link-row.js';

export const SEED_NOW = Date.parse('2024-05-15T03:00:00.000Z');
const H = 3_600_000;
const D = 24 * H;

/** Inserts a link with every NOT NULL column filled. */
export async function insertLink(db: Kysely<Database>, row: Partial<Insertable<LinksTable>> & { id: string; workspace_id: string; domain: string; key: string; url: string }) {
  const full = linkRow(row, SEED_NOW - 100 * D);
  await db.insertInto('links').values(full).execute();
  return full;
}

type ClickDims = Pick<EventsTable, 'country' | 'city' | 'region' | 'continent' | 'device' | 'browser' | 'os' | 'referer' | 'referer_url' | 'trigger'>;

const GEO = {
  sf: { country: 'US', city: 'San Francisco', region: 'US-CA', continent: 'NA' },
  ny: { country: 'US', city: 'New York', region: 'US-NY', continent: 'NA' },
  austin: { country: 'US', city: 'Austin', region: 'US-TX', continent: 'NA' },
  berlin: { country: 'DE', city: 'Berlin', region: 'DE-BE', continent: 'EU' },
  paris: { country: 'FR', city: 'Paris', region: 'FR-IDF', continent: 'EU' },
  london: { country: 'GB', city: 'London', region: 'GB-ENG', continent: 'EU' },
  unknown: { country: 'Unknown', city: 'Unknown', region: 'Unknown', continent: 'Unknown' },
};
const UA = {
  macChrome: { device: 'Desktop', browser: 'Chrome', os: 'Mac OS' },
  iphone: { device: 'Mobile', browser: 'Mobile Safari', os: 'iOS' },
  android: { device: 'Mobile', browser: 'Chrome', os: 'Android' },
  winFirefox: { device: 'Desktop', browser: 'Firefox', os: 'Windows' },
  winChrome: { device: 'Desktop', browser: 'Chrome', os: 'Windows' },
  ipad: { device: 'Tablet', browser: 'Safari', os: 'iOS' },
  winEdge: { device: 'Desktop', browser: 'Edge', os: 'Windows' },
  linux: { device: 'Desktop', browser: 'Chrome', os: 'Linux' },
};
const REF = {
  google: (q = '') => ({ referer: 'google.com', referer_url: `https://google.com/${q}` }),
  direct: { referer: '(direct)', referer_url: '(direct)' },
  twitter: { referer: 'twitter.com', referer_url: 'https://twitter.com/x' },
  bing: { referer: 'bing.com', referer_url: 'https://bing.com/' },
};

export interface Seed {
  workspaceId: string;
  otherWorkspaceId: string;
  links: Record<'a' | 'b' | 'root' | 'off' | 'c' | 'foreign', Insertable<LinksTable>>;
  tags: { t1: string; t2: string };
  folder: string;
  events: StoredEvent[];
  /** Link id → tag ids. */
  linkTags: Record<string, string[]>;
}

/**
 * Seeds the fixture into `workspaceId` (and a little into `otherWorkspaceId`, which must never
 * show up). Returns every event written, for the oracle.
 */
export async function seedAnalytics(db: Kysely<Database>, events: Pick<EventLog, 'append'>, workspaceId: string, otherWorkspaceId: string): Promise<Seed> {
  const t = SEED_NOW - 100 * D;
  const tags = { t1: `tag_t1_${workspaceId.slice(-6)}`, t2: `tag_t2_${workspaceId.slice(-6)}` };
  await db
    .insertInto('tags')
    .values([
      { id: tags.t1, workspace_id: workspaceId, name: 'Newsletter', name_key: 'newsletter', color: 'blue', created_at: t, updated_at: t },
      { id: tags.t2, workspace_id: workspaceId, name: 'Partners', name_key: 'partners', color: 'green', created_at: t, updated_at: t },
    ])
    .execute();
  const folder = `fold_f1_${workspaceId.slice(-6)}`;
  await db
    .insertInto('folders')
    .values({ id: folder, workspace_id: workspaceId, name: 'Campaigns', name_key: 'campaigns', description: null, type: 'default', access_level: 'write', created_at: t, updated_at: t })
    .execute();

  const ws = workspaceId;
  const links = {
    a: await insertLink(db, { id: 'link_a', workspace_id: ws, domain: 'go.test', key: 'a', url: 'https://example.com/a?utm_source=news', tenant_id: 'acme', title: 'A' }),
    b: await insertLink(db, { id: 'link_b', workspace_id: ws, domain: 'go.test', key: 'b', url: 'https://example.com/b', folder_id: folder, partner_id: 'pn_1' }),
    root: await insertLink(db, { id: 'link_root', workspace_id: ws, domain: 'other.test', key: '_root', url: 'https://other.example/' }),
    off: await insertLink(db, { id: 'link_off', workspace_id: ws, domain: 'go.test', key: 'off', url: 'https://example.com/off', disabled_at: SEED_NOW - 10 * D }),
    c: await insertLink(db, { id: 'link_c', workspace_id: ws, domain: 'go.test', key: 'c', url: 'https://example.com/c', program_id: 'prog_1', partner_id: 'pn_2', external_id: 'crm-c' }),
    foreign: await insertLink(db, { id: 'link_foreign', workspace_id: otherWorkspaceId, domain: 'far.test', key: 'x', url: 'https://example.com/x' }),
  };
  const linkTags: Record<string, string[]> = { link_a: [tags.t1], link_b: [tags.t1, tags.t2], link_c: [tags.t2] };
  for (const [linkId, ids] of Object.entries(linkTags)) {
    await db.insertInto('link_tags').values(ids.map((tag_id, position) => ({ link_id: linkId, tag_id, workspace_id: ws, position }))).execute();
  }
  for (const [id, name, email, country] of [
    ['cus_1', 'Ada', 'ada@example.com', 'US'],
    ['cus_2', 'Bo', null, 'FR'],
    ['cus_3', 'Cy', 'cy@example.com', 'GB'],
    ['cus_4', 'Di', 'di@example.com', 'US'],
  ] as const) {
    await db
      .insertInto('customers')
      .values({ id, workspace_id: ws, external_id: `ext-${id}`, name, email, avatar: null, country, processor_customer_id: null, click_id: null, link_id: null, sales: 0, sale_amount: 0, first_sale_at: null, created_at: t, updated_at: t })
      .execute();
  }

  const all: StoredEvent[] = [];
  const byId = new Map<string, StoredEvent>();
  const click = (id: string, link: Insertable<LinksTable>, ts: number, dims: ClickDims, url = link.url, workspace = ws) => {
    const u = new URL(url);
    const e: StoredEvent = {
      workspace_id: workspace, timestamp: ts, id, kind: 'click', click_id: id, link_id: link.id, domain: link.domain, key: link.key, url,
      ...dims, ip: '203.0.113.9', ua: 'Mozilla/5.0',
      utm_source: u.searchParams.get('utm_source'), utm_medium: u.searchParams.get('utm_medium'), utm_campaign: u.searchParams.get('utm_campaign'),
      utm_term: u.searchParams.get('utm_term'), utm_content: u.searchParams.get('utm_content'),
      customer_id: null, event_name: null, amount: 0, currency: null, original_amount: null, payment_processor: null, invoice_id: null, sale_type: null, metadata: null,
    };
    all.push(e);
    byId.set(id, e);
  };
  const lead = (id: string, clickId: string, ts: number, customer: string, eventName: string, metadata: object | null = null) => {
    const c = byId.get(clickId)!;
    const e: StoredEvent = { ...c, id, kind: 'lead', timestamp: ts, customer_id: customer, event_name: eventName, metadata: metadata && JSON.stringify(metadata) };
    all.push(e);
    byId.set(id, e);
  };
  const sale = (id: string, leadId: string, ts: number, amount: number, saleType: 'new' | 'recurring', processor: string | null, invoice: string | null, metadata: object | null = null) => {
    const l = byId.get(leadId)!;
    all.push({ ...l, id, kind: 'sale', timestamp: ts, event_name: 'Purchase', amount, currency: 'usd', original_amount: amount, payment_processor: processor, invoice_id: invoice, sale_type: saleType, metadata: metadata && JSON.stringify(metadata) });
  };
  const T = SEED_NOW;
  const L = links;
  const dims = (g: keyof typeof GEO, u: keyof typeof UA, r: { referer: string; referer_url: string }, trigger = 'link'): ClickDims => ({ ...GEO[g], ...UA[u], ...r, trigger });

  click('c1', L.a, T - 1 * H, dims('sf', 'macChrome', REF.google('search?q=1')));
  click('c2', L.a, T - 2 * H, dims('ny', 'iphone', REF.direct, 'qr'));
  click('c3', L.a, T - 3 * H, dims('berlin', 'android', REF.twitter));
  click('c4', L.a, T - 23 * H, dims('sf', 'winFirefox', REF.google()), 'https://example.com/a?utm_source=news&ref=spring');
  click('c5', L.b, T - 5 * H, dims('paris', 'winChrome', REF.direct));
  click('c6', L.b, T - 6 * H, dims('sf', 'ipad', REF.google('search?q=2'), 'qr'));
  click('c7', L.root, T - 4 * H, dims('london', 'winEdge', REF.bing));
  click('c8', L.off, T - 2 * H, dims('austin', 'macChrome', REF.direct));
  click('c9', L.c, T - 7 * H, dims('unknown', 'linux', REF.direct));
  click('c10', L.c, T - 30 * H, dims('sf', 'macChrome', REF.google()));
  click('c11', L.a, T - 10 * D, dims('berlin', 'winChrome', REF.twitter));
  click('c12', L.a, T - 40 * D, dims('paris', 'iphone', REF.direct));
  // Calendar edges in Los Angeles (UTC-7 in summer, UTC-8 in winter):
  click('c13', L.a, Date.parse('2024-04-01T06:30:00Z'), dims('ny', 'macChrome', REF.direct)); // Mar 31 in LA: Q1 there, Q2 in UTC
  click('c14', L.a, Date.parse('2024-05-01T06:30:00Z'), dims('ny', 'macChrome', REF.direct)); // Apr 30 in LA: May only in UTC
  click('c15', L.a, Date.parse('2024-01-01T04:00:00Z'), dims('ny', 'macChrome', REF.direct)); // 2023 in LA: 2024 only in UTC
  click('x1', L.foreign, T - 1 * H, dims('sf', 'macChrome', REF.direct), undefined, otherWorkspaceId);

  lead('l1', 'c1', T - 50 * 60_000, 'cus_1', 'Sign up', { plan: 'pro', seats: 3 });
  lead('l2', 'c5', T - 4 * H, 'cus_2', 'Sign up');
  lead('l3', 'c7', T - 3 * H, 'cus_3', 'Sign up', { plan: 'free' });
  lead('l4', 'c8', T - 1 * H, 'cus_4', 'Sign up');
  lead('l5', 'c2', T - 90 * 60_000, 'cus_5', 'Trial');
  sale('s1', 'l1', T - 30 * 60_000, 5000, 'new', 'stripe', 'inv_1', { plan: 'pro' });
  sale('s2', 'l1', T - 20 * 60_000, 2500, 'recurring', 'stripe', null);
  sale('s3', 'l2', T - 2 * H, 10000, 'new', 'shopify', 'inv_3');
  sale('s4', 'l3', T - 1 * H, 700, 'new', null, null);
  sale('s5', 'l4', T - 30 * 60_000, 999, 'new', 'stripe', 'inv_5');

  // Two appends, as a click flush and a track call would: rollups add up across batches.
  await events.append(all.slice(0, 9));
  await events.append(all.slice(9));
  return { workspaceId, otherWorkspaceId, links, tags, folder, events: all, linkTags };
}
