/**
 * When is a domain `verified`? Two modes (config `DOMAIN_VERIFICATION`):
 * - `off` (default): the operator runs the service and adds only domains they control, so a
 *   domain is verified when it is added;
 * - `dns`: verified only when the domain's DNS points at this service, i.e. its CNAME is the
 *   target host (`DOMAIN_DNS_TARGET`, else the host of `BASE_URL`) or all its A/AAAA addresses are
 *   addresses of the target. Checked when the domain is added or renamed, and on demand with
 *   `waymark domains verify <slug>`.
 * The decision (`isPointedAtTarget`) is pure; `checkDomainDns` gathers the records.
 */
import { isIP } from 'node:net';
import { Resolver } from 'node:dns/promises';

/** The subset of `node:dns/promises` Resolver the check uses; tests pass a fake. */
export interface DnsResolver {
  resolveCname(host: string): Promise<string[]>;
  resolve4(host: string): Promise<string[]>;
  resolve6(host: string): Promise<string[]>;
}

/** The records of one host that matter here. */
export interface DnsRecords {
  cnames: string[];
  addresses: string[];
}

/** Outcome of a check, with a sentence for the CLI. */
export interface DnsVerdict {
  verified: boolean;
  reason: string;
}

const clean = (name: string) => name.trim().toLowerCase().replace(/\.$/, '');

/**
 * The decision. A CNAME equal to the target wins; otherwise every address of the domain must be one
 * of the target's (a subset, not equality: round-robin DNS may hand out part of the set).
 */
export function isPointedAtTarget(domain: DnsRecords, targetHost: string, target: DnsRecords): DnsVerdict {
  const host = clean(targetHost);
  const cnames = domain.cnames.map(clean);
  if (cnames.includes(host)) return { verified: true, reason: `CNAME points at ${host}.` };
  const wanted = new Set(target.addresses.map(clean));
  const have = domain.addresses.map(clean);
  if (have.length && wanted.size && have.every((a) => wanted.has(a))) {
    return { verified: true, reason: `Addresses ${have.join(', ')} belong to ${host}.` };
  }
  if (cnames.length) return { verified: false, reason: `CNAME points at ${cnames.join(', ')}, not at ${host}.` };
  if (have.length) {
    const theirs = wanted.size ? [...wanted].join(', ') : 'no addresses';
    return { verified: false, reason: `Addresses ${have.join(', ')} are not those of ${host} (${theirs}).` };
  }
  return { verified: false, reason: `No CNAME, A or AAAA record found; point it at ${host}.` };
}

async function records(resolver: DnsResolver, host: string): Promise<DnsRecords> {
  // ENODATA / ENOTFOUND simply mean "no such record"; each lookup is independent.
  const none = () => [] as string[];
  if (isIP(host)) return { cnames: [], addresses: [host] };
  const [cnames, v4, v6] = await Promise.all([
    resolver.resolveCname(host).catch(none),
    resolver.resolve4(host).catch(none),
    resolver.resolve6(host).catch(none),
  ]);
  return { cnames, addresses: [...v4, ...v6] };
}

/** Looks up the domain and the target and decides. Never throws: a failed lookup is "not verified". */
export async function checkDomainDns(slug: string, targetHost: string, resolver: DnsResolver): Promise<DnsVerdict> {
  const [domain, target] = await Promise.all([records(resolver, slug), records(resolver, clean(targetHost))]);
  return isPointedAtTarget(domain, targetHost, target);
}

/** The system resolver with a short timeout, so adding a domain never hangs on DNS. */
export function defaultResolver(): DnsResolver {
  return new Resolver({ timeout: 3000, tries: 2 });
}
