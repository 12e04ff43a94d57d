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
 * @example
 * const handler = createRedirectHandler(deps);
 * http.createServer((req, res) => { if (!handler.tryHandle(req, res)) api(req, res); });
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { decide, type Decision, type DomainInfo, type LinkInfo, type PasswordState } from './decide.js';
import { buildFinalUrl, possibleDestinations, queryHasNoTrack } from './final-url.js';
import type { LinkCache } from './link-cache.js';
import type { ClickWriter } from './click-writer.js';
import type { RawClick } from '../events/index.js';
import { geoFromHeaders, type GeoLocator } from '../visitors/geo.js';
import type { UaTraits } from '../visitors/visitor.js';
import { errorPage, expiredPage, notFoundPage, passwordPage, proxyPage, rewritePage, type HtmlPage } from './pages.js';
import { passwordCookieName, passwordMatches, passwordProof, type AttemptLimiter } from './password.js';
import type { ClickDeduplicator } from './dedup.js';
import { lookupKey } from '../links/keys.js';
import { readCookie, readForm, readHeaders, withoutPort, type RedirectHeaders } from './request.js';
import { memoize } from '../memo.js';
import { headerSafe } from '../web-url.js';

export interface RedirectHandlerDeps {
  apiHosts: readonly string[];
  /** The client's address from the socket's peer and `X-Forwarded-For` (http/client-address.ts, decided once at start). */
  clientAddress: (peer: string | undefined, forwardedFor: string | undefined) => string;
  clickIdParam: string;
  /** Adds `Secure` to the cookies we set (short links served over https). */
  secureCookies: boolean;
  /**
   * Max-Age of the click-id cookie, seconds (`CLICK_ID_COOKIE_DAYS`; default 3,600). The cookie
   * lets a page on the short link's own domain read the click id for a later lead
   * (docs/privacy.md); absent, one hour, as the published service sets it.
   */
  clickIdCookieSeconds?: number;
  cache: LinkCache;
  writer: ClickWriter;
  classify: (ua: string) => UaTraits;
  /** Country lookups for geo-targeted links (loaded on the first such visit). */
  targetingGeo: GeoLocator;
  /** Take the visitor's location from CDN headers (`TRUST_GEO_HEADERS`). */
  trustGeoHeaders: boolean;
  dedup: ClickDeduplicator;
  limiter: AttemptLimiter;
  now: () => number;
  random: () => number;
  onError: (err: unknown, context: string) => void;
  /**
   * Pages served before a key is tried (src/bio/public.ts): `/@handle`, and a root when the
   * host has a page there; `otherwise` continues with the root link.
   */
  bio?: { serve(req: IncomingMessage, res: ServerResponse, host: string, handle: string | null, otherwise: () => void): boolean };
}

/** Counters for the benchmark and for operators. */
export interface RedirectStats {
  /** Tracked answers (redirect to a destination, or a rewrite frame) to human visitors. */
  humanAnswers: number;
  /** Of those, the visits recorded as new clicks (the rest were repeats within the hour or `dub-no-track`). */
  clicksRecorded: number;
  /** Answers to bots and HEAD requests. */
  botAnswers: number;
  /** Not found or disabled: the 404 page or the domain's not-found URL. */
  notFound: number;
  /** Expired: the 410 page or an expired URL. */
  expired: number;
  /** Password pages (asking, a wrong password, too many tries). */
  passwordPages: number;
  /** Redirects that record nothing: a domain's placeholder. */
  untracked: number;
}

interface Req {
  req: IncomingMessage;
  res: ServerResponse;
  headers: RedirectHeaders;
  host: string;
  hostname: string;
  method: string;
  path: string;
  query: string;
  isRoot: boolean;
}

/** A Host header read once: lower-cased, without `www.`, without the port, and whether it is an API host. */
interface HostInfo {
  host: string;
  hostname: string;
  api: boolean;
}
/** Distinct Host headers remembered; past this the memo starts over (any client chooses the header). */
const HOST_MEMO_MAX = 1024;
/** Distinct user-agent and Referer values shared by the clicks waiting for their flush. */
const INTERN_MAX = 10_000;

const NOINDEX: Readonly<Record<string, string>> = Object.freeze({ 'x-robots-tag': 'noindex' });
const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});
const QR_TRIGGER = /(?:^|&)qr=1(?:&|$)/;
const SAFE_COOKIE_PATH = /^\/[A-Za-z0-9\-._~%!$&'()*+=:@/]*$/;

export function createRedirectHandler(deps: RedirectHandlerDeps) {
  const apiHosts = new Set(deps.apiHosts.map((h) => h.toLowerCase()));
  const prefix = deps.clickIdParam.replace(/_id$/, '');
  const testCookieName = `${prefix}_test_url`;
  const secure = deps.secureCookies ? '; Secure' : '';
  const clickIdMaxAge = deps.clickIdCookieSeconds ?? 3600;
  const stats: RedirectStats = { humanAnswers: 0, clicksRecorded: 0, botAnswers: 0, notFound: 0, expired: 0, passwordPages: 0, untracked: 0 };
  // A server sees few Host values, each on every request: parsed once. Parsing it every time
  // measured 1-1.5 µs a request in the redirect benchmark's server (BENCHMARKS.md).
  const hostInfo = memoize((rawHost: string): HostInfo => {
    let host = rawHost.toLowerCase();
    if (host.startsWith('www.')) host = host.slice(4);
    const hostname = withoutPort(host);
    return { host, hostname, api: apiHosts.has(hostname) };
  }, HOST_MEMO_MAX);
  // A click waits in memory for its flush, long enough for the garbage collector to copy it
  // (twice, when it outlives two scavenges). Its user agent and Referer are fresh strings on every
  // request, though few distinct values recur: the click keeps the first instance of each instead.
  const internHeader = memoize((value: string) => value, INTERN_MAX);
  const scratch: RawClick = { id: '', timestamp: 0, linkId: '', workspaceId: '', domain: '', key: '', url: '', ip: '', ua: '', referer: '', qr: false, geo: null };

  function sendHtml(res: ServerResponse, status: number, page: HtmlPage, headers: Readonly<Record<string, string | string[]>> = NO_HEADERS) {
    res.writeHead(status, {
      'content-type': 'text/html; charset=utf-8',
      'content-length': Buffer.byteLength(page.html),
      'cache-control': 'no-store',
      ...page.headers,
      ...headers,
    });
    res.end(page.html);
  }

  /**
   * Answers a request that could not be completed, and logs why: 503 when the database could not
   * be read, 500 for a bug, 400 for a request body that could not be read. Never throws.
   */
  function failed(r: Pick<Req, 'res' | 'host' | 'path'>, status: 400 | 500 | 503, err: unknown) {
    try {
      deps.onError(err, `redirect ${r.host}${r.path} failed (${status})`);
    } catch {
      // A logger that throws must not take the request's answer with it.
    }
    const { res } = r;
    if (res.writableEnded) return; // answered already; the failure came after (e.g. the click)
    if (!res.headersSent) {
      try {
        sendHtml(res, status, errorPage(status), NOINDEX);
        return;
      } catch {
        // Fall through: the connection is the only thing left to close.
      }
    }
    res.destroy();
  }

  /**
   * Continues request `r` once `pending` settles: `step` runs guarded (a throw answers 500 for this
   * request only, instead of an unhandled rejection that ends the process), a rejection answers
   * `failStatus`. Every asynchronous branch of a request goes through here.
   */
  function continueAfter<T>(r: Req, pending: Promise<T>, failStatus: 400 | 503, step: (value: T) => void) {
    pending.then(
      (value) => {
        try {
          step(value);
        } catch (err) {
          failed(r, 500, err);
        }
      },
      (err) => failed(r, failStatus, err),
    );
  }

  /** `/.well-known/…` files of the domain: JSON as configured, 404 when unset. */
  function wellKnown(r: Req, domain: DomainInfo | null) {
    const file = r.path.slice('/.well-known/'.length);
    const body = file === 'apple-app-site-association' ? domain?.appleAppSiteAssociation : file === 'assetlinks.json' ? domain?.assetLinks : null;
    if (!body) {
      sendHtml(r.res, 404, notFoundPage(r.host), NOINDEX);
      return;
    }
    r.res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      'cache-control': 'public, max-age=300',
      'x-content-type-options': 'nosniff',
    });
    r.res.end(body);
  }

  function needsDomain(link: LinkInfo | null, now: number): boolean {
    return link === null || link.disabledAt !== null || !link.url || (link.expiresAt !== null && link.expiresAt < now && !link.expiredUrl);
  }

  function withDomain(r: Req, link: LinkInfo | null, then: (domain: DomainInfo | null) => void) {
    const cached = deps.cache.peekDomain(r.host);
    if (cached !== undefined) return then(cached);
    continueAfter(r, deps.cache.loadDomain(r.host, r.hostname), 503, then);
  }

  function withLink(r: Req, keyLower: string) {
    const cached = deps.cache.peek(r.host, keyLower);
    if (cached !== undefined) return afterLink(r, cached);
    continueAfter(r, deps.cache.load(r.host, r.hostname, keyLower), 503, (link) => afterLink(r, link));
  }

  function afterLink(r: Req, link: LinkInfo | null) {
    const now = deps.now();
    if (r.method === 'POST' && link?.password) {
      continueAfter(r, readForm(r.req), 400, (form) => withDomainIfNeeded(r, link, now, form.get('password') ?? ''));
      return;
    }
    withDomainIfNeeded(r, link, now, undefined);
  }

  function withDomainIfNeeded(r: Req, link: LinkInfo | null, now: number, posted: string | undefined) {
    if (needsDomain(link, now)) withDomain(r, link, (domain) => respond(r, link, domain, now, posted));
    else respond(r, link, null, now, posted);
  }

  function checkPassword(r: Req, link: LinkInfo, ip: string, now: number, posted: string | undefined): PasswordState {
    const password = link.password!;
    const limitKey = `${ip}\n${link.id}`;
    const cookie = readCookie(r.headers.cookie, passwordCookieName(prefix, link.id));
    // A valid proof cookie always passes; guesses are counted and limited.
    if (cookie !== null && passwordMatches(link.id, password, { proof: cookie })) return 'ok';
    let offered = posted;
    if (offered === undefined && r.query.includes('pw=')) offered = new URLSearchParams(r.query).get('pw') ?? undefined;
    if (offered === undefined) return 'none';
    if (deps.limiter.blocked(limitKey, now) > 0) return 'rate_limited';
    if (passwordMatches(link.id, password, { password: offered })) {
      deps.limiter.reset(limitKey);
      return 'ok';
    }
    deps.limiter.fail(limitKey, now);
    return 'wrong';
  }

  function respond(r: Req, link: LinkInfo | null, domain: DomainInfo | null, now: number, posted: string | undefined) {
    const { req, res } = r;
    if (link?.geo && !deps.targetingGeo.isReady()) {
      // The first visit of a geo-targeted link loads the country data (~8 MB, tens of ms).
      continueAfter(r, deps.targetingGeo.ready(), 503, () => respond(r, link, domain, now, posted));
      return;
    }
    const ua = r.headers.userAgent;
    const traits = deps.classify(ua);
    const bot = traits.bot || r.method === 'HEAD';
    const ip = deps.clientAddress(req.socket.remoteAddress, r.headers.forwardedFor);
    const geo = link?.geo ? deps.targetingGeo.locate(ip, req.headers) : null;
    const password = link?.password ? checkPassword(r, link, ip, now, posted) : 'none';
    const testCookie = link?.testVariants ? readCookie(r.headers.cookie, testCookieName) : null;

    const decision = decide({
      link,
      domain,
      isRoot: r.isRoot,
      now,
      visitor: { bot, os: traits.os, country: geo && geo.country !== 'Unknown' ? geo.country : null },
      password,
      testCookie,
      random: link?.testVariants ? deps.random() : 0,
    });

    const robots: Record<string, string> = decision.noindex ? NOINDEX : NO_HEADERS;
    switch (decision.kind) {
      case 'page':
        if (decision.page === 'not_found') stats.notFound++;
        else stats.expired++;
        sendHtml(res, decision.status, decision.page === 'not_found' ? notFoundPage(r.host) : expiredPage(), robots);
        return;
      case 'password': {
        stats.passwordPages++;
        const headers: Record<string, string> = { ...robots };
        if (decision.status === 429 && link) headers['retry-after'] = String(deps.limiter.blocked(`${ip}\n${link.id}`, now));
        const action = r.path + (r.query ? `?${r.query}` : '');
        sendHtml(res, decision.status, passwordPage(action, decision.error, possibleDestinations(link!, r.query)), headers);
        return;
      }
      case 'proxy':
        stats.botAnswers++;
        sendHtml(res, 200, proxyPage(link!, link!.url), robots);
        return;
    }

    if (decision.kind === 'redirect' && !decision.track) {
      if (decision.reason === 'not_found') stats.notFound++;
      else if (decision.reason === 'expired') stats.expired++;
      else stats.untracked++;
      const raw = ['location', headerSafe(decision.target), 'cache-control', 'no-store', 'content-length', '0'];
      if (decision.noindex) raw.push('x-robots-tag', 'noindex');
      res.writeHead(decision.status, raw);
      res.end();
      return;
    }

    // A visit that leads to the destination: click id, final URL, cookies, then the click.
    const l = link!;
    const record = !bot && !(r.query !== '' && queryHasNoTrack(r.query)) && !r.headers.noTrack;
    let clickId: string | null = null;
    let isNew = false;
    if (record) {
      const seen = deps.dedup.seen(l.id, ip, ua, now);
      clickId = seen.clickId;
      isNew = seen.isNew;
    }
    const target = decision.target;
    const finalUrl = buildFinalUrl(target, r.query, {
      clickIdParam: deps.clickIdParam,
      clickId: l.trackConversion ? clickId : null,
      viaKey: l.partner ? l.key : null,
    });

    const cookies: string[] = [];
    // The cookie path is the link's own path; anything that could break the header falls back to `/`.
    const cookiePath = r.isRoot || !SAFE_COOKIE_PATH.test(r.path) ? '/' : r.path;
    if (l.trackConversion && clickId !== null) {
      cookies.push(`${deps.clickIdParam}=${clickId}; Path=${cookiePath}; Max-Age=${clickIdMaxAge}; SameSite=Lax${secure}`);
    }
    if (decision.testUrl !== null) {
      cookies.push(`${testCookieName}=${encodeURIComponent(decision.testUrl)}; Path=${cookiePath}; Max-Age=604800; SameSite=Lax${secure}`);
    }
    if (posted !== undefined && password === 'ok') {
      cookies.push(`${passwordCookieName(prefix, l.id)}=${passwordProof(l.id, l.password!)}; Path=${cookiePath}; Max-Age=86400; HttpOnly; SameSite=Lax${secure}`);
    }
    // Past the click writer's lag bound, a new click's answer waits until the writer has caught up
    // (click-writer.ts): what a crash can lose stays bounded. Bots and repeats are never held.
    const hold = isNew && clickId !== null && !bot && deps.writer.holding;
    if (!hold) answer(res, decision, robots, cookies, l, finalUrl);

    if (bot) {
      stats.botAnswers++;
      return;
    }
    stats.humanAnswers++;
    if (!isNew || clickId === null) return;
    stats.clicksRecorded++;
    // A writer that copies the row (the click ring) gets the same object every time: no object per click.
    const copies = deps.writer.copiesRows;
    const row = copies ? scratch : ({} as RawClick);
    row.id = clickId;
    row.timestamp = now;
    row.linkId = l.id;
    row.workspaceId = l.workspaceId;
    row.domain = l.domain;
    row.key = l.key;
    row.url = finalUrl;
    row.ip = ip;
    // Kept in memory until stored as objects, a click keeps the first instance of each header value.
    row.ua = copies ? ua : internHeader(ua);
    row.referer = r.headers.referer ? (copies ? r.headers.referer : internHeader(r.headers.referer)) : '';
    row.qr = r.query !== '' && QR_TRIGGER.test(r.query);
    row.geo = deps.trustGeoHeaders ? geoFromHeaders(req.headers) : null;
    deps.writer.push(row);
    if (hold) {
      // Sent later, from the writer's side: guarded like every other continuation of a request.
      deps.writer.holdAnswer(() => {
        try {
          answer(res, decision, robots, cookies, l, finalUrl);
        } catch (err) {
          failed(r, 500, err);
        }
      });
    }
  }

  /** The answer of a visit that leads to the destination: the frame page or the redirect. */
  function answer(res: ServerResponse, decision: Extract<Decision, { kind: 'rewrite' | 'redirect' }>, robots: Record<string, string>, cookies: string[], l: LinkInfo, finalUrl: string) {
    if (decision.kind === 'rewrite') {
      const headers: Record<string, string | string[]> = { ...robots };
      if (cookies.length) headers['set-cookie'] = cookies;
      sendHtml(res, 200, rewritePage(l, finalUrl), headers);
    } else {
      // A flat [name, value, …] list: node writes it as given, without the per-call object
      // shapes a headers object costs (measured in the redirect profile). Browsers must come back
      // for every visit (a cached 301 would skip the click), hence no-store.
      const raw = ['location', headerSafe(finalUrl), 'cache-control', 'no-store', 'content-length', '0'];
      if (decision.noindex) raw.push('x-robots-tag', 'noindex');
      for (const cookie of cookies) raw.push('set-cookie', cookie);
      res.writeHead(decision.status, raw);
      res.end();
    }
  }

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
