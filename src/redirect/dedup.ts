/**
 * Repeat visits: the same visitor (IP + user agent) on the same link within an hour reuses the
 * first click's id and is not counted again (behaviour.md §5.5). Kept in process memory — an LRU
 * of hashed keys (~150 bytes an entry) — so a check costs no I/O. Each process remembers its own
 * visitors, and the oldest entries give way beyond `max` distinct visitors per hour.
 *
 * @example
 * const dedup = createClickDeduplicator({ newClickId });
 * dedup.seen(link.id, ip, ua, now); // { clickId: 'Ab3…', isNew: true }, then isNew: false for an hour
 */
import { hash } from 'node:crypto';
import { LRUCache } from 'lru-cache';

export interface ClickDeduplicator {
  seen(linkId: string, ip: string, ua: string, now: number): { clickId: string; isNew: boolean };
}

export interface DedupOptions {
  /** A new click id for a click at `now`. */
  newClickId: (now: number) => string;
  /** Window in ms (default 1 hour). */
  windowMs?: number;
  /** Visitors remembered (default 500,000). */
  max?: number;
}

export function createClickDeduplicator(options: DedupOptions): ClickDeduplicator {
  const windowMs = options.windowMs ?? 3_600_000;
  const recent = new LRUCache<string, { clickId: string; at: number }>({ max: options.max ?? 500_000 });
  return {
    seen(linkId, ip, ua, now) {
      // A 160-bit digest keeps entries small whatever the user agent's length.
      const key = hash('sha1', `${linkId}\n${ip}\n${ua}`, 'base64');
      const hit = recent.get(key);
      if (hit && now - hit.at < windowMs) return { clickId: hit.clickId, isNew: false };
      const clickId = options.newClickId(now);
      recent.set(key, { clickId, at: now });
      return { clickId, isNew: true };
    },
  };
}
