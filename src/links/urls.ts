/**
 * Destination URLs: completion of bare host names, the http(s)-only rule, and UTM parameters.
 * Pure functions, no I/O.
 *
 * @example
 * normaliseUrl('example.com');              // 'https://example.com/'
 * normaliseUrl('javascript:alert(1)');      // null
 * mergeUtm('https://a.com/?x=1', { utm_source: 'news' }); // 'https://a.com/?x=1&utm_source=news'
 */

/** The UTM columns of a link, always read back from its final destination URL. */
export const UTM_COLUMNS = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'] as const;
export type UtmColumn = (typeof UTM_COLUMNS)[number];

/** Body fields merged into the destination's query string: the UTM fields and `ref` (no column). */
export const URL_PARAM_FIELDS = [...UTM_COLUMNS, 'ref'] as const;
export type UrlParamField = (typeof URL_PARAM_FIELDS)[number];

function parse(value: string): URL | null {
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

const isWeb = (url: URL) => url.protocol === 'http:' || url.protocol === 'https:';

// `example.com`, `example.com:8080/path`, `sub.example.co.uk?x=1`: a host name that has a dot and no
// scheme. `new URL('example.com:8080')` would read `example.com:` as a scheme, hence the explicit test.
const BARE_HOST = /^[a-z0-9\u00a1-\uffff-]+(\.[a-z0-9\u00a1-\uffff-]+)+\.?(:\d{1,5})?([/?#]|$)/i;

/**
 * The destination as stored, or null when it is not an http(s) URL. A value with no scheme that
 * starts with a host name is completed to `https://…` and re-serialised (`example.com` →
 * `https://example.com/`, as the published API does); a valid http(s) URL is kept as given.
 * Every other scheme (`javascript:`, `data:`, `mailto:`, `ftp:` …) is refused: a short link on a
 * shared domain must not run script or open local handlers (stricter than the published API).
 */
export function normaliseUrl(raw: string): string | null {
  const value = raw.trim();
  if (!value || /\s/.test(value)) return null;
  const parsed = parse(value);
  if (parsed && isWeb(parsed) && parsed.hostname) {
    // `http:example.com` parses, but only the spelled-out form is kept verbatim.
    return /^https?:\/\//i.test(value) ? value : parsed.href;
  }
  if (!value.includes('://') && BARE_HOST.test(value)) {
    const fixed = parse(`https://${value}`);
    if (fixed && fixed.hostname) return fixed.href;
  }
  return null;
}

/**
 * Sets (or, for `null` / `""`, deletes) query parameters of `url`; fields left `undefined` are not
 * touched. The URL is re-serialised, so a bare origin gains its `/`.
 */
export function mergeUtm(url: string, params: Partial<Record<UrlParamField, string | null | undefined>>): string {
  const entries = Object.entries(params).filter(([, v]) => v !== undefined);
  if (!entries.length) return url;
  const u = new URL(url);
  for (const [name, value] of entries) {
    if (value === null || value === '') u.searchParams.delete(name);
    else u.searchParams.set(name, value as string);
  }
  return u.href;
}

/** The UTM columns read from a destination URL's query string (null where absent or empty). */
export function utmFromUrl(url: string): Record<UtmColumn, string | null> {
  const q = parse(url)?.searchParams;
  const out = {} as Record<UtmColumn, string | null>;
  for (const c of UTM_COLUMNS) out[c] = q?.get(c) || null;
  return out;
}
