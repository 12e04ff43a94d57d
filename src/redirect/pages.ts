/**
 * The few HTML pages a short domain serves: not found, expired, password form, the preview page
 * for bots on `proxy` links and the frame of `rewrite` links. Every value that comes from a link
 * or a request is HTML-escaped, and only http(s) URLs are ever embedded (no `javascript:` frames).
 */
import type { LinkInfo } from './decide.js';

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

function page(title: string, body: string, head = ''): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>${head}<style>${STYLE}</style></head>` +
    `<body><main>${body}</main></body></html>`
  );
}

/** 404: no such link (or a disabled one) on this domain. */
export function notFoundPage(host: string): string {
  return page('Link not found', `<h1>Link not found</h1><p>There is no link at this address on ${escapeHtml(host)}.</p>`);
}

/** 410: the link expired and neither it nor its domain names a place to go. */
export function expiredPage(): string {
  return page('Link expired', '<h1>This link has expired</h1><p>The owner of this link set it to stop working.</p>');
}

/** The password form; it posts back to the same URL (`action` is the request's path and query). */
export function passwordPage(action: string, error: null | 'wrong' | 'rate_limited'): string {
  const message =
    error === 'wrong'
      ? '<p class="error" role="alert">Incorrect password. Please try again.</p>'
      : error === 'rate_limited'
        ? '<p class="error" role="alert">Too many attempts. Please wait a few minutes and try again.</p>'
        : '';
  return page(
    'Password required',
    `<h1>Password required</h1><p>This link is password protected. Enter the password to continue.</p>${message}` +
      `<form method="post" action="${escapeHtml(action)}"><input type="password" name="password" aria-label="Password" autocomplete="current-password" required autofocus>` +
      `<button type="submit">Continue</button></form>`,
  );
}

/** Preview page for bots on `proxy` links: the link's own Open Graph and Twitter tags. */
export function proxyPage(link: LinkInfo, destination: string): string {
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
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>${meta.join('')}</head>` +
    `<body><h1>${escapeHtml(title)}</h1>${link.description ? `<p>${escapeHtml(link.description)}</p>` : ''}` +
    `<p><a href="${escapeHtml(target)}">${escapeHtml(target)}</a></p></body></html>`
  );
}

/** `rewrite` links: the destination in a full-window frame, under the short link's address. */
export function rewritePage(link: LinkInfo, destination: string): string {
  const target = safeHttpUrl(destination);
  const title = link.title ?? new URL(target === 'about:blank' ? 'about:blank' : target).hostname;
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<title>${escapeHtml(title)}</title>${link.description ? `<meta name="description" content="${escapeHtml(link.description)}">` : ''}` +
    `<style>html,body{margin:0;height:100%;overflow:hidden}iframe{border:0;width:100%;height:100%}</style></head>` +
    `<body><iframe src="${escapeHtml(target)}" title="${escapeHtml(title)}" allow="fullscreen; clipboard-write"></iframe></body></html>`
  );
}
