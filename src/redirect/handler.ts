/**
 * The redirect server: answers every request whose Host is not an API host, before Fastify sees
 * it (app.ts). On a cache hit the whole answer is synchronous — parse host and path, `decide`,
 * write the response — and the raw click (events/log/raw-click.ts) is pushed to the in-memory batch
 * after the response was handed to the socket. No zod, no framework, no I/O before answering,
 * and no lookup the click row needs but the answer does not (geo, referer, UTM: the event log's
 * thread adds those, events/log/enrich.ts).
 *
 * One request's failure never reaches the process: every step (the synchronous one, and each
 * continuation after a cache load, a domain load, a form read or the geo data) runs guarded. A
 * throw is a bug: logged through `onError`, answered 500 for that request only. A failed load is
 * the database: 503. Every `Location` comes from the cache in its percent-encoded form
 * (../web-url.ts) or from `buildFinalUrl`, and is checked once more before `writeHead`.
 *
 * This file reads the request (host, method, path, key) and hands it on; the steps after it live
 * beside it: lookup.ts (link, form, domain), visit.ts (decide and answer, the click),
 * password-check.ts, answers.ts (response writers), guard.ts (failures), handler-types.ts.
 *
 * @example
 * const handler = createRedirectHandler(deps);
 * http.createServer((req, res) => { if (!handler.tryHandle(req, res)) api(req, res); });
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Decision } from './decide.js';
import { notFoundPage } from './pages.js';
import { lookupKey } from '../links/keys.js';
import { readHeaders, withoutPort } from './request.js';
import { memoize } from '../memo.js';
import { NOINDEX, sendHtml, wellKnown } from './answers.js';
import { createRequestGuard } from './guard.js';
import { createLookupChain } from './lookup.js';
import { createVisitResponder } from './visit.js';
import type { Req, RedirectHandlerDeps, RedirectStats } from './handler-types.js';

export type { RedirectHandlerDeps, RedirectStats } from './handler-types.js';

/** A Host header read once: lower-cased, without `www.`, without the port, and whether it is an API host. */
interface HostInfo {
  host: string;
  hostname: string;
  api: boolean;
}
/** Distinct Host headers remembered; past this the memo starts over (any client chooses the header). */
const HOST_MEMO_MAX = 1024;

export function createRedirectHandler(deps: RedirectHandlerDeps) {
  const apiHosts = new Set(deps.apiHosts.map((h) => h.toLowerCase()));
  const stats: RedirectStats = { humanAnswers: 0, clicksRecorded: 0, botAnswers: 0, notFound: 0, expired: 0, passwordPages: 0, untracked: 0 };
  // A server sees few Host values, each on every request: parsed once. Parsing it every time
  // measured 1-1.5 µs a request in the redirect benchmark's server (BENCHMARKS.md).
  const hostInfo = memoize((rawHost: string): HostInfo => {
    let host = rawHost.toLowerCase();
    if (host.startsWith('www.')) host = host.slice(4);
    const hostname = withoutPort(host);
    return { host, hostname, api: apiHosts.has(hostname) };
  }, HOST_MEMO_MAX);
  const guard = createRequestGuard(deps);
  const { failed } = guard;
  const { withDomain, withLink } = createLookupChain(deps, guard, createVisitResponder(deps, stats, guard));

  /** Handles the request when its Host is a short-link domain; returns false for API hosts. */
  function tryHandle(req: IncomingMessage, res: ServerResponse): boolean {
    try {
      return handle(req, res);
    } catch (err) {
      // Reading the request itself failed (the steps after it are guarded on their own).
      failed({ res, host: String(req.headers.host), path: String(req.url) }, 500, err);
      return true;
    }
  }

  function handle(req: IncomingMessage, res: ServerResponse): boolean {
    const headers = readHeaders(req);
    const rawHost = headers.host;
    if (!rawHost) return false;
    const { host, hostname, api } = hostInfo(rawHost);
    if (api) return false;

    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const query = q < 0 ? '' : url.slice(q + 1);
    const r: Req = { req, res, headers, host, hostname, method, path, query, isRoot: false };
    try {
      if (method !== 'GET' && method !== 'HEAD' && method !== 'POST') {
        res.writeHead(405, { allow: 'GET, HEAD, POST', 'content-length': 0 });
        res.end();
        return true;
      }
      if (path.startsWith('/.well-known/')) {
        withDomain(r, null, (domain) => wellKnown(r, domain));
        return true;
      }
      let key = path.slice(1);
      try {
        if (key.includes('%')) key = decodeURIComponent(key);
      } catch {
        sendHtml(res, 404, notFoundPage(host), NOINDEX);
        return true;
      }
      // No key holds a NUL (the API refuses it), and PostgreSQL cannot even compare one: not found.
      if (key.includes('\u0000')) {
        sendHtml(res, 404, notFoundPage(host), NOINDEX);
        return true;
      }
      while (key.endsWith('/')) key = key.slice(0, -1);
      r.isRoot = key === '';
      // A key never holds `@` (links/keys.ts): `/@handle` is a bio page, as a chosen root is.
      if (deps.bio !== undefined && method !== 'POST' && (r.isRoot || key.charCodeAt(0) === 64)) {
        const otherwise = () => withLink(r, '_root');
        if (deps.bio.serve(req, res, host, r.isRoot ? null : key.slice(1), otherwise)) return true;
      }
      // Keys are stored punycoded and compared lower-cased (links/keys.ts).
      withLink(r, r.isRoot ? '_root' : lookupKey(key));
    } catch (err) {
      failed(r, 500, err);
    }
    return true;
  }

  return { tryHandle, stats: (): RedirectStats => ({ ...stats }) };
}

export type RedirectHandler = ReturnType<typeof createRedirectHandler>;
export type { Decision };
