/**
 * The redirect handler's shared types: what `createRedirectHandler` is given (its deps), the
 * counters it keeps, and one request as its steps pass it along (host and path read once).
 * Types only, so every module of the handler can import them without an import cycle;
 * handler.ts re-exports the public ones.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LinkCache } from './link-cache.js';
import type { ClickWriter } from './click-writer.js';
import type { GeoLocator } from '../visitors/geo.js';
import type { UaTraits } from '../visitors/visitor.js';
import type { AttemptLimiter } from './password.js';
import type { ClickDeduplicator } from './dedup.js';
import type { RedirectHeaders } from './request.js';

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
  /** User-agent traits; called once per distinct agent (agents.ts keeps them by id). */
  classify: (ua: string) => UaTraits;
  /** Bounds of the agent table (agents.ts defaults). */
  agentTable?: { maxEntries?: number; maxChars?: number };
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

/** One request on its way through the handler's steps. */
export interface Req {
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
