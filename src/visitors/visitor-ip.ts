/**
 * What a stored event keeps of the visitor's address (`VISITOR_IP`, docs/privacy.md):
 * - `anonymized` (default): the network only, IPv4 to its /24 and IPv6 to its /48, the prefixes
 *   that still locate a visitor about as well as the full address (the geo lookup runs on the
 *   full address before this, on the event log's thread) but no longer name one subscriber;
 * - `full`: the address as received;
 * - `none`: the empty string (the published `/events` schema requires `ip` to be a string).
 *
 * Applied where the click row is built (events/log/enrich.ts), so everything stored, and every lead and
 * sale that copies its click's columns, holds only this form. Repeat-visit detection
 * (redirect/dedup.ts) works on the full address in memory and never stores it.
 *
 * @example
 * anonymizeIp('203.0.113.77');           // '203.0.113.0'
 * anonymizeIp('2001:db8:85a3:8d3::1');   // '2001:db8:85a3::'
 * anonymizeIp('::ffff:203.0.113.77');    // '203.0.113.0'
 * storedIp('203.0.113.77', 'none');      // ''
 */
import { isIPv4, isIPv6 } from 'node:net';

export const VISITOR_IP_MODES = ['anonymized', 'full', 'none'] as const;
export type VisitorIpMode = (typeof VISITOR_IP_MODES)[number];

/** The eight 16-bit groups of an IPv6 address (zone id already removed), an IPv4 tail as two groups. */
export function ipv6Groups(address: string): number[] {
  const groups = (part: string): number[] =>
    part
      ? part.split(':').flatMap((g) => {
          if (!g.includes('.')) return [parseInt(g, 16)];
          const [a, b, c, d] = g.split('.').map(Number) as [number, number, number, number];
          return [(a << 8) | b, (c << 8) | d];
        })
      : [];
  const [head = '', tail] = address.split('::');
  const left = groups(head);
  if (tail === undefined) return left;
  const right = groups(tail);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/** RFC 5952 text of eight groups: lower-case hex, the longest run (≥ 2) of zero groups as `::`. */
export function formatIpv6(groups: readonly number[]): string {
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < groups.length; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < groups.length && groups[j] === 0) j++;
    if (j - i > bestLen) [best, bestLen] = [i, j - i];
    i = j;
  }
  const hex = (gs: readonly number[]) => gs.map((g) => g.toString(16)).join(':');
  if (best < 0) return hex(groups);
  return `${hex(groups.slice(0, best))}::${hex(groups.slice(best + bestLen))}`;
}

/** The /24 of an IPv4 address or the /48 of an IPv6 one; '' for anything that is not an address. */
export function anonymizeIp(ip: string): string {
  const text = ip.trim();
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(text);
  const v4 = mapped ? mapped[1]! : text;
  if (isIPv4(v4)) return `${v4.slice(0, v4.lastIndexOf('.'))}.0`;
  const bare = text.split('%')[0]!; // without a zone id (fe80::1%eth0)
  if (!isIPv6(bare)) return '';
  const groups = ipv6Groups(bare);
  return formatIpv6([...groups.slice(0, 3), 0, 0, 0, 0, 0]);
}

/** The address as an event stores it under `mode`. */
export function storedIp(ip: string, mode: VisitorIpMode): string {
  if (mode === 'full') return ip;
  if (mode === 'none') return '';
  return anonymizeIp(ip);
}
