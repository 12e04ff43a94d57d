/**
 * URLs that have broken the redirect or would abuse it, for the tests of every URL field
 * (web-url.test.ts, redirect/location.test.ts): accepted ones that are not plain ASCII, and
 * refused ones, one per character class or scheme, with the reason they are refused.
 *
 * @example
 * for (const url of ACCEPTED_HOSTILE_URLS) assert.ok(isHeaderSafe(locationUrl(url)!));
 */
import type { WEB_URL_PROBLEMS } from '../web-url.js';

export type WebUrlProblem = keyof typeof WEB_URL_PROBLEMS;

/** Accepted values that are not plain ASCII URLs: IRIs, Latin-1, emoji, percent sequences, IDN hosts. */
export const ACCEPTED_HOSTILE_URLS: readonly string[] = [
  'https://ja.wikipedia.org/wiki/東京',
  'https://example.com/price/€',
  'https://example.com/café?q=über&ß=ÿ',
  'https://example.com/😀?e=🎉#🚀',
  'https://example.com/100%25/%zz/%?x=%E2%82%AC&y=%',
  'https://bücher.example/straße',
  'http://例え.テスト/パス',
  'https://example.com/a"b<c>d`e{f}g|h\\i^j',
  'https://user:pä@example.com:8443/x',
];

/** Refused: a character class each (C0, DEL, C1, spaces of every kind, a lone surrogate) and foreign schemes. */
export const REFUSED_HOSTILE_URLS: readonly [string, WebUrlProblem][] = [
  ['https://example.com/a\u0000b', 'characters'],
  ['https://example.com/a\u0001b', 'characters'],
  ['https://example.com/a\tb', 'characters'],
  ['https://example.com/a\nb', 'characters'],
  ['https://example.com/a\rb', 'characters'],
  ['https://example.com/a\u001fb', 'characters'],
  ['https://example.com/a\u007fb', 'characters'],
  ['https://example.com/a\u0085b', 'characters'],
  ['https://example.com/a\u009fb', 'characters'],
  ['https://example.com/a b', 'characters'],
  ['https://example.com/a\u00a0b', 'characters'],
  ['https://example.com/a\u2028b', 'characters'],
  ['https://example.com/a\u3000b', 'characters'],
  ['https://example.com/a\ufeffb', 'characters'],
  ['https://example.com/a\ud800b', 'characters'],
  ['https://exa mple.com', 'characters'],
  ['javascript:alert(1)', 'scheme'],
  ['JavaScript:alert(document.cookie)', 'scheme'],
  ['data:text/html,<script>alert(1)</script>', 'scheme'],
  ['file:///etc/passwd', 'scheme'],
  ['//evil.example', 'scheme'],
  ['//evil.example/path', 'scheme'],
  ['mailto:someone@example.com', 'scheme'],
  ['ftp://example.com/file', 'scheme'],
  ['vbscript:msgbox(1)', 'scheme'],
  ['tel:+123456', 'scheme'],
  ['https://', 'scheme'],
  ['not-a-url', 'scheme'],
  ['localhost', 'scheme'],
  ['', 'scheme'],
];
