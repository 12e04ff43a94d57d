/**
 * The client's address: which `X-Forwarded-For` entry to believe, decided once at start from
 * `TRUST_PROXY`, and used by both paths a request can take — Fastify's (the failed-auth, QR and
 * login limits read `request.clientAddress`) and the redirect's, which never enters Fastify
 * (repeat-visit detection, password-guess limits, the stored visitor address and country).
 *
 * A proxy appends the address it received the request from to `X-Forwarded-For`; everything to
 * the left of that came from the client and may be made up. So the address is found walking the
 * header from the right, past the proxies we trust, to the first address we do not (the rule of
 * `proxy-addr`, which Fastify uses; this module gives both paths the same trust function):
 *
 * - `none` (`TRUST_PROXY=false`): the socket's peer; the header is ignored.
 * - `hops` (`TRUST_PROXY=1`, `2`…): that many proxies in front. One proxy: the right-most entry,
 *   the one it added. The peer is not checked, so the server must be reachable only through them.
 * - `addresses` (`TRUST_PROXY=10.0.0.0/8,loopback`): the proxies' addresses or CIDRs (and
 *   proxy-addr's names `loopback`, `linklocal`, `uniquelocal`); a peer not in the list is the client.
 * - `all` (`TRUST_PROXY=true`): every hop is trusted, so the left-most entry wins — which any
 *   client can write. Only for a proxy that replaces the header; app.ts warns at start.
 *
 * Per-address limits count an IPv6 client by its /64 (`addressKey`), the prefix one subscriber or
 * host is usually given whole.
 *
 * @example
 * const rule = clientAddressRule(parseTrustProxy('1'));
 * rule.of('10.0.0.2', '198.51.100.9, 203.0.113.7'); // '203.0.113.7'
 * addressKey('2001:db8:1:2:aaaa::1');               // '2001:db8:1:2::/64'
 */
import { isIPv6 } from 'node:net';
import type { IncomingMessage } from 'node:http';
import fp from 'fastify-plugin';
import proxyaddr from '@fastify/proxy-addr';
import { ipv6Groups } from '../visitors/visitor-ip.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The client's address under TRUST_PROXY (client-address.ts); IPv4-mapped IPv6 as plain IPv4. */
    clientAddress: string;
  }
}

export type TrustProxy = { kind: 'none' } | { kind: 'all' } | { kind: 'hops'; hops: number } | { kind: 'addresses'; addresses: string[] };

/** The most proxies a hop count may name. */
const MAX_HOPS = 32;

/**
 * `TRUST_PROXY` as written: `false`/`0`, `true`, a number of proxies, or a comma-separated list of
 * proxy addresses and CIDRs. Throws an Error whose message says what is accepted.
 */
export function parseTrustProxy(text: string | undefined): TrustProxy {
  const v = (text ?? '').trim().toLowerCase();
  if (['', 'false', '0', 'no', 'off'].includes(v)) return { kind: 'none' };
  if (['true', 'yes', 'on'].includes(v)) return { kind: 'all' };
  if (/^\d+$/.test(v)) {
    const hops = Number(v);
    if (hops > MAX_HOPS) throw new Error(`at most ${MAX_HOPS} proxies`);
    return { kind: 'hops', hops };
  }
  const addresses = v.split(',').map((s) => s.trim()).filter(Boolean);
  try {
    proxyaddr.compile(addresses);
  } catch (err) {
    throw new Error(`must be false, true, the number of proxies in front (1, 2, …) or their addresses and CIDRs, comma-separated (${(err as Error).message})`);
  }
  return { kind: 'addresses', addresses };
}

export interface ClientAddress {
  readonly setting: TrustProxy;
  /** Fastify's `trustProxy` option, the same decision for `request.ip`, `hostname` and `protocol`. */
  readonly fastifyTrust: false | ((address: string, hop: number) => boolean);
  /** The client's address from the socket's peer and the `X-Forwarded-For` header (repeated headers joined with `, `). */
  of(peer: string | undefined, forwardedFor: string | undefined): string;
}

/** `::ffff:1.2.3.4` (IPv4 on a dual-stack socket) → `1.2.3.4`. */
export function normaliseIp(ip: string): string {
  return ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip;
}

/** The rule for a setting, with its trust function compiled once. */
export function clientAddressRule(setting: TrustProxy): ClientAddress {
  const trust: false | ((address: string, hop: number) => boolean) =
    setting.kind === 'none'
      ? false
      : setting.kind === 'all'
        ? () => true
        : setting.kind === 'hops'
          ? (_address, hop) => hop < setting.hops
          : proxyaddr.compile(setting.addresses);
  if (trust === false) return { setting, fastifyTrust: false, of: (peer) => normaliseIp(peer ?? '') };
  // proxy-addr reads a request's header and peer; the redirect has neither object, so one
  // request-shaped holder is filled for each (synchronous) call.
  const holder = { headers: { 'x-forwarded-for': '' }, socket: { remoteAddress: '' } };
  return {
    setting,
    fastifyTrust: trust,
    of(peer, forwardedFor) {
      if (!forwardedFor) return normaliseIp(peer ?? '');
      holder.headers['x-forwarded-for'] = forwardedFor;
      holder.socket.remoteAddress = peer ?? '';
      return normaliseIp(proxyaddr(holder as unknown as IncomingMessage, trust) ?? '');
    },
  };
}

/**
 * The same rule one proxy further in: behind the API thread's front (src/api-thread/), which
 * appends the peer it received the request from to `X-Forwarded-For` and reaches the API over a
 * private socket. Hop 0 (the front) is trusted; every later hop as `rule` trusts it one hop earlier.
 */
export function behindFront(rule: ClientAddress): ClientAddress {
  const inner = rule.fastifyTrust;
  const trust = (address: string, hop: number) => hop === 0 || (inner !== false && inner(address, hop - 1));
  const holder = { headers: { 'x-forwarded-for': '' }, socket: { remoteAddress: '' } };
  return {
    setting: rule.setting,
    fastifyTrust: trust,
    of(peer, forwardedFor) {
      holder.headers['x-forwarded-for'] = forwardedFor ?? '';
      holder.socket.remoteAddress = peer ?? '';
      return normaliseIp(proxyaddr(holder as unknown as IncomingMessage, trust) ?? '');
    },
  };
}

/** Decorates every Fastify request with `clientAddress`, computed by `rule` when first read. */
export const clientAddressPlugin = fp<{ rule: ClientAddress }>(
  async (app, { rule }) => {
    app.decorateRequest('clientAddress', {
      getter() {
        const header = this.headers['x-forwarded-for'];
        return rule.of(this.raw.socket?.remoteAddress, Array.isArray(header) ? header.join(', ') : header);
      },
    });
  },
  { name: 'waymark-client-address' },
);

/** The key per-address limits count by: IPv4 as it is, IPv6 by its /64. */
export function addressKey(ip: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (mapped) return mapped[1]!;
  const bare = ip.split('%')[0]!; // without a zone id (fe80::1%eth0)
  if (!isIPv6(bare)) return ip;
  const all = ipv6Groups(bare);
  return `${all.slice(0, 4).map((g) => g.toString(16)).join(':')}::/64`;
}
