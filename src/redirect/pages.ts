/**
 * The few HTML pages a short domain serves: not found, expired, password form, the preview page
 * for bots on `proxy` links, the frame of `rewrite` links, and error pages. Every value that comes
 * from a link or a request is HTML-escaped, and only http(s) URLs are ever embedded (no
 * `javascript:` frames).
 *
 * Each page comes with its security headers (`src/http/page-headers.ts`): a Content-Security-Policy that
 * allows no script, only this module's own stylesheet (by hash), no framing by other sites, and
 * no form or frame target but the ones the page needs.
 *
 * @example
 * const page = notFoundPage('go.example.com');
 * res.writeHead(404, { 'content-type': 'text/html; charset=utf-8', ...page.headers });
 * res.end(page.html);
 */
import type { LinkInfo } from './decide.js';
import { pageHeaders, styleSource, type PageHeaders } from '../http/page-headers.js';

/** A rendered page and the security headers it must be sent with. */
export interface HtmlPage {
  html: string;
  headers: PageHeaders;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML content and double- or single-quoted attributes. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** The URL if it is http(s), else `about:blank`: pages must not run a link's script URL. */
export function safeHttpUrl(value: string): string {
  return /^https?:\/\//i.test(value) ? value : 'about:blank';
}

const STYLE =
  'body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;background:#fafafa;color:#111;display:flex;min-height:100vh;margin:0;align-items:center;justify-content:center}' +
  'main{max-width:28rem;padding:2rem;text-align:center}h1{font-size:1.4rem;margin:0 0 .5rem}p{color:#555}' +
  'input,button{font:inherit;padding:.6rem .8rem;border-radius:.4rem;border:1px solid #ccc;margin:.25rem 0;width:100%;box-sizing:border-box}' +
  'button{background:#111;color:#fff;border-color:#111;cursor:pointer}.error{color:#b00020}';

const STYLE_SOURCE = styleSource(STYLE);
/** Headers of the pages that show text only. */
const TEXT_PAGE_HEADERS = pageHeaders({ style: STYLE_SOURCE });

function page(title: string, body: string): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>` +
    `<body><main>${body}</main></body></html>`
  );
}

/** 404: no such link (or a disabled one) on this domain. */
export function notFoundPage(host: string): HtmlPage {
  return { html: page('Link not found', `<h1>Link not found</h1><p>There is no link at this address on ${escapeHtml(host)}.</p>`), headers: TEXT_PAGE_HEADERS };
}

const EXPIRED_PAGE: HtmlPage = {
  html: page('Link expired', '<h1>This link has expired</h1><p>The owner of this link set it to stop working.</p>'),
  headers: TEXT_PAGE_HEADERS,
};

/** 410: the link expired and neither it nor its domain names a place to go. */
export function expiredPage(): HtmlPage {
  return EXPIRED_PAGE;
}

const ERROR_PAGES: Readonly<Record<400 | 500 | 503, HtmlPage>> = {
  400: { html: page('Bad request', '<h1>Bad request</h1><p>This request could not be read. Please try again.</p>'), headers: TEXT_PAGE_HEADERS },
  500: { html: page('Error', '<h1>Something went wrong</h1><p>This link could not be opened. Please try again later.</p>'), headers: TEXT_PAGE_HEADERS },
  503: { html: page('Unavailable', '<h1>Temporarily unavailable</h1><p>This link is temporarily unavailable. Please try again.</p>'), headers: TEXT_PAGE_HEADERS },
};

/** The page of a request that failed: 400 (unreadable request), 500 (a bug), 503 (database unreachable). */
export function errorPage(status: 400 | 500 | 503): HtmlPage {
  return ERROR_PAGES[status];
}

/**
 * The password form; it posts back to the same URL (`action` is the request's path and query).
 * `targets` are the URLs the right password may lead to: browsers apply `form-action` to the
 * redirect that answers the post too (Chrome does), so each target's origin is allowed besides
 * the page's own.
 */
export function passwordPage(action: string, error: null | 'wrong' | 'rate_limited', targets: readonly string[]): HtmlPage {
  const message =
    error === 'wrong'
      ? '<p class="error" role="alert">Incorrect password. Please try again.</p>'
      : error === 'rate_limited'
        ? '<p class="error" role="alert">Too many attempts. Please wait a few minutes and try again.</p>'
        : '';
  const html = page(
    'Password required',
    `<h1>Password required</h1><p>This link is password protected. Enter the password to continue.</p>${message}` +
      `<form method="post" action="${escapeHtml(action)}"><input type="password" name="password" aria-label="Password" autocomplete="current-password" required autofocus>` +
      `<button type="submit">Continue</button></form>`,
  );
  return { html, headers: pageHeaders({ style: STYLE_SOURCE, formTargets: targets }) };
}

/** The preview page has no style and links nowhere a policy must allow (meta refresh is not governed by CSP). */
const PROXY_PAGE_HEADERS = pageHeaders({});

/** Preview page for bots on `proxy` links: the link's own Open Graph and Twitter tags. */
export function proxyPage(link: LinkInfo, destination: string): HtmlPage {
  const target = safeHttpUrl(destination);
  const title = link.title ?? '';
  const meta: string[] = [];
  const add = (attr: 'property' | 'name', key: string, value: string | null) => {
    if (value) meta.push(`<meta ${attr}="${key}" content="${escapeHtml(value)}">`);
  };
  add('property', 'og:title', link.title);
  add('property', 'og:description', link.description);
  add('property', 'og:image', link.image);
  add('property', 'og:video', link.video);
  add('property', 'og:url', target === 'about:blank' ? null : target);
  add('name', 'twitter:card', link.image ? 'summary_large_image' : 'summary');
  add('name', 'twitter:title', link.title);
  add('name', 'twitter:description', link.description);
  add('name', 'twitter:image', link.image);
  if (link.description) meta.push(`<meta name="description" content="${escapeHtml(link.description)}">`);
  meta.push(`<meta http-equiv="refresh" content="0; url=${escapeHtml(target)}">`);
  const html =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>${meta.join('')}</head>` +
    `<body><h1>${escapeHtml(title)}</h1>${link.description ? `<p>${escapeHtml(link.description)}</p>` : ''}` +
    `<p><a href="${escapeHtml(target)}">${escapeHtml(target)}</a></p></body></html>`;
  return { html, headers: PROXY_PAGE_HEADERS };
}

const REWRITE_STYLE = 'html,body{margin:0;height:100%;overflow:hidden}iframe{border:0;width:100%;height:100%}';
const REWRITE_STYLE_SOURCE = styleSource(REWRITE_STYLE);

/**
 * `rewrite` links: the destination in a full-window frame, under the short link's address. The
 * page itself may not be framed by others (`frame-ancestors 'none'`); it may frame the
 * destination's origin and nothing else.
 */
export function rewritePage(link: LinkInfo, destination: string): HtmlPage {
  const target = safeHttpUrl(destination);
  const title = link.title ?? new URL(target).hostname;
  const html =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<title>${escapeHtml(title)}</title>${link.description ? `<meta name="description" content="${escapeHtml(link.description)}">` : ''}` +
    `<style>${REWRITE_STYLE}</style></head>` +
    `<body><iframe src="${escapeHtml(target)}" title="${escapeHtml(title)}" allow="fullscreen; clipboard-write"></iframe></body></html>`;
  return { html, headers: pageHeaders({ style: REWRITE_STYLE_SOURCE, frameTargets: target === 'about:blank' ? [] : [target] }) };
}
