/**
 * Where a source link's domain goes in the target. The source's own domains (those it lists for
 * the workspace) come along as they are; a domain it does not list is a shared default domain
 * (`dub.sh`, `bit.ly`, another instance's short domain), which no workspace can own, so its links
 * go to this installation's short domain with the same key. `--domain-map FROM=TO` overrides
 * both. The same answer serves links, the events that name a link by domain and key, and the
 * look-up of a re-run, so a re-run with the same flags finds what the first one copied.
 *
 * @example
 * const plan = createDomainPlan({ map: parseDomainMap(['dub.sh=go.acme.com']), own: ['acme.link'], shortDomain: 'go.example.com' });
 * plan.target('dub.sh');    // 'go.acme.com'
 * plan.target('acme.link'); // 'acme.link'
 * plan.target('dub.link');  // 'go.example.com'
 */
import { normaliseDomain } from '../links/keys.js';

/** `FROM=TO` pairs as given on the command line; host names only, each FROM once. */
export function parseDomainMap(pairs: readonly string[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const pair of pairs) {
    const [rawFrom, rawTo, ...rest] = pair.split('=');
    const from = normaliseDomain(rawFrom ?? '');
    const to = normaliseDomain(rawTo ?? '');
    if (rest.length || !from || !to) throw new Error(`--domain-map takes FROM=TO with two host names (e.g. dub.sh=go.acme.com), got "${pair}"`);
    if (map.has(from) && map.get(from) !== to) throw new Error(`--domain-map names ${from} twice`);
    map.set(from, to);
  }
  return map;
}

export interface DomainMove {
  from: string;
  to: string;
  /** Links copied (or found from an earlier run) on `to` instead of `from`. */
  links: number;
}

export function createDomainPlan(input: { map: ReadonlyMap<string, string>; own: Iterable<string>; shortDomain: string }) {
  const own = new Set([...input.own].map((d) => normaliseDomain(d) ?? d.toLowerCase()));
  const moves = new Map<string, DomainMove>();
  const normal = (domain: string) => normaliseDomain(domain) ?? domain.toLowerCase();

  const plan = {
    /** The target domain of a link on `domain` in the source. */
    target(domain: string): string {
      const from = normal(domain);
      return input.map.get(from) ?? (own.has(from) ? from : input.shortDomain);
    },
    /** Whether a source domain is copied as a domain (an own domain no mapping sends elsewhere). */
    copies(domain: string): boolean {
      const from = normal(domain);
      return own.has(from) && !input.map.has(from);
    },
    /** The domains the mapping names as targets. */
    mappedTargets(): string[] {
      return [...new Set(input.map.values())];
    },
    /** Counts a link that landed on another domain than its source's. */
    noteMove(fromDomain: string, to: string): void {
      const from = normal(fromDomain);
      if (from === to) return;
      const key = `${from}\u0000${to}`;
      const move = moves.get(key) ?? { from, to, links: 0 };
      move.links++;
      moves.set(key, move);
    },
    moves(): DomainMove[] {
      return [...moves.values()].sort((a, b) => b.links - a.links || a.from.localeCompare(b.from));
    },
  };
  return plan;
}

export type DomainPlan = ReturnType<typeof createDomainPlan>;
