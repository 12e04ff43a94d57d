/**
 * Short-link keys and domains: validation and normalisation of given keys, random keys, reserved
 * keys, and the lookup form shared with the redirect server. Pure functions, no I/O.
 *
 * @example
 * processKey('/Summer-Sale/', { onDefaultDomain: false }); // { ok: true, key: 'Summer-Sale' }
 * lookupKey('Summer-Sale');                                 // 'summer-sale'
 */
import { domainToASCII } from 'node:url';
import { randomKey } from '../ids.js';
import { toAsciiLabels } from './punycode.js';

/** The key of a domain's root link (`https://go.example.com` without a path). */
export const ROOT_KEY = '_root';

/** Default length of random keys (behaviour.md §1.3). */
export const DEFAULT_KEY_LENGTH = 7;

/**
 * Paths browsers and crawlers request on their own; a link there would swallow them. Reserved on
 * every domain (behaviour.md §1.4).
 */
export const RESERVED_FILE_KEYS: ReadonlySet<string> = new Set([
  'favicon.ico',
  'sitemap.xml',
  'robots.txt',
  'manifest.webmanifest',
  'manifest.json',
  'apple-app-site-association',
]);

/**
 * Words kept free on the service's shared default domain, where every workspace creates links:
 * names of service pages and words that would look official to visitors (behaviour.md §1.4 keeps
 * a similar list for its default domains only; custom domains belong to their workspace).
 */
export const RESERVED_WORDS: ReadonlySet<string> = new Set([
  'about', 'account', 'admin', 'analytics', 'api', 'app', 'auth', 'banned', 'billing', 'blog',
  'cloaked', 'dashboard', 'deeplink', 'docs', 'domains', 'events', 'expired', 'health', 'help',
  'home', 'inspect', 'legal', 'links', 'login', 'logout', 'notfound', 'openapi.json', 'password',
  'pricing', 'privacy', 'proxy', 'qr', 'register', 'settings', 'signin', 'signup', 'static',
  'stats', 'status', 'support', 'terms', 'track', 'waymark', 'webhooks', 'welcome', 'www',
]);

// Letters, digits, `_`, `/`, `-`, `.`, any non-ASCII BMP character and emoji (behaviour.md §1.4 step 2).
const KEY_PATTERN = /^[0-9A-Za-z_\u0080-\uFFFF/\-\p{Emoji}.]+$/u;

export type KeyResult = { ok: true; key: string } | { ok: false; reason: string };

/**
 * Validates and normalises a key the caller chose, in the published order: `_root` passes; the
 * character set; no leading `_`; no `.well-known` or `.php` paths; leading and trailing `/`
 * stripped; accents removed on the shared default domain; punycode per label. Case is kept.
 */
export function processKey(raw: string, options: { onDefaultDomain: boolean }): KeyResult {
  if (raw === ROOT_KEY) return { ok: true, key: raw };
  // `#` passes the pattern as an emoji (keycap base) but starts a URL fragment: no visitor could reach the key.
  if (!KEY_PATTERN.test(raw) || raw.includes('#')) {
    return { ok: false, reason: 'Invalid key: use letters, digits, "-", "_", ".", "/", emoji or other Unicode letters.' };
  }
  if (raw.startsWith('_')) return { ok: false, reason: 'Invalid key: a key cannot start with "_".' };
  if (/^\/*\.well-known/i.test(raw) || /\.php7?$/i.test(raw)) {
    return { ok: false, reason: 'Invalid key: .well-known and .php paths cannot be short links.' };
  }
  let key = raw.replace(/^\/+|\/+$/g, '');
  if (!key) return { ok: false, reason: 'Invalid key: a key cannot consist of slashes only.' };
  if (options.onDefaultDomain) key = key.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
  key = toAsciiLabels(key);
  if (key.length > 190) return { ok: false, reason: 'Invalid key: at most 190 characters after punycode encoding.' };
  return { ok: true, key };
}

/**
 * The form a key is looked up and compared in: punycode, lower-case. Keys are unique per domain
 * without regard to case, so `Sale` and `sale` are the same link (behaviour.md §1.5).
 */
export function lookupKey(key: string): string {
  // The common case, a key already in lookup form (ASCII, no capitals), is returned as it is: the
  // redirect asks for every visit, and the regular expression and case mapping cost more.
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c > 0x7f || (c >= 0x41 && c <= 0x5a)) return toAsciiLabels(key).toLowerCase();
  }
  return key;
}

/** Why a (valid) key cannot be taken on this domain, or null. */
export function reservedKeyReason(key: string, options: { onDefaultDomain: boolean }): { status: 'forbidden' | 'conflict'; message: string } | null {
  const lower = key.toLowerCase();
  if (RESERVED_FILE_KEYS.has(lower)) return { status: 'forbidden', message: `${key} is a reserved path and cannot be used as a short link.` };
  if (options.onDefaultDomain && RESERVED_WORDS.has(lower)) {
    return { status: 'conflict', message: `Duplicate key: "${key}" is reserved on the default short domain.` };
  }
  return null;
}

/**
 * A random key of `length` characters from the 62-character alphabet; with a prefix, one leading
 * and one trailing `/` of the prefix are dropped and the key is `prefix/random` (behaviour.md §1.3).
 */
export function randomLinkKey(length: number = DEFAULT_KEY_LENGTH, prefix?: string): string {
  const random = randomKey(length);
  const p = prefix?.replace(/^\//, '').replace(/\/$/, '');
  return p ? `${p}/${random}` : random;
}

/**
 * Normalises a domain given in a request: lower-case, IDN labels in punycode, an optional
 * `:port` kept (the default short domain may carry one locally). Returns null when it is not a
 * host name (e.g. it carries a protocol or a path).
 */
export function normaliseDomain(raw: string): string | null {
  const value = raw.trim().toLowerCase().replace(/\.$/, '');
  const match = /^([^:/?#@\s]+)(:\d{1,5})?$/.exec(value);
  if (!match) return null;
  const ascii = domainToASCII(match[1]!);
  if (!ascii || !/^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(ascii)) return null;
  if (ascii.length > 190) return null;
  return ascii + (match[2] ?? '');
}
