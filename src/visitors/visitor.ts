/**
 * Who is visiting: user-agent traits (bot, device, browser, OS), client IP and referer.
 * A ua-parser-js parse costs ~50 µs and isbot ~6 µs (issue 4), while real traffic repeats a
 * small set of user-agent strings, so each distinct string is classified once and remembered.
 *
 * @example
 * const classify = createUaClassifier();
 * classify('Mozilla/5.0 (iPhone; …) Mobile/15E148 Safari/604.1'); // { bot: false, device: 'Mobile', browser: 'Mobile Safari', os: 'iOS' }
 */
import { memoize } from '../memo.js';
import { UAParser } from 'ua-parser-js';
import { isbot } from 'isbot';

export interface UaTraits {
  bot: boolean;
  /** `Desktop` unless ua-parser-js names a device type (`Mobile`, `Tablet`, …), as the published records do. */
  device: string;
  browser: string;
  os: string;
}

/**
 * A memoised classifier; one per app, created at start (never per request). Called on every
 * redirect: a Map hit, without an LRU's bookkeeping (memo.ts).
 */
export function createUaClassifier(max = 10_000): (ua: string) => UaTraits {
  return memoize(classifyUa, max);
}

/** Uncached classification (exported for tests). */
export function classifyUa(ua: string): UaTraits {
  const r = new UAParser(ua).getResult();
  const type = r.device.type;
  return {
    bot: isbot(ua),
    device: type ? type.charAt(0).toUpperCase() + type.slice(1) : 'Desktop',
    browser: r.browser.name || 'Unknown',
    os: r.os.name || 'Unknown',
  };
}

/** Referer host without `www.` and the full referer, or `(direct)` for both (behaviour.md §5.5). */
export function refererOf(referer: string | undefined): { host: string; url: string } {
  if (!referer) return DIRECT;
  try {
    const host = new URL(referer).hostname.toLowerCase();
    return { host: host.startsWith('www.') ? host.slice(4) : host || '(direct)', url: referer };
  } catch {
    return DIRECT;
  }
}

const DIRECT = Object.freeze({ host: '(direct)', url: '(direct)' });
