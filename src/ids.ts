/**
 * Prefixed identifiers: `link_01J…`, `ws_01J…`. A 48-bit millisecond timestamp followed by
 * 80 random bits in Crockford base32 (26 characters), so ids sort by creation time,
 * as the published service's ids do (behaviour.md §1.6).
 */
import { randomBytes } from 'node:crypto';
import { customAlphabet } from 'nanoid';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export type IdPrefix = 'ws' | 'link' | 'tag' | 'dom' | 'fold' | 'cus' | 'key' | 'evt' | 'user' | 'wh' | 'whd' | 'whb' | 'inv' | 'aud' | 'utm' | 'era' | 'bio';

/** Random bytes drawn 4 KiB at a time: one call into the CSPRNG per 256 ids instead of one per id. */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let poolAt = 0;

/** A new time-ordered id with the given type prefix. */
export function newId(prefix: IdPrefix, now = Date.now()): string {
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  if (poolAt + 16 > pool.length) {
    pool = randomBytes(POOL_BYTES);
    poolAt = 0;
  }
  let rand = '';
  for (let i = 0; i < 16; i++) rand += CROCKFORD[pool[poolAt + i]! & 31];
  poolAt += 16;
  return `${prefix}_${time}${rand}`;
}

/** 62-character alphabet of short-link keys and click ids (behaviour.md §1.3). */
export const KEY_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A random click id: 16 characters of the key alphabet. */
export const newClickId: () => string = customAlphabet(KEY_ALPHABET, 16);

/** A random string of the key alphabet with the given length. */
export function randomKey(length: number): string {
  return customAlphabet(KEY_ALPHABET, length)();
}
