/**
 * Which addresses a server-side request may reach: global unicast only (an allow-list, not a list
 * of what to refuse). `ipaddr.js` names the special ranges of both families (loopback, private,
 * CGNAT, link-local, multicast, documentation, benchmarking, reserved, AS112, AMT …; anything it
 * does not name is `unicast`); what it does not decide is added here:
 *
 * - IPv6 must also be inside 2000::/3, the only block IANA allocates as global unicast (so a
 *   range `ipaddr.js` does not know, e.g. 4000::/2, is refused rather than allowed by default);
 * - IPv6 forms that carry an IPv4 address are judged by that address: IPv4-mapped `::ffff:a.b.c.d`,
 *   IPv4-compatible `::a.b.c.d`, 6to4 `2002:AABB:CCDD::/48`, NAT64 `64:ff9b::a.b.c.d` and Teredo
 *   `2001:0:SSSS:SSSS:…:CCCC:CCCC` (the client's address is the last 32 bits inverted; its server
 *   address, bits 32-63, must be global too). `64:ff9b:1::/48` (RFC 8215) is for local use, never
 *   global, and where an operator puts the IPv4 part in it varies: it is refused whole, like
 *   IPv4-translated `::ffff:0:a.b.c.d`.
 *
 * Names are judged by `refusedHost` before any DNS: the host as a URL holds it (any spelling a
 * URL parser turns into an IP literal, `127.1`, `0x7f.1`, `2130706433`, `[::ffff:127.0.0.1]`, is
 * judged as that address), and names that are local by definition (RFC 6761 `localhost` and
 * `*.localhost`, mDNS `.local`, `.internal`, `home.arpa`, `.localdomain`, Debian's
 * `ip6-localhost`/`ip6-loopback`) are refused whatever their case or trailing dots, since a
 * resolver may or may not answer for them (`localhost.` failed to resolve at save time and was let through).
 *
 * @example
 * refusedHost('LocalHost.');              // 'a local name, always a private or reserved address'
 * refusedHost('0x7f.1');                  // 'the private or reserved address 127.0.0.1'
 * refusedHost('example.com');             // null: a name, judged by what it resolves to
 * isAllowedAddress('93.184.216.34');      // true
 * isAllowedAddress('2002:7f00:1::');      // false: 6to4 of 127.0.0.1
 * carriedIpv4('64:ff9b::a00:1');          // '10.0.0.1'
 */
import ipaddr from 'ipaddr.js';

type V6 = ipaddr.IPv6;

const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;

/**
 * The IPv4 addresses an IPv6 address carries (a transition form), every one of which must be
 * allowed; null when it is not such a form.
 */
function carried(ip: V6): string[] | null {
  const p = ip.parts;
  const zeroUpTo = (n: number) => p.slice(0, n).every((x) => x === 0);
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible; :: and ::1 land in 0.0.0.0/8, refused).
  if (zeroUpTo(5) && p[5] === 0xffff) return [v4(p[6]!, p[7]!)];
  if (zeroUpTo(6)) return [v4(p[6]!, p[7]!)];
  // 6to4: 2002:AABB:CCDD::/48.
  if (p[0] === 0x2002) return [v4(p[1]!, p[2]!)];
  // NAT64, the well-known prefix 64:ff9b::/96.
  if (p[0] === 0x64 && p[1] === 0xff9b && p.slice(2, 6).every((x) => x === 0)) return [v4(p[6]!, p[7]!)];
  // Teredo 2001:0::/32: server in bits 32-63, client (obfuscated: inverted) in the last 32 bits.
  if (p[0] === 0x2001 && p[1] === 0) return [v4(p[2]!, p[3]!), v4(~p[6]! & 0xffff, ~p[7]! & 0xffff)];
  return null;
}

/** The IPv4 address an IPv6 transition form carries (Teredo: the client's); null for other addresses. */
export function carriedIpv4(address: string): string | null {
  if (!ipaddr.IPv6.isValid(address)) return null;
  const all = carried(ipaddr.IPv6.parse(address));
  return all ? all[all.length - 1]! : null;
}

const GLOBAL_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

function allowedV4(ip: ipaddr.IPv4): boolean {
  return ip.range() === 'unicast';
}

/**
 * True when a request may connect to this address: global unicast, IPv6 transition forms judged
 * by the IPv4 they carry. Anything that is not an IP address is refused.
 */
export function isAllowedAddress(address: string): boolean {
  // A zone index (fe80::1%eth0) is only ever link-local: refused with the address below.
  const bare = address.replace(/%.*$/, '');
  if (ipaddr.IPv4.isValidFourPartDecimal(bare)) return allowedV4(ipaddr.IPv4.parse(bare));
  if (!ipaddr.IPv6.isValid(bare)) return false;
  const ip = ipaddr.IPv6.parse(bare);
  const inner = carried(ip);
  if (inner) return inner.every((a) => allowedV4(ipaddr.IPv4.parse(a)));
  return ip.match(GLOBAL_V6 as [V6, number]) && ip.range() === 'unicast';
}

/** Names that only ever mean this machine or its local network (RFC 6761, 6762, 8375; ICANN's `.internal`). */
const LOCAL_NAMES = ['localhost', 'local', 'internal', 'home.arpa', 'localdomain', 'ip6-localhost', 'ip6-loopback'];

/** The host as URLs hold it: lowercased, IPv4 in any numeric spelling made dotted-decimal, IPv6 compressed, no brackets. */
export function canonicalHost(host: string): string | null {
  const bare = host.trim().replace(/^\[|\]$/g, '');
  // An IPv6 literal (with or without brackets), a zone index aside: the URL parser wants brackets.
  const literal = bare.includes(':') ? `[${bare.replace(/%.*$/, '')}]` : bare;
  try {
    return new URL(`http://${literal}/`).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return null;
  }
}

/**
 * What `host` (a URL's hostname, or any spelling of one) is when a request to it is refused
 * before any DNS look-up ("the local name …", "the private or reserved address …"), or null when
 * it is a public address or a name to be judged by the addresses it resolves to. Pure: the one
 * decision the save-time check (request.ts `refusedTarget`) and the connect-time guard share.
 */
export function refusedHost(host: string): string | null {
  const canonical = canonicalHost(host);
  if (canonical === null || canonical === '') return 'not a valid host';
  if (ipaddr.isValid(canonical) && (ipaddr.IPv4.isValidFourPartDecimal(canonical) || canonical.includes(':'))) {
    return isAllowedAddress(canonical) ? null : `the private or reserved address ${canonical}`;
  }
  const name = canonical.replace(/\.+$/, '');
  if (name === '') return 'not a valid host';
  if (LOCAL_NAMES.some((local) => name === local || name.endsWith(`.${local}`))) return 'a local name, always a private or reserved address';
  return null;
}
