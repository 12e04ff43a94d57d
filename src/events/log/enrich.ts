/**
 * Raw click → the stored click event: location, user-agent traits, referer host and UTM values
 * added on the event log's thread, where the row is stored, not on the redirect thread; then the address
 * is cut to what `VISITOR_IP` keeps (../visitors/visitor-ip.ts), after the geo lookup, which needs all of
 * it, and before anything is stored. Each lookup is
 * remembered, because traffic repeats a small set of user agents, referers and destination URLs
 * (and visitors/geo.ts remembers /24 networks).
 *
 * @example
 * const enrich = createClickEnricher({ geo: createGeoLocator({ trustHeaders: false }), classify: createUaClassifier(), ipMode: 'anonymized' });
 * const event = enrich(rawClick); // { kind: 'click', country: 'US', browser: 'Chrome', referer: 'google.com', … }
 */
import type { StoredEvent } from '../event-store.js';
import { clickEvent } from '../rows.js';
import type { RawClick } from './raw-click.js';
import { utmOf } from '../../redirect/final-url.js';
import { memoize } from '../../memo.js';
import type { GeoLocator } from '../../visitors/geo.js';
import { storedIp, type VisitorIpMode } from '../../visitors/visitor-ip.js';
import { refererOf, type UaTraits } from '../../visitors/visitor.js';

export interface ClickEnricherDeps {
  /** City-precision locator (click records hold country, region, city and continent). */
  geo: Pick<GeoLocator, 'locateIp'>;
  classify: (ua: string) => UaTraits;
  /** What the stored row keeps of the address (`VISITOR_IP`). */
  ipMode: VisitorIpMode;
  /** Distinct referers and destination URLs remembered (default 10,000 each). */
  cacheSize?: number;
}

export function createClickEnricher(deps: ClickEnricherDeps): (raw: RawClick) => StoredEvent {
  const max = deps.cacheSize ?? 10_000;
  const refererOfHeader = memoize(refererOf, max);
  const utmOfUrl = memoize(utmOf, max);
  return (raw) => {
    const traits = deps.classify(raw.ua);
    const geo = raw.geo ?? deps.geo.locateIp(raw.ip);
    const referer = raw.referer === '' ? refererOf(undefined) : refererOfHeader(raw.referer);
    const utm = utmOfUrl(raw.url);
    return clickEvent({
      workspace_id: raw.workspaceId,
      timestamp: raw.timestamp,
      id: raw.id,
      link_id: raw.linkId,
      domain: raw.domain,
      key: raw.key,
      url: raw.url,
      country: geo.country,
      city: geo.city,
      region: geo.region,
      continent: geo.continent,
      device: traits.device,
      browser: traits.browser,
      os: traits.os,
      referer: referer.host,
      referer_url: referer.url,
      trigger: raw.qr ? 'qr' : 'link',
      ip: storedIp(raw.ip, deps.ipMode),
      ua: raw.ua,
      utm_source: utm.utm_source,
      utm_medium: utm.utm_medium,
      utm_campaign: utm.utm_campaign,
      utm_term: utm.utm_term,
      utm_content: utm.utm_content,
    });
  };
}
