/**
 * Columnar click batches (click-columns.ts) and the wide event rows, both ways: a store that keeps
 * wide rows writes them from the columns (`rowsOf`), and wide rows become columns at the edges
 * where clicks arrive as rows (imported clicks, a batch read back after a restart: `columnsOf`).
 * `linkCounts` is the counters' share, read from the columns.
 *
 * @example
 * const rows = rowsOf(columns);   // StoredEvent[], one per click, in order
 * columnsOf(rows);                // the same clicks in columns (ids kept as text)
 */
import type { StoredEvent } from '../event-store.js';
import { clickEvent } from '../rows.js';
import { BatchDictionary, clickIdAt, type ClickAgentEntry, type ClickColumns, type ClickLinkEntry, type ClickPlaceEntry, type ClickRefererEntry, type ClickUrlEntry } from './click-columns.js';

/** Click `i` as the wide row. */
export function rowAt(c: ClickColumns, i: number): StoredEvent {
  const d = c.dictionaries;
  const link = d.links[c.link[i]!]!;
  const url = d.urls[c.url[i]!]!;
  const agent = d.agents[c.agent[i]!]!;
  const referer = d.referers[c.referer[i]!]!;
  const place = d.places[c.place[i]!]!;
  return clickEvent({
    workspace_id: link.workspace_id,
    timestamp: c.time[i]!,
    id: clickIdAt(c, i),
    link_id: link.link_id,
    domain: link.domain,
    key: link.key,
    url: url.url,
    country: place.country,
    city: place.city,
    region: place.region,
    continent: place.continent,
    device: agent.device,
    browser: agent.browser,
    os: agent.os,
    referer: referer.referer,
    referer_url: referer.referer_url,
    trigger: d.triggers[c.trigger[i]!]!,
    ip: d.addresses[c.address[i]!]!,
    ua: agent.ua,
    utm_source: url.utm_source,
    utm_medium: url.utm_medium,
    utm_campaign: url.utm_campaign,
    utm_term: url.utm_term,
    utm_content: url.utm_content,
  });
}

/** The wide rows of the batch, in order. */
export function rowsOf(c: ClickColumns): StoredEvent[] {
  const out: StoredEvent[] = new Array(c.length);
  for (let i = 0; i < c.length; i++) out[i] = rowAt(c, i);
  return out;
}

const keyOf = (...parts: (string | null | undefined)[]) => parts.map((p) => (p == null ? '\u0000' : p)).join('\u0001');

/** Wide click rows → columns (imported clicks, batches read back, a spill's replay): at the edge, not on the redirect's road. */
export function columnsOf(rows: readonly StoredEvent[]): ClickColumns {
  const n = rows.length;
  const links = new BatchDictionary<ClickLinkEntry>();
  const urls = new BatchDictionary<ClickUrlEntry>();
  const agents = new BatchDictionary<ClickAgentEntry>();
  const referers = new BatchDictionary<ClickRefererEntry>();
  const places = new BatchDictionary<ClickPlaceEntry>();
  const addresses = new BatchDictionary<string>();
  const triggers = new BatchDictionary<string>();
  const c = {
    length: n, time: new Float64Array(n), random: new Uint32Array(0), ids: new Array<string>(n),
    link: new Uint32Array(n), url: new Uint32Array(n), agent: new Uint32Array(n), referer: new Uint32Array(n),
    place: new Uint32Array(n), address: new Uint32Array(n), trigger: new Uint32Array(n),
  };
  rows.forEach((r, i) => {
    if (r.kind !== 'click') throw new Error(`click batch refused: event ${r.id} is a ${r.kind}`);
    c.time[i] = Number(r.timestamp);
    c.ids[i] = r.id;
    c.link[i] = links.indexOf(keyOf(r.link_id, r.workspace_id, r.domain, r.key), () => ({ link_id: r.link_id, workspace_id: r.workspace_id, domain: r.domain, key: r.key }));
    c.url[i] = urls.indexOf(keyOf(r.url, r.utm_source, r.utm_medium, r.utm_campaign, r.utm_term, r.utm_content), () => ({
      url: r.url, utm_source: r.utm_source ?? null, utm_medium: r.utm_medium ?? null, utm_campaign: r.utm_campaign ?? null, utm_term: r.utm_term ?? null, utm_content: r.utm_content ?? null,
    }));
    c.agent[i] = agents.indexOf(keyOf(r.ua, r.device, r.browser, r.os), () => ({ ua: r.ua, device: r.device, browser: r.browser, os: r.os }));
    c.referer[i] = referers.indexOf(keyOf(r.referer, r.referer_url), () => ({ referer: r.referer, referer_url: r.referer_url }));
    c.place[i] = places.indexOf(keyOf(r.country, r.city, r.region, r.continent), () => ({ country: r.country, city: r.city, region: r.region, continent: r.continent }));
    c.address[i] = addresses.indexOf(r.ip, () => r.ip);
    c.trigger[i] = triggers.indexOf(r.trigger, () => r.trigger);
  });
  return {
    ...c,
    dictionaries: { links: links.values, urls: urls.values, agents: agents.values, referers: referers.values, places: places.values, addresses: addresses.values, triggers: triggers.values },
  };
}

/** Per-link clicks and the latest time, and per-workspace clicks: the counters' share, from the columns. */
export function linkCounts(c: ClickColumns): { links: Map<string, { clicks: number; lastClicked: number }>; workspaces: Map<string, number> } {
  const perEntry = new Float64Array(c.dictionaries.links.length);
  const latest = new Float64Array(c.dictionaries.links.length).fill(-Infinity);
  for (let i = 0; i < c.length; i++) {
    const l = c.link[i]!;
    perEntry[l]!++;
    if (c.time[i]! > latest[l]!) latest[l] = c.time[i]!;
  }
  const links = new Map<string, { clicks: number; lastClicked: number }>();
  const workspaces = new Map<string, number>();
  c.dictionaries.links.forEach((entry, l) => {
    const clicks = perEntry[l]!;
    if (!clicks) return;
    // One link may appear under two entries (its domain or key changed within the batch).
    const known = links.get(entry.link_id);
    if (known) {
      known.clicks += clicks;
      known.lastClicked = Math.max(known.lastClicked, latest[l]!);
    } else links.set(entry.link_id, { clicks, lastClicked: latest[l]! });
    workspaces.set(entry.workspace_id, (workspaces.get(entry.workspace_id) ?? 0) + clicks);
  });
  return { links, workspaces };
}
