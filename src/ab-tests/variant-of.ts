/**
 * Which variant a recorded event belongs to, pure. A click records the URL it was sent to: the
 * variant's URL with the visitor's query, the link's UTM parameters and `dub_id` merged onto it.
 * So an event belongs to the variant whose URL is the longest prefix of the event's URL ending
 * where the URL ends or its query or fragment goes on; the stored and the percent-encoded forms
 * of a variant (what the redirect writes to `Location`) both count.
 *
 * @example
 * variantIndex('https://a.example/?dub_id=x', ['https://a.example/', 'https://b.example/']); // 0
 */
import { locationUrl } from '../web-url.js';

function matches(eventUrl: string, form: string): boolean {
  if (!eventUrl.startsWith(form)) return false;
  if (eventUrl.length === form.length) return true;
  const next = eventUrl[form.length];
  return next === '?' || next === '&' || next === '#';
}

/** The forms a variant URL may appear in on events. */
export function variantForms(url: string): string[] {
  const forms = new Set([url]);
  const location = locationUrl(url);
  if (location) forms.add(location);
  try {
    forms.add(new URL(url).href);
  } catch {
    // Not a URL the WHATWG parser reads: its stored form alone.
  }
  return [...forms];
}

/** Index of the variant an event URL belongs to, or -1. */
export function variantIndex(eventUrl: string | null | undefined, variants: readonly string[][]): number;
export function variantIndex(eventUrl: string | null | undefined, variants: readonly string[]): number;
export function variantIndex(eventUrl: string | null | undefined, variants: readonly (string | string[])[]): number {
  if (!eventUrl) return -1;
  let best = -1;
  let bestLength = -1;
  variants.forEach((v, i) => {
    for (const form of typeof v === 'string' ? variantForms(v) : v) {
      if (form.length > bestLength && matches(eventUrl, form)) [best, bestLength] = [i, form.length];
    }
  });
  return best;
}
