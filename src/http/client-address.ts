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

export function addressKey(ip: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (mapped) return mapped[1]!;
  const bare = ip.split('%')[0]!; // without a zone id (fe80::1%eth0)
  if (!isIPv6(bare)) return ip;
  // An embedded IPv4 tail (64:ff9b::192.0.2.1) stands for two groups.
  const groups = (part: string) => (part ? part.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g])) : []);
  const [head = '', tail] = bare.split('::');
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return `${all.slice(0, 4).map((g) => parseInt(g, 16).toString(16)).join(':')}::/64`;
}
