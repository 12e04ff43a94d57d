/**
 * Repeat visits: the same visitor (IP + user agent) on the same link within an hour reuses the
 * first click's id and is not counted again (behaviour.md §5.5).
 *
 * Kept in process memory as a fixed-size open-addressing table of typed arrays: a visitor is a
 * 64-bit hash of (link, IP, user agent) with the time and random parts of its click id, so a
 * check costs one pass over the key's characters and a few array reads, allocates nothing the
 * garbage collector has to trace, and memory stays flat (24 bytes a slot, 24 MiB by default).
 * A key is looked for in `probes` consecutive slots; when all of them hold visitors of the last
 * hour, the oldest gives way, so beyond about `slots` distinct visitors an hour a repeat may be
 * counted again. Each process remembers its own visitors.
 *
 * @example
 * const dedup = createClickDeduplicator();
 * dedup.seen(link.id, ip, ua, now); // { clickId: '1BGXw4ka8Zq02LmN', isNew: true }, then isNew: false for an hour
 */
import { randomInt } from 'node:crypto';
import { clickIdOf, randomClickParts } from '../visitors/click-id.js';

export interface ClickDeduplicator {
  seen(linkId: string, ip: string, ua: string, now: number): { clickId: string; isNew: boolean };
}

export interface DedupOptions {
  /** Window in ms (default 1 hour). */
  windowMs?: number;
  /** Table size, rounded up to a power of two (default 2^20). */
  slots?: number;
  /** Slots searched per key (default 16). */
  probes?: number;
  /** Random parts of new click ids (tests). */
  random?: () => [number, number];
}

const DEFAULTS = { windowMs: 3_600_000, slots: 1 << 20, probes: 16 };

/** Bytes per slot: the time (a float64), then four uint32 words: two hash halves, two random parts. */
const SLOT_BYTES = 24;

export function createClickDeduplicator(options: DedupOptions = {}): ClickDeduplicator {
  const { windowMs, probes } = { ...DEFAULTS, ...options };
  const random = options.random ?? randomClickParts;
  let size = 1;
  while (size < (options.slots ?? DEFAULTS.slots)) size *= 2;
  const mask = size - 1;
  // One record per slot, side by side (not one array per field): a lookup reads one or two cache
  // lines instead of one per field, and the table (24 MiB by default) is far bigger than the cache.
  // Allocated at the first visit: an app that serves no redirect (a test's, most of them) never
  // pays for it (~40 ms of CPU and 24 MiB).
  let table: { at: Float64Array; words: Uint32Array } | null = null;
  const allocate = () => {
    const buffer = new ArrayBuffer(size * SLOT_BYTES);
    const at = new Float64Array(buffer); // at[slot * 3]
    const words = new Uint32Array(buffer); // words[slot * 6 + 2 … 5]: hash A, hash B, part 1, part 2
    // -Infinity marks a slot never used: it reads as expired, and no key lies beyond it (below).
    at.fill(-Infinity);
    return { at, words };
  };
  // A per-process seed, so nobody can choose visitors that fall into the same slots.
  const seed = randomInt(0x7fffffff);

  return {
    seen(linkId, ip, ua, now) {
      const { at, words } = (table ??= allocate());
      let h1 = 0xdeadbeef ^ seed;
      let h2 = 0x41c6ce57 ^ seed;
      // cyrb53-style mixing over link, IP and user agent, with a separator between them.
      for (const part of [linkId, ip, ua]) {
        for (let i = 0; i < part.length; i++) {
          const ch = part.charCodeAt(i);
          h1 = Math.imul(h1 ^ ch, 2654435761);
          h2 = Math.imul(h2 ^ ch, 1597334677);
        }
        h1 = Math.imul(h1 ^ 10, 2654435761);
        h2 = Math.imul(h2 ^ 10, 1597334677);
      }
      h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
      h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
      const a = h1 >>> 0;
      const b = h2 >>> 0;

      let free = -1;
      let oldest = -1;
      for (let p = 0; p < probes; p++) {
        const i = (a + p) & mask;
        const t = at[i * 3]!;
        const live = now - t < windowMs;
        if (live && words[i * 6 + 2] === a && words[i * 6 + 3] === b) return { clickId: clickIdOf(t, words[i * 6 + 4]!, words[i * 6 + 5]!), isNew: false };
        if (!live) {
          if (free < 0) free = i;
          // A key goes into the first slot of its run that is not live, and a used slot never
          // becomes unused again: no key of this run lies past a slot never used.
          if (t === -Infinity) break;
        } else if (oldest < 0 || t < at[oldest * 3]!) oldest = i;
      }
      const slot = free >= 0 ? free : oldest;
      const [r1, r2] = random();
      at[slot * 3] = now;
      words[slot * 6 + 2] = a;
      words[slot * 6 + 3] = b;
      words[slot * 6 + 4] = r1;
      words[slot * 6 + 5] = r2;
      return { clickId: clickIdOf(now, r1, r2), isNew: true };
    },
  };
}
