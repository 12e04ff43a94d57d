/**
 * The one spelling of a host name a TLS terminator asks about: the form domains are stored in
 * (lower-case ASCII, Unicode names as punycode: `normalizeDomainSlug`), without a port or a final
 * dot. An IP address, an IPv6 literal or a name that cannot be converted is no certificate name.
 *
 * @example
 * certificateName('Bücher.DE:443');      // 'xn--bcher-kva.de'
 * certificateName('xn--bcher-kva.de.');  // 'xn--bcher-kva.de'
 * certificateName('203.0.113.7');        // null
 */
import { isIP } from 'node:net';
import { normalizeDomainSlug } from '../domains/validation.js';

/** What is left of a name after conversion: ASCII letters, digits, hyphens, dots (and `_`, which some DNS names carry). */
const NAME = /^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/;

/** Longer than any stored slug (190) or host name (253); anything past it is refused unread. */
const MAX_INPUT = 300;

export function certificateName(raw: string): string | null {
  if (raw.length === 0 || raw.length > MAX_INPUT || raw.startsWith('[')) return null;
  const host = normalizeDomainSlug(raw.replace(/:\d{1,5}$/, '')).replace(/\.$/, '');
  if (!NAME.test(host) || isIP(host) !== 0) return null;
  return host;
}

/** Loopback names every Waymark answers on locally (config.ts); no CA certifies them. */
const IMPLICIT_API_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The names always allowed a certificate: BASE_URL's host, the API_HOSTS the operator named and
 * the default short domain (SHORT_DOMAIN), in certificateName's form; IP addresses are dropped
 * (a TLS client sends no name for them).
 */
export function fixedCertificateNames(config: { baseUrl: string; apiHosts: readonly string[]; shortDomain: string }): string[] {
  const base = new URL(config.baseUrl).hostname;
  const named = [base, ...config.apiHosts.filter((h) => !IMPLICIT_API_HOSTS.has(h)), config.shortDomain];
  return [...new Set(named.map(certificateName).filter((n): n is string => n !== null))];
}
