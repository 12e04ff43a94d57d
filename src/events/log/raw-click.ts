/**
 * What the redirect knows about a click when it answers: who, which link, where to, from where.
 * Everything that costs a lookup (geo, user-agent traits, referer host, UTM values) is left to
 * the log thread (enrich.ts), off the redirect thread. A batch crosses to the log thread packed:
 * one flat array of values (V8 serialises it faster than an array of objects), as JSON in one
 * buffer that is transferred, not copied (bench/log-append/README.md has the costs).
 *
 * @example
 * const packed = packClicks(batch);   // main thread; post it with [packed.buffer] as transfer list
 * const again = unpackClicks(packed); // log thread: deep-equal to `batch`
 */
import type { GeoResult } from '../../visitors/geo.js';

/** A click as the redirect captured it; `enrich.ts` turns it, on the log thread, into the stored event row. */
export interface RawClick {
  /** Click id (visitors/click-id.ts), also the event's id. */
  id: string;
  /** Milliseconds since the epoch. */
  timestamp: number;
  linkId: string;
  workspaceId: string;
  domain: string;
  key: string;
  /** The URL the visitor was sent to. */
  url: string;
  ip: string;
  /** User-agent header, `''` when absent. */
  ua: string;
  /** Referer header, `''` when absent. */
  referer: string;
  /** Scanned from a QR code (`?qr=1`). */
  qr: boolean;
  /**
   * Location from trusted CDN headers, or null to look the IP up in the GeoIP database (headers are
   * read where the request is; the database is read where the row is written).
   */
  geo: GeoResult | null;
}

/** Values per click in the flat form, in the order below. */
const WIDTH = 12;

/** Raw clicks → one flat array of strings, numbers and booleans. */
export function encodeClicks(clicks: readonly RawClick[]): unknown[] {
  const flat: unknown[] = [];
  for (const c of clicks) flat.push(c.id, c.timestamp, c.linkId, c.workspaceId, c.domain, c.key, c.url, c.ip, c.ua, c.referer, c.qr, c.geo);
  return flat;
}

/** The inverse of `encodeClicks`; throws on an array of the wrong shape. */
export function decodeClicks(flat: readonly unknown[]): RawClick[] {
  if (flat.length % WIDTH !== 0) throw new Error(`malformed click batch: ${flat.length} values`);
  const out: RawClick[] = [];
  for (let i = 0; i < flat.length; i += WIDTH) {
    out.push({
      id: flat[i] as string,
      timestamp: flat[i + 1] as number,
      linkId: flat[i + 2] as string,
      workspaceId: flat[i + 3] as string,
      domain: flat[i + 4] as string,
      key: flat[i + 5] as string,
      url: flat[i + 6] as string,
      ip: flat[i + 7] as string,
      ua: flat[i + 8] as string,
      referer: flat[i + 9] as string,
      qr: flat[i + 10] as boolean,
      geo: flat[i + 11] as GeoResult | null,
    });
  }
  return out;
}

/** Raw clicks → one buffer (the flat form as JSON, UTF-8), for a transfer list. */
export function packClicks(clicks: readonly RawClick[]): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(encodeClicks(clicks)));
}

/** The inverse of `packClicks`; throws on anything malformed. */
export function unpackClicks(packed: Uint8Array): RawClick[] {
  const flat: unknown = JSON.parse(new TextDecoder().decode(packed));
  if (!Array.isArray(flat)) throw new Error('malformed click batch: not an array');
  return decodeClicks(flat);
}
