/**
 * The redirect's answer once the link (and the domain, when needed) is known: `decide`, then the
 * page, the password page, the bot's proxy page or the redirect, with the visit's cookies; for a
 * new human click, the raw click (events/log/raw-click.ts) pushed to the writer after the answer
 * was handed to the socket (or the answer held while the writer catches up, click-writer.ts).
 */
import { decide, type DecisionInput, type DomainInfo, type LinkInfo } from './decide.js';
import { buildFinalUrl, possibleDestinations, queryHasNoTrack } from './final-url.js';
import type { RingRow } from './ring-buffer.js';
import { geoFromHeaders } from '../visitors/geo.js';
import { expiredPage, notFoundPage, passwordPage, proxyPage } from './pages.js';
import { passwordCookieName, passwordProof } from './password.js';
import { readCookie } from './request.js';
import { memoize } from '../memo.js';
import { NOINDEX, NO_HEADERS, answer, sendHtml, untrackedRedirect } from './answers.js';
import { createAgentTable, UNINTERNED } from './agents.js';
import { attemptKey, createPasswordCheck } from './password-check.js';
import type { RequestGuard } from './guard.js';
import type { Req, RedirectHandlerDeps, RedirectStats } from './handler-types.js';

/** Distinct user-agent and Referer values shared by the clicks waiting for their flush. */
const INTERN_MAX = 10_000;
const QR_TRIGGER = /(?:^|&)qr=1(?:&|$)/;
const SAFE_COOKIE_PATH = /^\/[A-Za-z0-9\-._~%!$&'()*+=:@/]*$/;
/** The cookies of most visits: none (shared, never written to). */
const NO_COOKIES: string[] = [];

/** The `respond` step of the handler; counts its answers in `stats`. */
export function createVisitResponder(deps: RedirectHandlerDeps, stats: RedirectStats, guard: RequestGuard) {
  const prefix = deps.clickIdParam.replace(/_id$/, '');
  const testCookieName = `${prefix}_test_url`;
  const secure = deps.secureCookies ? '; Secure' : '';
  const clickIdMaxAge = deps.clickIdCookieSeconds ?? 3600;
  const checkPassword = createPasswordCheck(prefix, deps);
  const { continueAfter, failed } = guard;
  // A click waits in memory for its flush, long enough for the garbage collector to copy it
  // (twice, when it outlives two scavenges). Its user agent and Referer are fresh strings on every
  // request, though few distinct values recur: the click keeps the first instance of each instead.
  const internHeader = memoize((value: string) => value, INTERN_MAX);
  const scratch: RingRow = { id: '', timestamp: 0, linkId: '', workspaceId: '', domain: '', key: '', url: '', ip: '', ua: '', referer: '', qr: false, geo: null, part1: 0, part2: 0, agent: 0, agentEpoch: 0 };
  // Each distinct user agent classified once and known by a small id (agents.ts): the bot
  // decision, the OS and the repeat-visit check read the id, not the string.
  const agents = createAgentTable({ classify: deps.classify, ...deps.agentTable });
  // decide()'s input, filled per request (decide keeps nothing of it): no object per visit.
  const visitor = { bot: false, os: '', country: null as string | null };
  const input: DecisionInput = { link: null, domain: null, isRoot: false, now: 0, visitor, password: 'none', testCookie: null, random: 0 };
  const finalUrlOptions = { clickIdParam: deps.clickIdParam, clickId: null as string | null, viaKey: null as string | null };

  function respond(r: Req, link: LinkInfo | null, domain: DomainInfo | null, now: number, posted: string | undefined) {
    const { req, res } = r;
    if (link?.geo && !deps.targetingGeo.isReady()) {
      // The first visit of a geo-targeted link loads the country data (~8 MB, tens of ms).
      continueAfter(r, deps.targetingGeo.ready(), 503, () => respond(r, link, domain, now, posted));
      return;
    }
    const ua = r.headers.userAgent;
    const agent = agents.id(ua);
    const bot = agents.bot(agent) || r.method === 'HEAD';
    const ip = deps.clientAddress(req.socket.remoteAddress, r.headers.forwardedFor);
    const geo = link?.geo ? deps.targetingGeo.locate(ip, req.headers) : null;
    const password = link?.password ? checkPassword(r, link, ip, now, posted) : 'none';
    const testCookie = link?.testVariants ? readCookie(r.headers.cookie, testCookieName) : null;

    visitor.bot = bot;
    visitor.os = agents.traits(agent).os;
    visitor.country = geo && geo.country !== 'Unknown' ? geo.country : null;
    input.link = link;
    input.domain = domain;
    input.isRoot = r.isRoot;
    input.now = now;
    input.password = password;
    input.testCookie = testCookie;
    input.random = link?.testVariants ? deps.random() : 0;
    const decision = decide(input);
    input.link = input.domain = null;

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
        if (decision.status === 429 && link) headers['retry-after'] = String(deps.limiter.blocked(attemptKey(ip, link.id), now));
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
      untrackedRedirect(res, decision.status, decision.target, decision.noindex);
      return;
    }

    // A visit that leads to the destination: click id, final URL, cookies, then the click.
    const l = link!;
    const record = !bot && !(r.query !== '' && queryHasNoTrack(r.query)) && !r.headers.noTrack;
    let clickId: string | null = null;
    let isNew = false;
    if (record) {
      // By the agent's key, not its id: the key stays when the agent table starts over.
      isNew = deps.dedup.check(l.id, ip, agents.key(agent), now);
      clickId = deps.dedup.clickId();
    }
    finalUrlOptions.clickId = l.trackConversion ? clickId : null;
    finalUrlOptions.viaKey = l.partner ? l.key : null;
    const finalUrl = buildFinalUrl(decision.target, r.query, finalUrlOptions);

    let cookies: string[] = NO_COOKIES;
    // The cookie path is the link's own path; anything that could break the header falls back to `/`.
    const cookiePath = r.isRoot || !SAFE_COOKIE_PATH.test(r.path) ? '/' : r.path;
    if (l.trackConversion && clickId !== null) {
      cookies = [`${deps.clickIdParam}=${clickId}; Path=${cookiePath}; Max-Age=${clickIdMaxAge}; SameSite=Lax${secure}`];
    }
    if (decision.testUrl !== null) {
      if (cookies === NO_COOKIES) cookies = [];
      cookies.push(`${testCookieName}=${encodeURIComponent(decision.testUrl)}; Path=${cookiePath}; Max-Age=604800; SameSite=Lax${secure}`);
    }
    if (posted !== undefined && password === 'ok') {
      if (cookies === NO_COOKIES) cookies = [];
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
    const row = copies ? scratch : ({} as RingRow);
    row.id = clickId;
    // The click id's parts and the agent as integers: the ring reads them, not the text.
    row.part1 = deps.dedup.part1;
    row.part2 = deps.dedup.part2;
    row.agent = agent;
    row.agentEpoch = agents.epoch;
    row.timestamp = now;
    row.linkId = l.id;
    row.workspaceId = l.workspaceId;
    row.domain = l.domain;
    row.key = l.key;
    row.url = finalUrl;
    row.ip = ip;
    // Kept in memory until stored as objects, a click keeps the first instance of each header value.
    row.ua = copies || agent === UNINTERNED ? ua : agents.value(agent);
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

  return respond;
}
