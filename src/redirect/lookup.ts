/**
 * The redirect's lookup chain for one request: the link (from the cache, or loaded), the posted
 * password form when a protected link is POSTed, and the domain when the answer needs it (no
 * link, disabled, no URL, or expired without an expired URL), then `respond`. A cache hit stays
 * synchronous; each load continues through the request guard (a failed load answers 503).
 */
import type { DomainInfo, LinkInfo } from './decide.js';
import { readForm } from './request.js';
import type { RequestGuard } from './guard.js';
import type { Req, RedirectHandlerDeps } from './handler-types.js';

/** The step after the lookups: answers the visit (visit.ts). */
export type Respond = (r: Req, link: LinkInfo | null, domain: DomainInfo | null, now: number, posted: string | undefined) => void;

export function needsDomain(link: LinkInfo | null, now: number): boolean {
  return link === null || link.disabledAt !== null || !link.url || (link.expiresAt !== null && link.expiresAt < now && !link.expiredUrl);
}

/** `deps` is read on each request, as the handler's own deps are. */
export function createLookupChain(deps: Pick<RedirectHandlerDeps, 'cache' | 'now'>, guard: RequestGuard, respond: Respond) {
  const { continueAfter } = guard;

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

  return { withDomain, withLink };
}
