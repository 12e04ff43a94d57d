/**
 * Resolved links and domains, kept in process (LRU) so a redirect normally touches no database.
 * Entries are dropped on every change announced on the ChangeBus (this process, and others via
 * PostgreSQL NOTIFY) and expire after a while anyway, which bounds staleness of data that has no
 * change event (the workspace's conversion flag) and of notifications missed while disconnected.
 *
 * An expired link is still answered once more while its reload runs in the background
 * (stale-while-revalidate), and lifetimes are spread over 50–100 % of `ttlMs`: links loaded
 * together (a warm-up, a campaign) would otherwise all expire in the same instant, and the
 * redirect would stall on thousands of synchronous SQLite reads at once (measured: p99 above 1 s
 * with 10,000 links in bench/redirect). "No such link" entries expire hard.
 *
 * Request hosts may carry a port (`wm.localhost:3000`); a link is looked up on the host with its
 * port first, then without. The cache key is the request host, so entries of `host:port` are also
 * indexed under the port-less name to be found when that name changes.
 *
 * @example
 * const cache = createLinkCache(store);
 * const link = cache.peek('go.example.com', 'abc') ?? (await cache.load('go.example.com', 'go.example.com', 'abc'));
 */
import { boundedCache } from '../bounded-cache.js';
import type { Change } from '../db/change-bus.js';
import type { DomainInfo, LinkInfo, SettledTest, TestVariant } from './decide.js';
import type { DomainRow, LinkWithWorkspace, RedirectStore } from './store.js';
import { withoutPort } from './request.js';
import { locationUrl, pageImageUrl } from '../web-url.js';

export interface LinkCacheOptions {
  /** Entries kept (default 100,000: ~1 KB each). */
  max?: number;
  /** Lifetime of a found link or domain (default 60 s). */
  ttlMs?: number;
  /** Lifetime of a "no such link" entry (default 5 s, like the published service's LRU). */
  negativeTtlMs?: number;
  /** Clock (tests). */
  now?: () => number;
  /** Called when a background refresh fails (the stale entry keeps answering). */
  onError?: (err: unknown, context: string) => void;
}

export interface LinkCache {
  /** Cached answer: a link, `null` (known missing) or `undefined` (not cached). Synchronous. */
  peek(host: string, keyLower: string): LinkInfo | null | undefined;
  /** Reads the link from the database (host first, then `hostname`) and caches the answer. */
  load(host: string, hostname: string, keyLower: string): Promise<LinkInfo | null>;
  peekDomain(host: string): DomainInfo | null | undefined;
  loadDomain(host: string, hostname: string): Promise<DomainInfo | null>;
  invalidate(change: Change): void;
  /** Drops everything (e.g. after missing notifications while reconnecting). */
  clear(): void;
  readonly size: number;
}

/** Delay before a failed background reload of an expired link is tried again. */
const REFRESH_RETRY_MS = 5_000;

interface Entry<T> {
  value: T | null;
}

interface LinkEntry extends Entry<LinkInfo> {
  /** When the entry goes stale (ms, the cache's clock). */
  staleAt: number;
}

function parseJson(text: string | null): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * Row → the redirect's view of a link, parsed once per cache fill. Every URL the redirect may write
 * to `Location` or a page is held in its Location form (../web-url.ts: percent-encoded, visible
 * ASCII), so no request pays for encoding; a stored value that is not an acceptable http(s) URL
 * (written by an older version, or by hand) counts as not set.
 */
export function toLinkInfo(row: LinkWithWorkspace): LinkInfo {
  const geoRaw = parseJson(row.geo);
  let geo: Record<string, string> | null = null;
  if (geoRaw && typeof geoRaw === 'object' && !Array.isArray(geoRaw)) {
    for (const [country, url] of Object.entries(geoRaw as Record<string, unknown>)) {
      const location = typeof url === 'string' ? locationUrl(url) : null;
      if (location !== null) (geo ??= {})[country.toUpperCase()] = location;
    }
  }
  const variantsRaw = parseJson(row.test_variants);
  const testVariants: TestVariant[] = [];
  if (Array.isArray(variantsRaw)) {
    for (const v of variantsRaw as Partial<TestVariant>[]) {
      const location = v && typeof v.url === 'string' ? locationUrl(v.url) : null;
      if (location !== null && typeof v.percentage === 'number') testVariants.push({ url: location, percentage: v.percentage });
    }
  }
  const n = (v: number | null) => (v === null || v === undefined ? null : Number(v));
  const testCompletedAt = n(row.test_completed_at);
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    domain: row.domain,
    key: row.key,
    url: locationUrl(row.url) ?? '',
    expiresAt: n(row.expires_at),
    expiredUrl: locationUrl(row.expired_url),
    disabledAt: n(row.disabled_at),
    password: row.password,
    proxy: row.proxy === 1,
    rewrite: row.rewrite === 1,
    doIndex: row.do_index === 1,
    title: row.title,
    description: row.description,
    image: pageImageUrl(row.image),
    video: locationUrl(row.video),
    ios: locationUrl(row.ios),
    android: locationUrl(row.android),
    geo,
    testVariants: testVariants.length ? testVariants : null,
    testStartedAt: n(row.test_started_at),
    testCompletedAt,
    testSettled: settledTest(row, testCompletedAt, testVariants),
    trackConversion: row.track_conversion === 1 || Number(row.conversion_enabled) === 1,
    partner: row.program_id !== null && row.partner_id !== null,
  };
}

/**
 * The stored route of a completed test, when it was decided for the link's current completion
 * time; a winner only while it is still one of the variants (in its Location form).
 */
function settledTest(row: LinkWithWorkspace, completedAt: number | null, variants: readonly TestVariant[]): SettledTest | null {
  if (completedAt === null || row.test_decided_for === null || row.test_decided_for === undefined || Number(row.test_decided_for) !== completedAt) return null;
  if (row.test_route === 'split' || row.test_route === 'stop') return { route: row.test_route };
  if (row.test_route !== 'winner') return null;
  const url = locationUrl(row.test_route_url ?? null);
  return url !== null && variants.some((v) => v.url === url) ? { route: 'winner', url } : null;
}

/** Row → the redirect's view of a domain; its URLs in their Location form, as in `toLinkInfo`. */
export function toDomainInfo(row: DomainRow): DomainInfo {
  return {
    slug: row.slug,
    placeholder: locationUrl(row.placeholder),
    expiredUrl: locationUrl(row.expired_url),
    notFoundUrl: locationUrl(row.not_found_url),
    assetLinks: row.asset_links,
    appleAppSiteAssociation: row.apple_app_site_association,
  };
}

export function createLinkCache(store: Pick<RedirectStore, 'findLink' | 'findDomain'>, options: LinkCacheOptions = {}): LinkCache {
  const ttl = options.ttlMs ?? 60_000;
  const negativeTtl = options.negativeTtlMs ?? 5_000;
  // host:port entries indexed under `hostname\nkey`, so a change of the port-less name finds them.
  const portAliases = new Map<string, Set<string>>();
  const aliasOf = (cacheKey: string): string | null => {
    const nl = cacheKey.indexOf('\n');
    const host = cacheKey.slice(0, nl);
    const bare = withoutPort(host);
    return bare === host ? null : `${bare}${cacheKey.slice(nl)}`;
  };
  const now = options.now ?? Date.now;
  const links = boundedCache<string, LinkEntry>(options.max ?? 100_000, {
    dispose: (_value, cacheKey) => {
      const alias = aliasOf(cacheKey);
      if (alias === null) return;
      const set = portAliases.get(alias);
      set?.delete(cacheKey);
      if (set && set.size === 0) portAliases.delete(alias);
    },
  });
  const domains = boundedCache<string, Entry<DomainInfo>>(10_000);
  const inflight = new Map<string, Promise<LinkInfo | null>>();
  // Bumped by every invalidation: a load that started before a change must not cache its
  // (possibly stale) answer.
  let generation = 0;

  const remember = (cacheKey: string, value: LinkInfo | null) => {
    links.set(cacheKey, { value, staleAt: now() + (value ? ttl * (0.5 + 0.5 * Math.random()) : negativeTtl) });
    const alias = aliasOf(cacheKey);
    if (alias !== null) {
      let set = portAliases.get(alias);
      if (!set) portAliases.set(alias, (set = new Set()));
      set.add(cacheKey);
    }
  };

  const dropLink = (nameKey: string) => {
    links.delete(nameKey);
    const set = portAliases.get(nameKey);
    if (set) for (const k of [...set]) links.delete(k);
  };

  const cache: LinkCache = {
    peek(host, keyLower) {
      const cacheKey = `${host}\n${keyLower}`;
      const entry = links.get(cacheKey);
      if (entry === undefined) return undefined;
      if (entry.staleAt > now()) return entry.value;
      // A missing link is looked up again before answering; a found one answers while it reloads.
      if (entry.value === null) return undefined;
      if (!inflight.has(cacheKey)) {
        // Tried again in a few seconds if this reload fails (database down): not on every request.
        entry.staleAt = now() + REFRESH_RETRY_MS;
        cache.load(host, withoutPort(host), keyLower).catch((err) => options.onError?.(err, `refreshing link ${host}/${keyLower} failed`));
      }
      return entry.value;
    },

    load(host, hostname, keyLower) {
      const cacheKey = `${host}\n${keyLower}`;
      let pending = inflight.get(cacheKey);
      if (pending) return pending;
      const started = generation;
      const names = host === hostname ? [host] : [host, hostname];
      pending = store
        .findLink(names, keyLower)
        .then((row) => {
          const value = row ? toLinkInfo(row) : null;
          if (generation === started) remember(cacheKey, value);
          return value;
        })
        .finally(() => inflight.delete(cacheKey));
      inflight.set(cacheKey, pending);
      return pending;
    },

    peekDomain(host) {
      return domains.get(host)?.value;
    },

    async loadDomain(host, hostname) {
      const started = generation;
      const row = await store.findDomain(host === hostname ? [host] : [host, hostname]);
      const value = row ? toDomainInfo(row) : null;
      if (generation === started) domains.set(host, { value }, { ttl: value ? ttl : negativeTtl });
      return value;
    },

    invalidate(change) {
      generation++;
      const domain = change.domain.toLowerCase();
      if (change.type === 'link') {
        dropLink(`${domain}\n${change.key.toLowerCase()}`);
        return;
      }
      // A domain change (settings, rename, deletion) is rare: sweep its entries.
      for (const host of [...domains.keys()]) if (host === domain || withoutPort(host) === domain) domains.delete(host);
      for (const cacheKey of [...links.keys()]) {
        const host = cacheKey.slice(0, cacheKey.indexOf('\n'));
        if (host === domain || withoutPort(host) === domain) links.delete(cacheKey);
      }
    },

    clear() {
      generation++;
      links.clear();
      domains.clear();
      portAliases.clear();
    },

    get size() {
      return links.size;
    },
  };
  return cache;
}
