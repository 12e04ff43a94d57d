/**
 * Pure checks of domain input: host-name slugs and deep-link files. No I/O, so each rule is
 * unit-tested on its own (validation.test.ts). The URL fields follow the rule every URL field
 * follows (`../web-url.ts`).
 */
import { domainToASCII } from 'node:url';

/** Host-name shape the published service accepts (behaviour.md §1.5): dotted labels, alphabetic TLD. */
const HOSTNAME = /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,}$/;

/** Longest slug (spec, Limits: domain slug 1 to 190). */
export const DOMAIN_SLUG_MAX = 190;

/**
 * `  Go.Example.COM ` → `go.example.com`; a Unicode name → its punycode (`bücher.de` →
 * `xn--bcher-kva.de`), so one spelling is stored and compared. The published service keeps the
 * case as sent; keys and hosts are matched without case here, so slugs are stored lower-cased.
 */
export function normalizeDomainSlug(input: string): string {
  const lower = input.trim().toLowerCase();
  // domainToASCII answers '' for a name it cannot convert; the shape check below rejects that.
  return /^[\x00-\x7f]*$/.test(lower) ? lower : domainToASCII(lower);
}

/** Why a normalized slug cannot be a domain, or null when it can. */
export function domainSlugProblem(slug: string, reservedHosts: ReadonlySet<string> = new Set()): string | null {
  if (slug.startsWith('www.')) return 'Custom domain cannot start with www.';
  if (slug.length === 0 || slug.length > DOMAIN_SLUG_MAX || !HOSTNAME.test(slug)) return 'Invalid domain';
  if (reservedHosts.has(slug)) return `The domain ${slug} is used by this service itself and cannot be added.`;
  return null;
}

/**
 * A deep-link file (`assetLinks`, `appleAppSiteAssociation`) as stored: the text when it is a JSON
 * object or array, else null. The redirect server serves it verbatim as `application/json`, so
 * anything else would be a broken file for the phone that fetches it.
 */
export function normalizeDeepLinkFile(input: string | object): string | null {
  if (typeof input !== 'string') return JSON.stringify(input);
  try {
    const parsed: unknown = JSON.parse(input);
    return parsed !== null && typeof parsed === 'object' ? input : null;
  } catch {
    return null;
  }
}

/** The host names the service answers on itself: its API hosts and the shared short domain. */
export function reservedHostsOf(config: { shortDomain: string; apiHosts: readonly string[] }): Set<string> {
  const strip = (h: string) => h.toLowerCase().replace(/:\d+$/, '');
  return new Set([strip(config.shortDomain), ...config.apiHosts.map(strip)]);
}
