/**
 * The URL a tracked visit is sent to: the chosen target plus the incoming query, the click id and
 * the partner marker, as behaviour.md §5.4 describes. Pure; the common case (no query, nothing to
 * add) returns the target untouched without parsing it. Every other answer is `URL`'s own
 * serialisation (percent-encoded, visible ASCII), whatever the visitor's query holds, so it can be
 * written to `Location` as it is.
 *
 * @example
 * buildFinalUrl('https://example.com/?a=1', 'a=2&qr=1', { clickIdParam: 'waymark_id', clickId: 'abc', viaKey: null });
 * // → 'https://example.com/?a=2&waymark_id=abc'
 */
import type { LinkInfo } from './decide.js';

export interface FinalUrlOptions {
  /** Query parameter name carrying the click id (`waymark_id`, or `dub_id` for existing scripts). */
  clickIdParam: string;
  /** Set when conversion tracking is on for the link and the visit is tracked. */
  clickId: string | null;
  /** Partner links: the key, added as `via=<key>`. */
  viaKey: string | null;
}

/** Incoming parameters that steer the redirect itself and are never forwarded. */
const NOT_FORWARDED = new Set(['dub-no-track', 'redir_url', 'qr', 'skip_deeplink_preview', 'pw']);

/** `true` when the query asks not to be tracked (`dub-no-track`, behaviour.md §5.5). */
export function queryHasNoTrack(query: string): boolean {
  return query.includes('dub-no-track');
}

/** A URL from a visitor-supplied value, adding `https://` when no scheme is given (as the reference does). */
function parseLooseUrl(value: string): URL | null {
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:/i.test(value) ? value : `https://${value}`);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' ? url : null;
  } catch {
    return null;
  }
}

/** The destination a visit's `redir_url` asks for, when it holds a valid http(s) URL. */
export function redirUrlOf(incoming: URLSearchParams): URL | null {
  const redir = incoming.get('redir_url');
  return redir ? parseLooseUrl(redir) : null;
}

/**
 * Every URL a tracked visit of the link may be sent to with this query, up to the parameters the
 * query adds: its destination, device and geo targets, A/B variants, and the query's `redir_url`.
 * The password page allows their origins as form targets (pages.ts).
 */
export function possibleDestinations(link: LinkInfo, query: string): string[] {
  const out: string[] = [];
  if (link.url) out.push(link.url);
  if (link.ios) out.push(link.ios);
  if (link.android) out.push(link.android);
  if (link.geo) out.push(...Object.values(link.geo));
  if (link.testVariants) for (const v of link.testVariants) out.push(v.url);
  const redir = query.includes('redir_url') ? redirUrlOf(new URLSearchParams(query)) : null;
  if (redir) out.push(redir.href);
  return out;
}

export function buildFinalUrl(target: string, query: string, options: FinalUrlOptions): string {
  if (query === '' && options.clickId === null && options.viaKey === null) return target;
  const incoming = query === '' ? null : new URLSearchParams(query);

  // 1. `redir_url` replaces the destination when it is a valid http(s) URL. The target is in its
  //    Location form (link-cache.ts), so it parses; the result is serialised by `URL` again.
  const url = (incoming && redirUrlOf(incoming)) ?? new URL(target);
  const params = url.searchParams;
  // 2. Partner links carry their key.
  if (options.viaKey !== null) params.set('via', options.viaKey);
  // 3. Every incoming parameter overwrites the destination's, except the redirect's own controls.
  if (incoming) {
    for (const [name, value] of incoming) {
      if (!NOT_FORWARDED.has(name)) params.set(name, value);
    }
  }
  // 4. The click id last, so a visitor cannot replace it through the query.
  const noTrack = query !== '' && queryHasNoTrack(query);
  if (options.clickId !== null && !noTrack) {
    const prefix = options.clickIdParam.replace(/_id$/, '');
    const referenceFlag = `${prefix}_client_reference_id`;
    if (params.get(referenceFlag) === '1' || params.get('dub_client_reference_id') === '1') {
      // Stripe payment links read `client_reference_id`; the flag asks for the click id there.
      params.delete(referenceFlag);
      params.delete('dub_client_reference_id');
      params.set('client_reference_id', `${options.clickIdParam}_${options.clickId}`);
    } else {
      params.set(options.clickIdParam, options.clickId);
    }
  }
  return url.toString();
}

/** The `utm_*` values of a URL (null when absent or not a URL), for the click record. */
export function utmOf(url: string): UtmValues {
  const q = url.indexOf('?');
  if (q < 0 || !url.includes('utm_', q)) return NO_UTM;
  let params: URLSearchParams;
  try {
    params = new URL(url).searchParams;
  } catch {
    return NO_UTM;
  }
  return {
    utm_source: params.get('utm_source'),
    utm_medium: params.get('utm_medium'),
    utm_campaign: params.get('utm_campaign'),
    utm_term: params.get('utm_term'),
    utm_content: params.get('utm_content'),
  };
}

export interface UtmValues {
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
  utm_term: string | null;
  utm_content: string | null;
}

const NO_UTM: UtmValues = Object.freeze({
  utm_source: null,
  utm_medium: null,
  utm_campaign: null,
  utm_term: null,
  utm_content: null,
});
