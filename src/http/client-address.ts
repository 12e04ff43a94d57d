/**
 * The client address that per-address limits count against. IPv4 addresses count one by one; an
 * IPv6 client counts by its /64, the prefix a single subscriber or host is usually given whole
 * (counting each of its 2^64 addresses alone would let one host walk around the limit).
 *
 * @example
 * addressKey('203.0.113.7');                 // '203.0.113.7'
 * addressKey('::ffff:203.0.113.7');          // '203.0.113.7'
 * addressKey('2001:db8:1:2:aaaa::1');        // '2001:db8:1:2::/64'
 */
import { isIPv6 } from 'node:net';
import { ipv6Groups } from '../visitors/visitor-ip.js';

export function addressKey(ip: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (mapped) return mapped[1]!;
  const bare = ip.split('%')[0]!; // without a zone id (fe80::1%eth0)
  if (!isIPv6(bare)) return ip;
  const all = ipv6Groups(bare);
  return `${all.slice(0, 4).map((g) => g.toString(16)).join(':')}::/64`;
}
