/**
 * UTM parameters of destination URLs: merged into the URL from body fields, and read back from it.
 * Pure functions, no I/O. What a URL may be at all is `../web-url.ts`.
 *
 * @example
 * mergeUtm('https://a.com/?x=1', { utm_source: 'news' }); // 'https://a.com/?x=1&utm_source=news'
 */

/** The UTM columns of a link, always read back from its final destination URL. */
export const UTM_COLUMNS = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'] as const;
export type UtmColumn = (typeof UTM_COLUMNS)[number];

/** Body fields merged into the destination's query string: the UTM fields and `ref` (no column). */
export const URL_PARAM_FIELDS = [...UTM_COLUMNS, 'ref'] as const;
export type UrlParamField = (typeof URL_PARAM_FIELDS)[number];

function parse(value: string): URL | null {
  // Not a URL: no need to build the exception that says so (imports meet many).
  if (!value.includes(':')) return null;
  try {
    return new URL(value);
  } catch {
    return null;
  }
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
  // Without a `?` there is no query string to read (the common case: no URL to parse).
  const q = url.includes('?') ? parse(url)?.searchParams : undefined;
  const out = {} as Record<UtmColumn, string | null>;
  for (const c of UTM_COLUMNS) out[c] = q?.get(c) || null;
  return out;
}
