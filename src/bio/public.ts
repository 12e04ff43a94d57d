/**
 * Serves bio pages on short-link hosts, asked by the redirect handler before it looks a key up:
 * `/@<handle>` always (no key holds `@`), and a domain's root when a page was chosen for it.
 * Rendered pages and each host's root choice are kept for `ttlMs` (default 10 s, and dropped at
 * once when this process saves a page), so a root visit of a domain without a bio page costs one
 * map lookup. Views are counted in memory and added to `bio_pages.views` every `flushMs`, off
 * the request path.
 *
 * @example
 * const pages = createBioPublic(store, { onError });
 * if (pages.serve(req, res, host, null, () => redirectRoot())) return;
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { boundedCache } from '../bounded-cache.js';
import { toBioPage } from './schema.js';
import type { BioStore } from './store.js';
import { renderBioNotFound, renderBioPage } from './page.js';

export interface BioPublicOptions {
  ttlMs?: number;
  flushMs?: number;
  now?: () => number;
  onError?: (err: unknown, context: string) => void;
}

interface Rendered {
  pageId: string;
  html: string;
  bytes: number;
}
interface Entry {
  until: number;
  rendered: Rendered | null;
}

const SECURITY_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  // Taps carry the page as their referer (origin only to another site).
  'referrer-policy': 'strict-origin-when-cross-origin',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
};

export function createBioPublic(store: BioStore, options: BioPublicOptions = {}) {
  const ttlMs = options.ttlMs ?? 10_000;
  const now = options.now ?? Date.now;
  const onError = options.onError ?? (() => {});
  const cache = boundedCache<string, Entry>(10_000);
  const pending = new Map<string, Promise<Entry>>();
  let views = new Map<string, number>();
  let flushing: Promise<void> = Promise.resolve();

  const hostsOf = (host: string): string[] => {
    const bare = host.replace(/:\d+$/, '');
    return bare === host ? [host] : [host, bare];
  };

  async function load(host: string, handleKey: string | null): Promise<Entry> {
    const hosts = hostsOf(host);
    const row = handleKey === null ? await store.findRoot(hosts) : await store.findByHandle(hosts, handleKey);
    if (!row) return { until: now() + ttlMs, rendered: null };
    const page = toBioPage(row, []);
    const links = await store.pageLinks(row.workspace_id, row.id);
    const html = renderBioPage({ page, links });
    return { until: now() + ttlMs, rendered: { pageId: row.id, html, bytes: Buffer.byteLength(html) } };
  }

  function entryFor(cacheKey: string, host: string, handleKey: string | null): Entry | Promise<Entry> {
    const hit = cache.get(cacheKey);
    if (hit && hit.until > now()) return hit;
    let p = pending.get(cacheKey);
    if (!p) {
      p = load(host, handleKey).then(
        (e) => {
          cache.set(cacheKey, e);
          pending.delete(cacheKey);
          return e;
        },
        (err) => {
          pending.delete(cacheKey);
          throw err;
        },
      );
      pending.set(cacheKey, p);
    }
    return p;
  }

  function send(req: IncomingMessage, res: ServerResponse, r: Rendered | null) {
    if (!r) {
      const html = renderBioNotFound();
      res.writeHead(404, { ...SECURITY_HEADERS, 'content-length': Buffer.byteLength(html), 'x-robots-tag': 'noindex' });
      res.end(req.method === 'HEAD' ? undefined : html);
      return;
    }
    res.writeHead(200, { ...SECURITY_HEADERS, 'content-length': r.bytes });
    res.end(req.method === 'HEAD' ? undefined : r.html);
    if (req.method !== 'HEAD') views.set(r.pageId, (views.get(r.pageId) ?? 0) + 1);
  }

  function failed(res: ServerResponse, err: unknown) {
    onError(err, 'bio page failed');
    if (res.headersSent) return res.destroy();
    res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
    res.end('Service unavailable');
  }

  /**
   * Answers `/@handle` (`handle` given: always taken, 404 page when unknown) or a root visit
   * (`handle` null): taken when the host has a root page; otherwise `otherwise` runs (at once,
   * returning false, when the choice is cached; after the load, returning true, when not).
   */
  function serve(req: IncomingMessage, res: ServerResponse, host: string, handle: string | null, otherwise: () => void): boolean {
    const handleKey = handle === null ? null : handle.toLowerCase();
    const entry = entryFor(handleKey === null ? `${host}\n` : `${host}\n@${handleKey}`, host, handleKey);
    if (!(entry instanceof Promise)) {
      if (entry.rendered === null && handleKey === null) return false;
      send(req, res, entry.rendered);
      return true;
    }
    entry.then(
      (e) => {
        try {
          if (e.rendered === null && handleKey === null) otherwise();
          else send(req, res, e.rendered);
        } catch (err) {
          failed(res, err);
        }
      },
      (err) => failed(res, err),
    );
    return true;
  }

  /** Adds the views counted so far to the pages' rows. */
  function flushViews(): Promise<void> {
    flushing = flushing.then(async () => {
      if (views.size === 0) return;
      const batch = views;
      views = new Map();
      try {
        await store.addViews(batch);
      } catch (err) {
        for (const [id, n] of batch) views.set(id, (views.get(id) ?? 0) + n);
        onError(err, 'bio page views not stored; kept for the next flush');
      }
    });
    return flushing;
  }

  const timer = setInterval(() => void flushViews(), options.flushMs ?? 2_000);
  timer.unref();

  return {
    serve,
    flushViews,
    /** Drops every cached page and root choice (a page of this process was saved). */
    invalidate: () => cache.clear(),
    lifecycle: {
      async close() {
        clearInterval(timer);
        await flushViews();
      },
    },
  };
}

export type BioPublic = ReturnType<typeof createBioPublic>;
