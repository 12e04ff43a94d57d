/**
 * The redirect handler's response writers: an HTML page, a `/.well-known/…` file, a redirect
 * without a click, and the answer of a visit that leads to the destination (frame page or
 * redirect). Each writes the whole answer with one `writeHead` and one `end`; every `Location`
 * passes `headerSafe` (../web-url.ts) just before it.
 */
import type { ServerResponse } from 'node:http';
import type { Decision, DomainInfo, LinkInfo } from './decide.js';
import { notFoundPage, rewritePage, type HtmlPage } from './pages.js';
import { headerSafe } from '../web-url.js';
import type { Req } from './handler-types.js';

export const NOINDEX: Readonly<Record<string, string>> = Object.freeze({ 'x-robots-tag': 'noindex' });
export const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});
// A plain array and an indexed loop below: with a frozen one and `for…of`, a bot's redirect cost
// ~0.1 µs more (bench/redirect/handler-cost.ts: 0.74-0.81 against 0.67-0.71 µs; 0.73-0.75 after).
const NO_COOKIES: readonly string[] = [];

export function sendHtml(res: ServerResponse, status: number, page: HtmlPage, headers: Readonly<Record<string, string | string[]>> = NO_HEADERS) {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(page.html),
    'cache-control': 'no-store',
    ...page.headers,
    ...headers,
  });
  res.end(page.html);
}

/** `/.well-known/…` files of the domain: JSON as configured, 404 when unset. */
export function wellKnown(r: Req, domain: DomainInfo | null) {
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

/**
 * A redirect that records nothing (a domain's not-found, expired or placeholder URL), and, with
 * `cookies`, the redirect of a visit (`answer`). A flat [name, value, …] list: node writes it as
 * given, without the per-call object shapes a headers object costs (measured in the redirect
 * profile). Browsers must come back for every visit (a cached 301 would skip the click), hence
 * no-store.
 */
export function untrackedRedirect(res: ServerResponse, status: number, target: string, noindex: boolean, cookies: readonly string[] = NO_COOKIES) {
  const raw = ['location', headerSafe(target), 'cache-control', 'no-store', 'content-length', '0'];
  if (noindex) raw.push('x-robots-tag', 'noindex');
  for (let i = 0; i < cookies.length; i++) raw.push('set-cookie', cookies[i]!);
  res.writeHead(status, raw);
  res.end();
}

/** The answer of a visit that leads to the destination: the frame page or the redirect. */
export function answer(res: ServerResponse, decision: Extract<Decision, { kind: 'rewrite' | 'redirect' }>, robots: Record<string, string>, cookies: string[], l: LinkInfo, finalUrl: string) {
  if (decision.kind === 'rewrite') {
    const headers: Record<string, string | string[]> = { ...robots };
    if (cookies.length) headers['set-cookie'] = cookies;
    sendHtml(res, 200, rewritePage(l, finalUrl), headers);
  } else untrackedRedirect(res, decision.status, finalUrl, decision.noindex, cookies);
}
