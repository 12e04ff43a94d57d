/**
 * The one rule for every URL a visitor can be sent to or shown: link destinations and their
 * targets (`url`, `expiredUrl`, `ios`, `android`, `geo`, `testVariants`, `video`, hosted
 * `image`) and a domain's `placeholder`, `expiredUrl` and `notFoundUrl`.
 *
 * Two forms of one URL:
 * - the **stored** form (`checkWebUrl`): what the API accepts, stores and answers. A valid http(s)
 *   URL is kept as sent, Unicode included (IRIs are legitimate: `https://ja.wikipedia.org/wiki/東京`);
 *   a bare host gets `https://`. Control characters, whitespace and every other scheme are refused.
 * - the **Location** form (`locationUrl`): the WHATWG serialisation (`new URL(…).href`) of an
 *   accepted stored value: percent-encoded, punycoded, visible ASCII only, so it can be written to
 *   an HTTP header. Computed once, where a row enters the redirect's cache.
 *
 * @example
 * checkWebUrl('example.com');                        // { url: 'https://example.com/', problem: null }
 * checkWebUrl('javascript:alert(1)').problem;        // 'only http and https URLs are allowed.'
 * locationUrl('https://ja.wikipedia.org/wiki/東京'); // 'https://ja.wikipedia.org/wiki/%E6%9D%B1%E4%BA%AC'
 * locationUrl('javascript:alert(1)');                // null
 */
import { z } from 'zod';

/** Longest URL (spec, Limits: link url / expiredUrl and domain expiredUrl / notFoundUrl 32000). */
export const WEB_URL_MAX = 32_000;

export type WebUrlCheck = { url: string; problem: null } | { url: null; problem: string };

export const WEB_URL_PROBLEMS = {
  characters: 'whitespace, control characters and unpaired surrogates are not allowed (percent-encode them).',
  scheme: 'only http and https URLs are allowed.',
} as const;

// C0 controls, DEL and C1 controls (\p{Cc}), every Unicode space, and lone surrogates (with the `u`
// flag a pair is one code point, so the range matches only an unpaired half). `new URL` would
// silently drop tabs and newlines and keep the rest: refused instead, so what is stored is what
// the visitor gets.
const FORBIDDEN_CHARACTER = /[\p{Cc}\s\uD800-\uDFFF]/u;

// `example.com`, `example.com:8080/path`, `sub.example.co.uk?x=1`: a host name that has a dot and no
// scheme. `new URL('example.com:8080')` would read `example.com:` as a scheme, hence the explicit test.
const BARE_HOST = /^[a-z0-9\u00a1-\uffff-]+(\.[a-z0-9\u00a1-\uffff-]+)+\.?(:\d{1,5})?([/?#]|$)/i;

const SPELLED_OUT_WEB_SCHEME = /^https?:\/\//i;

function parse(value: string): URL | null {
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

const isWeb = (url: URL) => (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';

/**
 * The stored form of a URL, or why it is refused. Surrounding whitespace is trimmed (a pasted
 * value's newline); inside the URL whitespace and control characters are refused. A valid http(s)
 * URL is kept as given (the SDK compares `url` as sent); `http:example.com` and bare host names
 * are completed and re-serialised (`example.com` → `https://example.com/`, as the published API
 * does). Every other scheme (`javascript:`, `data:`, `file:`, `mailto:`, scheme-relative
 * `//host`) is refused: a short link on a shared domain must not run script or open local
 * handlers (stricter than the published API).
 */
export function checkWebUrl(raw: string): WebUrlCheck {
  const value = raw.trim();
  if (FORBIDDEN_CHARACTER.test(value)) return { url: null, problem: WEB_URL_PROBLEMS.characters };
  const parsed = parse(value);
  if (parsed && isWeb(parsed)) return { url: SPELLED_OUT_WEB_SCHEME.test(value) ? value : parsed.href, problem: null };
  if (value && !value.includes('://') && BARE_HOST.test(value)) {
    const fixed = parse(`https://${value}`);
    if (fixed && isWeb(fixed)) return { url: fixed.href, problem: null };
  }
  return { url: null, problem: WEB_URL_PROBLEMS.scheme };
}

/** The stored form, or null when refused. */
export function normaliseUrl(raw: string): string | null {
  return checkWebUrl(raw).url;
}

/**
 * What may be written to a `Location` header for a stored URL: its percent-encoded serialisation,
 * or null when the value would not be accepted today (rows written by older versions: a
 * `javascript:` placeholder, a control character inserted by hand). Null means "not set".
 */
export function locationUrl(stored: string | null | undefined): string | null {
  if (!stored) return null;
  const url = checkWebUrl(stored).url;
  return url === null ? null : new URL(url).href;
}

/** The start of a base64 image data URL as `image` accepts it (behaviour.md §1.1). */
export const IMAGE_DATA_URL = /^data:image\/(png|jpeg|jpg|gif|webp);base64,/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** A base64 image data URL of an accepted type whose data is base64 (no whitespace, no markup). */
export function isImageDataUrl(value: string): boolean {
  const match = IMAGE_DATA_URL.exec(value);
  return match !== null && BASE64.test(value.slice(match[0].length));
}

/** A stored `image` as a page may show it: its Location form, a valid image data URL, or null. */
export function pageImageUrl(stored: string | null | undefined): string | null {
  if (!stored) return null;
  return stored.startsWith('data:') ? (isImageDataUrl(stored) ? stored : null) : locationUrl(stored);
}

// Visible ASCII only: the Location form always is. Checked on every redirect, so a regular
// expression over the string (tens of nanoseconds) and nothing that allocates.
const HEADER_SAFE = /^[\x21-\x7e]+$/;

/** True when the value can be written to a header as it is. */
export function isHeaderSafe(value: string): boolean {
  return HEADER_SAFE.test(value);
}

/**
 * The redirect's last guard before `writeHead`: a Location that is not visible ASCII would make
 * node throw (`ERR_INVALID_CHAR`) or send raw Latin-1 bytes. Every Location is built in its
 * encoded form upstream, so this throws only on a bug, which the handler answers with a 500.
 */
export function headerSafe(location: string): string {
  if (HEADER_SAFE.test(location)) return location;
  throw new Error(`refused to write a Location that is not visible ASCII: ${JSON.stringify(location.slice(0, 200))}`);
}

export interface WebUrlFieldOptions {
  /** Longest value accepted (default WEB_URL_MAX). */
  max?: number;
  /** Start of the message of a refused value (default `Invalid URL`). */
  label?: string;
}

/**
 * The stored form of `value`, or a zod issue (`custom: <field>: <label>: <problem>`) and z.NEVER:
 * for a transform that handles empty values its own way.
 */
export function storedUrlOrIssue<T>(value: string, ctx: z.RefinementCtx<T>, label = 'Invalid URL'): string {
  const checked = checkWebUrl(value);
  if (checked.url !== null) return checked.url;
  ctx.issues.push({ code: 'custom', message: `${label}: ${checked.problem}`, input: value });
  return z.NEVER;
}

/**
 * A required URL field in its stored form; `""` is refused like any other non-URL, with a 422
 * naming the field (`custom: geo.DE: Invalid URL: only http and https URLs are allowed.`).
 *
 * @example
 * const body = z.object({ geo: z.record(z.string(), webUrlField()) });
 */
export function webUrlField(options: WebUrlFieldOptions = {}) {
  const { max = WEB_URL_MAX, label } = options;
  return z
    .string()
    .max(max)
    .transform((value, ctx) => storedUrlOrIssue(value, ctx, label));
}

/**
 * An optional URL field: absent stays absent (an update leaves it alone), `null`, `""` or only
 * spaces clear it (null), anything else is checked as by `webUrlField`.
 *
 * @example
 * const body = z.object({ ios: optionalWebUrlField(), placeholder: optionalWebUrlField({ max: 100 }) });
 */
export function optionalWebUrlField(options: WebUrlFieldOptions = {}) {
  const { max = WEB_URL_MAX, label } = options;
  return z
    .string()
    .max(max)
    .nullish()
    .transform((value, ctx) => {
      if (value === undefined) return undefined;
      if (value === null || value.trim() === '') return null;
      return storedUrlOrIssue(value, ctx, label);
    });
}
