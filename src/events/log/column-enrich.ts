/**
 * The enrichment of a click in columns, one distinct value at a time: the ring reader
 * (ring-reader.ts) asks for an agent's traits once per agent id of a dictionary generation, a
 * URL's UTM values once per URL id, a referer's host once per referer id, and a location and the
 * stored address once per distinct address of a batch (the locator itself remembers /24
 * networks: visitors/geo.ts). The values are those enrich.ts gives the wide row.
 *
 * @example
 * const enrich = createColumnEnricher({ geo, classify: createUaClassifier(), ipMode: 'anonymized' });
 * enrich.agent('Mozilla/5.0 …'); // { ua: 'Mozilla/5.0 …', device: 'Desktop', browser: 'Chrome', os: 'Mac OS' }
 */
import type { ClickAgentEntry, ClickPlaceEntry, ClickRefererEntry, ClickUrlEntry } from '../batch/click-columns.js';
import type { GeoResult } from '../../visitors/geo.js';
import { storedIp } from '../../visitors/visitor-ip.js';
import { refererOf } from '../../visitors/visitor.js';
import { utmOf } from '../../redirect/final-url.js';
import type { ClickEnricherDeps } from './enrich.js';

export interface ColumnEnricher {
  agent(ua: string): ClickAgentEntry;
  /** `''`: no referer header. */
  referer(header: string): ClickRefererEntry;
  url(url: string): ClickUrlEntry;
  /** The location of an address (the full address: the lookup needs it). */
  place(ip: string): ClickPlaceEntry;
  /** A location the CDN's headers gave. */
  placeOf(geo: GeoResult): ClickPlaceEntry;
  /** What the stored row keeps of the address (`VISITOR_IP`). */
  address(ip: string): string;
}

export function createColumnEnricher(deps: Omit<ClickEnricherDeps, 'cacheSize'>): ColumnEnricher {
  const placeOf = (geo: GeoResult): ClickPlaceEntry => ({ country: geo.country, city: geo.city, region: geo.region, continent: geo.continent });
  return {
    agent(ua) {
      const t = deps.classify(ua);
      return { ua, device: t.device, browser: t.browser, os: t.os };
    },
    referer(header) {
      const r = refererOf(header === '' ? undefined : header);
      return { referer: r.host, referer_url: r.url };
    },
    url(url) {
      const u = utmOf(url);
      return { url, utm_source: u.utm_source, utm_medium: u.utm_medium, utm_campaign: u.utm_campaign, utm_term: u.utm_term, utm_content: u.utm_content };
    },
    place: (ip) => placeOf(deps.geo.locateIp(ip)),
    placeOf,
    address: (ip) => storedIp(ip, deps.ipMode),
  };
}
