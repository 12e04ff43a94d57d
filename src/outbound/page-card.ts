/**
 * A web page's social card read on the server (the link builder's "Fetch from destination"):
 * its `og:title`, `og:description` and `og:image`, else `twitter:*`, else `<title>` and the
 * `description` meta. The page is fetched with the one guarded request of this folder
 * (request.ts: global unicast addresses only unless the operator allows private ones, as for
 * webhooks, checked on every address connected to), at most `maxBytes` read (the start of a
 * larger page is read, the rest never downloaded), within `timeoutMs` for the whole (a page not
 * complete by then is given up), following at most `maxRedirects` redirects (each hop checked again). The HTML is
 * parsed by parse5 (as a browser would; entities decoded); values are plain text, trimmed, cut to
 * the builder's limits, and the image kept only as an absolute http(s) URL. A page past
 * `READ_LIMITS` (elements, nesting) is not read: the answer says "Could not read the page".
 *
 * @example
 * const card = await fetchPageCard('https://example.com/post', { allowPrivate: false });
 * if (card.ok) card.card.title; // 'A post'
 */
import { parse } from 'parse5';
import type { DefaultTreeAdapterMap } from 'parse5';
import { outboundRequest, type Resolve } from './request.js';

export interface PageCard {
  title: string;
  description: string;
  image: string;
}

export type CardResult = { ok: true; card: PageCard; url: string; truncated: boolean } | { ok: false; reason: string; refused: boolean; unreadable?: boolean };

export interface CardOptions {
  allowPrivate: boolean;
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
  resolve?: Resolve;
}

/** The builder's limits (link-builder.tsx: title 120, description 240; URLs as the API allows). */
export const CARD_LIMITS = { title: 120, description: 240, image: 2048 } as const;
export const CARD_DEFAULTS = { timeoutMs: 5_000, maxBytes: 512 * 1024, maxRedirects: 3 } as const;

type Element = DefaultTreeAdapterMap['element'];
type Node = DefaultTreeAdapterMap['node'];

const clean = (text: string, max: number) => {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
};

/**
 * The most a page may cost to read: elements visited and nesting depth. A real page's first
 * 512 KB has a few thousand elements; a page past either bound is built to cost work, and is
 * refused (`UnreadablePage`) rather than read part way.
 */
export const READ_LIMITS = { nodes: 20_000, depth: 1_000 } as const;

/** A page whose tree is past `READ_LIMITS`: the card is not read. */
export class UnreadablePage extends Error {}

/**
 * The card a page's HTML declares; `base` resolves a relative image URL. Pure. The tree is
 * walked with a stack of its own (a recursive walk overflows the call stack on deep nesting);
 * throws `UnreadablePage` past `limits`.
 */
export function readCard(html: string, base: string, limits: { nodes: number; depth: number } = READ_LIMITS): PageCard {
  // Every node is at least one '<' (or text between two): far more tags than the budget is
  // refused before parse5 builds a tree of them.
  let tags = 0;
  for (let i = html.indexOf('<'); i !== -1; i = html.indexOf('<', i + 1)) if (++tags > limits.nodes) throw new UnreadablePage('too many elements');
  const meta = new Map<string, string>();
  let title = '';
  let visited = 0;
  // Children are pushed in reverse, so nodes come off in document order (the first title wins).
  const stack: [Node, number][] = [[parse(html) as unknown as Node, 0]];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const [node, depth] = next;
    if (++visited > limits.nodes) throw new UnreadablePage('too many elements');
    if (depth > limits.depth) throw new UnreadablePage('nested too deeply');
    if ('tagName' in node) {
      const el = node as Element;
      if (el.tagName === 'meta') {
        const attr = (name: string) => el.attrs.find((a) => a.name === name)?.value;
        const key = (attr('property') ?? attr('name') ?? '').trim().toLowerCase();
        const content = attr('content');
        if (key && content !== undefined && !meta.has(key)) meta.set(key, content);
      } else if (el.tagName === 'title' && !title) {
        title = el.childNodes.map((c) => ('value' in c ? String(c.value) : '')).join('');
      }
      // <template> content and foreign (SVG) titles are not the page's: skip them.
      if (el.tagName === 'template' || el.tagName === 'svg') continue;
    }
    if ('childNodes' in node) {
      const children = node.childNodes as Node[];
      for (let i = children.length - 1; i >= 0; i--) stack.push([children[i]!, depth + 1]);
    }
  }
  const first = (...keys: string[]) => keys.map((k) => meta.get(k)?.trim()).find((v) => v) ?? '';
  let image = first('og:image', 'og:image:url', 'og:image:secure_url', 'twitter:image', 'twitter:image:src');
  try {
    const url = image ? new URL(image, base) : null;
    image = url && (url.protocol === 'https:' || url.protocol === 'http:') ? url.href : '';
  } catch {
    image = '';
  }
  return {
    title: clean(first('og:title', 'twitter:title') || title, CARD_LIMITS.title),
    description: clean(first('og:description', 'twitter:description', 'description'), CARD_LIMITS.description),
    image: image.length <= CARD_LIMITS.image ? image : '',
  };
}

/** The charset an answer declares (`content-type`), when TextDecoder knows it; else UTF-8. */
function decoderFor(contentType: string | undefined): TextDecoder {
  const label = /charset=["']?([\w-]+)/i.exec(contentType ?? '')?.[1];
  try {
    return new TextDecoder(label ?? 'utf-8');
  } catch {
    return new TextDecoder('utf-8');
  }
}

/**
 * Why no answer came, for the person who typed the address (the builder shows it under the
 * button): the system's error code (`ENOTFOUND: getaddrinfo ENOTFOUND …`) in words.
 */
export function unreachable(error: string | null, url: string): string {
  let host = url;
  try {
    host = new URL(url).hostname;
  } catch {
    // the address as given
  }
  const code = /^([A-Z_][A-Z0-9_]+):/.exec(error ?? '')?.[1] ?? '';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_FAIL' || code === 'EAI_NODATA') return `No website was found at ${host}: check the destination URL for typing mistakes.`;
  if (code === 'ECONNREFUSED') return `${host} refused the connection: no website is running at this address right now.`;
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'HPE_INVALID_CONSTANT' || code.startsWith('HPE_')) return `${host} closed the connection without sending a page.`;
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return `${host} cannot be reached from this server's network.`;
  if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)) return `${host} has no valid HTTPS certificate, so its page was not read.`;
  return `The destination did not send a page (${host} could not be reached).`;
}

/** Fetches `url` (guarded, bounded) and reads its card; never throws. */
export async function fetchPageCard(url: string, options: CardOptions): Promise<CardResult> {
  const { timeoutMs, maxBytes, maxRedirects } = { ...CARD_DEFAULTS, ...options };
  const late: CardResult = { ok: false, reason: `The destination did not answer within ${timeoutMs / 1000} seconds.`, refused: false };
  // One clock for every hop: a page still arriving when it runs out is given up.
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), timeoutMs);
  try {
    let current = url;
    for (let hop = 0; hop <= maxRedirects; hop++) {
      const answer = await outboundRequest(current, {
        method: 'GET',
        headers: { accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1', 'user-agent': 'WaymarkPreview/1.0 (link preview)' },
        // The request's own limit is a backstop: the shared clock above stops it first.
        timeoutMs: timeoutMs + 1_000,
        maxAnswerBytes: maxBytes,
        allowPrivate: options.allowPrivate,
        resolve: options.resolve,
        signal: stop.signal,
      });
      if (answer.refused) return { ok: false, reason: 'This address is on a private or reserved network: it cannot be fetched.', refused: true };
      if (answer.statusCode === null) return stop.signal.aborted || answer.timedOut ? late : { ok: false, reason: unreachable(answer.error, current), refused: false };
      const status = answer.statusCode;
      const location = answer.headers?.location;
      if (status >= 300 && status < 400 && location) {
        try {
          current = new URL(location, current).href;
        } catch {
          return { ok: false, reason: 'The destination redirects to an invalid address.', refused: false };
        }
        continue;
      }
      if (status < 200 || status >= 300) return { ok: false, reason: `The destination answered ${status}.`, refused: false };
      const type = answer.headers?.['content-type'];
      if (type && !/html|xml/i.test(type)) return { ok: false, reason: 'The destination is not a web page (it sent no HTML).', refused: false };
      let card: PageCard;
      try {
        card = readCard(decoderFor(type).decode(answer.body), current);
      } catch (err) {
        if (!(err instanceof UnreadablePage)) throw err;
        return { ok: false, reason: `Could not read the page: it has ${err.message} (at most ${READ_LIMITS.nodes.toLocaleString('en')} elements, ${READ_LIMITS.depth.toLocaleString('en')} deep).`, refused: false, unreadable: true };
      }
      return { ok: true, card, url: current, truncated: answer.truncated };
    }
    return { ok: false, reason: `The destination redirects more than ${maxRedirects} times.`, refused: false };
  } finally {
    clearTimeout(timer);
  }
}
