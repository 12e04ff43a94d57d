/**
 * Visitor location: trusted CDN headers when the operator says so, else a lookup in an .mmdb file
 * (the bundled DB-IP Lite data, CC BY 4.0, or `GEOIP_DB`). Two precisions:
 * - `city` (the click records: country, region, city, continent), used where click rows are
 *   written (events/log/enrich.ts). The bundled city files take ~130 MB. Held by the redirect thread,
 *   they made every request dearer: a plain 302 handler in a process with the app built went
 *   from 26 to 32 µs of CPU per request under wrk when the files were loaded too. So they are
 *   read on the event log's thread.
 * - `country` (geo targeting), used by the redirect itself: the bundled country files, 8 MB, loaded
 *   on the first visit of a link with `geo` set.
 * Files are read once per process and thread, in the background; until they are loaded, locations
 * are `Unknown`. IPv4 answers are remembered per /24 when the database holds the whole /24 in one
 * record, so a burst from one network costs one tree walk.
 *
 * @example
 * const geo = createGeoLocator({ trustHeaders: false });
 * geo.start(); await geo.ready();
 * geo.locate('81.2.69.142', {}); // { country: 'GB', region: 'GB-England', city: 'London', continent: 'EU' }
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { IncomingHttpHeaders } from 'node:http';
import maxmind, { type Reader, type Response } from 'maxmind';
import { continentOf, regionOf } from './places.js';

export interface GeoResult {
  country: string;
  region: string;
  city: string;
  continent: string;
}

export const UNKNOWN_GEO: GeoResult = Object.freeze({ country: 'Unknown', region: 'Unknown', city: 'Unknown', continent: 'Unknown' });

export interface GeoLocator {
  /** Starts loading the databases without waiting. */
  start(): void;
  /** Resolves once the databases are loaded (or failed to load, which is logged). */
  ready(): Promise<void>;
  /** True once `ready()` has resolved. */
  isReady(): boolean;
  /** Location from trusted headers, else from the IP address. */
  locate(ip: string, headers: IncomingHttpHeaders): GeoResult;
  /** Location of an IP address in the database (headers ignored). */
  locateIp(ip: string): GeoResult;
}

export interface GeoOptions {
  /** A MaxMind/DB-IP city or country .mmdb replacing the bundled data (covers IPv4 and IPv6). */
  dbPath?: string;
  /** Which bundled data to read without `dbPath` (default `city`). */
  precision?: 'city' | 'country';
  /** IPv4 /24 networks remembered (default 50,000). */
  cacheSize?: number;
  trustHeaders: boolean;
  onError?: (err: unknown, context: string) => void;
}

/** DB-IP Lite (flat) and MaxMind GeoIP2/GeoLite2 (nested) city records, as far as we read them. */
interface CityRecord {
  country_code?: string;
  state1?: string;
  city?: string | { names?: Record<string, string> };
  country?: { iso_code?: string };
  subdivisions?: { iso_code?: string; names?: Record<string, string> }[];
  continent?: { code?: string };
}

/** One load per file per process (and thread): the two bundled city files take ~0.6 s and ~130 MB together. */
const readers = new Map<string, Promise<Reader<Response> | null>>();

function openReader(path: string, onError?: (err: unknown, context: string) => void): Promise<Reader<Response> | null> {
  let pending = readers.get(path);
  if (!pending) {
    pending = maxmind.open<Response>(path).catch((err: unknown) => {
      onError?.(err, `GeoIP database ${path} could not be opened; clicks get no location`);
      return null;
    });
    readers.set(path, pending);
  }
  return pending;
}

function bundledPaths(precision: 'city' | 'country'): { v4: string; v6: string } {
  const require = createRequire(import.meta.url);
  const dir = dirname(require.resolve(`@ip-location-db/dbip-${precision}-mmdb/package.json`));
  return { v4: join(dir, `dbip-${precision}-ipv4.mmdb`), v6: join(dir, `dbip-${precision}-ipv6.mmdb`) };
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function decodeCity(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** Location from CDN headers (Cloudflare, Vercel, CloudFront); null when they name no country. */
export function geoFromHeaders(headers: IncomingHttpHeaders): GeoResult | null {
  const raw = header(headers, 'cf-ipcountry') ?? header(headers, 'x-vercel-ip-country') ?? header(headers, 'cloudfront-viewer-country');
  if (!raw) return null;
  const country = raw.toUpperCase();
  // Cloudflare: XX = unknown, T1 = Tor.
  if (!/^[A-Z]{2}$/.test(country) || country === 'XX' || country === 'T1') return null;
  const regionCode = header(headers, 'x-vercel-ip-country-region') ?? header(headers, 'cf-region-code') ?? header(headers, 'cloudfront-viewer-country-region');
  const city = header(headers, 'x-vercel-ip-city') ?? header(headers, 'cf-ipcity') ?? header(headers, 'cloudfront-viewer-city');
  const continent = header(headers, 'x-vercel-ip-continent') ?? header(headers, 'cf-ipcontinent');
  return {
    country,
    region: regionOf(country, regionCode, true),
    city: city ? decodeCity(city) : 'Unknown',
    continent: continent ? continent.toUpperCase() : continentOf(country),
  };
}

/** Normalises either record layout to the click's fields. */
export function geoFromRecord(record: CityRecord | null): GeoResult {
  if (!record) return UNKNOWN_GEO;
  const country = (record.country_code ?? record.country?.iso_code ?? '').toUpperCase();
  if (!/^[A-Z]{2}$/.test(country)) return UNKNOWN_GEO;
  const sub = record.subdivisions?.[0];
  const region = sub?.iso_code ? regionOf(country, sub.iso_code, true) : regionOf(country, record.state1 ?? sub?.names?.en);
  const city = typeof record.city === 'string' ? record.city : record.city?.names?.en;
  return { country, region, city: city || 'Unknown', continent: record.continent?.code ?? continentOf(country) };
}

export function createGeoLocator(options: GeoOptions): GeoLocator {
  let v4: Reader<Response> | null = null;
  let v6: Reader<Response> | null = null;
  let loading: Promise<void> | null = null;
  let loaded = false;
  const cacheSize = options.cacheSize ?? 50_000;
  // IPv4 answers by /24 network (`a.b.c`), filled only from records that cover the whole /24.
  const byNetwork = new Map<string, GeoResult>();

  const load = (): Promise<void> => {
    if (!loading) {
      const paths = options.dbPath ? { v4: options.dbPath, v6: options.dbPath } : bundledPaths(options.precision ?? 'city');
      loading = Promise.all([openReader(paths.v4, options.onError), openReader(paths.v6, options.onError)]).then(([a, b]) => {
        v4 = a;
        v6 = b;
        loaded = true;
      });
    }
    return loading;
  };

  const locateIp = (ip: string): GeoResult => {
    const isV6 = ip.includes(':');
    const reader = isV6 ? v6 : v4;
    if (!reader || ip === '') return UNKNOWN_GEO;
    const network = isV6 ? '' : ip.slice(0, ip.lastIndexOf('.'));
    if (network !== '') {
      const cached = byNetwork.get(network);
      if (cached !== undefined) return cached;
    }
    try {
      // Both layouts are read through CityRecord's optional fields.
      const [record, prefixLength] = reader.getWithPrefixLength(ip);
      const geo = geoFromRecord(record as CityRecord | null);
      if (network !== '' && prefixLength <= 24) {
        if (byNetwork.size >= cacheSize) byNetwork.clear();
        byNetwork.set(network, geo);
      }
      return geo;
    } catch {
      // Not an IP address (a misconfigured proxy header): no location rather than no click.
      return UNKNOWN_GEO;
    }
  };

  return {
    start() {
      void load();
    },
    ready: load,
    isReady: () => loaded,
    locateIp,
    locate(ip, headers) {
      if (options.trustHeaders) {
        const fromHeaders = geoFromHeaders(headers);
        if (fromHeaders) return fromHeaders;
      }
      return locateIp(ip);
    },
  };
}
