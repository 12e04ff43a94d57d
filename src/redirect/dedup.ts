/**
 * Repeat visits: the same visitor (IP + user agent) on the same link within an hour reuses the
 * first click's id and is not counted again (behaviour.md §5.5).
 *
 * Kept in process memory as a fixed-size open-addressing table of typed arrays: a visitor is a
 * 64-bit hash of (link, address, agent) with the time and random parts of its click id. The user
 * agent comes as its key in the redirect's agent table (agents.ts: a 32-bit hash of its text made
 * once per distinct agent, read by id), not as text, and an IPv4 address as its integer: a check
 * mixes the link id's characters and a few integers, reads a few array slots and allocates nothing
 * (the result is read from `time`, `part1` and `part2`; `clickId()` spells it when the answer
 * needs the string). Memory stays flat (24 bytes a slot, 24 MiB by default). A key is looked for in
 * `probes` consecutive slots; when all of them hold visitors of the last hour, the oldest gives
 * way, so beyond about `slots` distinct visitors an hour a repeat may be counted again. Two agents
 * of one key from one address on one link would be taken for one visitor (one pair in 2^32).
 * Each process remembers its own visitors.
 *
 * @example
 * const dedup = createClickDeduplicator();
 * if (dedup.check(link.id, ip, agents.key(agentId), now)) { … new click at dedup.time, parts dedup.part1, dedup.part2 }
 * dedup.clickId(); // '1BGXw4ka8Zq02LmN': the same for an hour
 */
import { randomInt } from 'node:crypto';
import { clickIdOf, randomPart1, randomPart2 } from '../visitors/click-id.js';
import { ipv4ToInt } from '../events/index.js';

export interface ClickDeduplicator {
  /**
   * True when the visitor (link, address, agent key) is new on the link within the
   * window: it is remembered from `now`, with new random parts. False for a repeat. Either way
   * `time`, `part1` and `part2` are then the click's (the first click's, for a repeat).
   */
  check(linkId: string, ip: string, agent: number, now: number): boolean;
  /** The time (ms) of the click of the last `check`. */
  readonly time: number;
  readonly part1: number;
  readonly part2: number;
  /** The click id of the last `check`, spelled. */
  clickId(): string;
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
  const random = options.random;
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

  let time = 0;
  let part1 = 0;
  let part2 = 0;

  return {
    check(linkId, ip, agent, now) {
      const { at, words } = (table ??= allocate());
      let h1 = 0xdeadbeef ^ seed;
      let h2 = 0x41c6ce57 ^ seed;
      // cyrb53-style mixing: the link id's characters, then whole 32-bit words.
      for (let i = 0; i < linkId.length; i++) {
        const ch = linkId.charCodeAt(i);
        h1 = Math.imul(h1 ^ ch, 2654435761);
        h2 = Math.imul(h2 ^ ch, 1597334677);
      }
      h1 = Math.imul(h1 ^ 10, 2654435761);
      h2 = Math.imul(h2 ^ 10, 1597334677);
      const v4 = ipv4ToInt(ip);
      if (v4 !== undefined) {
        // A marker word keeps an IPv4 integer apart from an IPv6 address's characters.
        h1 = Math.imul(h1 ^ 4, 2654435761);
        h2 = Math.imul(h2 ^ 4, 1597334677);
        h1 = Math.imul(h1 ^ v4, 2654435761);
        h2 = Math.imul(h2 ^ v4, 1597334677);
      } else {
        h1 = Math.imul(h1 ^ 6, 2654435761);
        h2 = Math.imul(h2 ^ 6, 1597334677);
        for (let i = 0; i < ip.length; i++) {
          const ch = ip.charCodeAt(i);
          h1 = Math.imul(h1 ^ ch, 2654435761);
          h2 = Math.imul(h2 ^ ch, 1597334677);
        }
        h1 = Math.imul(h1 ^ 10, 2654435761);
        h2 = Math.imul(h2 ^ 10, 1597334677);
      }
      h1 = Math.imul(h1 ^ agent, 2654435761);
      h2 = Math.imul(h2 ^ agent, 1597334677);
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
        if (live && words[i * 6 + 2] === a && words[i * 6 + 3] === b) {
          time = t;
          part1 = words[i * 6 + 4]!;
          part2 = words[i * 6 + 5]!;
          return false;
        }
        if (!live) {
          if (free < 0) free = i;
          // A key goes into the first slot of its run that is not live, and a used slot never
          // becomes unused again: no key of this run lies past a slot never used.
          if (t === -Infinity) break;
        } else if (oldest < 0 || t < at[oldest * 3]!) oldest = i;
      }
      const slot = free >= 0 ? free : oldest;
      if (random) [part1, part2] = random();
      else {
        part1 = randomPart1();
        part2 = randomPart2();
      }
      time = now;
      at[slot * 3] = now;
      words[slot * 6 + 2] = a;
      words[slot * 6 + 3] = b;
      words[slot * 6 + 4] = part1;
      words[slot * 6 + 5] = part2;
      return true;
    },
    get time() {
      return time;
    },
    get part1() {
      return part1;
    },
    get part2() {
      return part2;
    },
    clickId: () => clickIdOf(time, part1, part2),
  };
}
