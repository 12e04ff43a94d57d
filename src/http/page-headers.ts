/**
 * Security headers of the HTML pages a short domain serves (pages.ts):
 *
 * - `Content-Security-Policy`: nothing loads by default and no script runs; the page's own
 *   `<style>` is allowed by its SHA-256 (the stylesheets are constants, so the hash is computed
 *   once at start; `'unsafe-inline'` would also let injected markup style the page, e.g. to read
 *   the password field's state through attribute selectors); no `<base>`; forms may post only where
 *   the page needs (`'none'`, or the password form's targets); no site may frame the page
 *   (`frame-ancestors 'none'`); a rewrite page may frame its destination's origin only.
 * - `X-Content-Type-Options: nosniff`.
 * - `Referrer-Policy: no-referrer`: a page's address may hold `?pw=`, and the destination a visitor
 *   reaches from it must not read it from `Referer`.
 *
 * @example
 * res.writeHead(200, { ...pageHeaders({ style: styleSource(css), formTargets: ['https://example.com/'] }) });
 */
import { createHash } from 'node:crypto';

export type PageHeaders = Readonly<Record<string, string>>;

export interface PagePolicy {
  /** `style-src` sources (from `styleSource`); none means no style at all. */
  style?: string;
  /** URLs a form of the page may lead to (besides the page's own origin): `form-action 'self' …`. */
  formTargets?: readonly string[];
  /** URLs the page frames: `frame-src …`. */
  frameTargets?: readonly string[];
}

/** The CSP source of an inline stylesheet: `'sha256-<base64>'` of its exact text. */
export function styleSource(css: string): string {
  return `'sha256-${createHash('sha256').update(css, 'utf8').digest('base64')}'`;
}

// A host a CSP host-source can spell: DNS names in their ASCII form and IPv4 addresses. An IPv6
// literal (`[::1]`) cannot be written in a policy, and a host the URL parser allows but a policy
// would read as syntax (`*`, `;`, `,`, `'`) must not reach the header.
const SOURCE_HOST = /^[a-z0-9-]+(\.[a-z0-9-]+)*\.?$/;

/**
 * The CSP source that allows a URL: its origin (`https://example.com:8443`), or only its scheme
 * (`https:`) when its host cannot be spelled in a policy. Null for a URL that does not parse or is
 * not http(s).
 */
export function sourceOf(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  return SOURCE_HOST.test(parsed.hostname) ? parsed.origin : parsed.protocol;
}

function sources(urls: readonly string[]): string[] {
  const out = new Set<string>();
  for (const url of urls) {
    const source = sourceOf(url);
    if (source !== null) out.add(source);
  }
  return [...out];
}

/** The headers for a page with this policy (build once for a constant page). */
export function pageHeaders(policy: PagePolicy): PageHeaders {
  const directives = ["default-src 'none'"];
  if (policy.style) directives.push(`style-src ${policy.style}`);
  if (policy.frameTargets) {
    const frames = sources(policy.frameTargets);
    directives.push(`frame-src ${frames.length ? frames.join(' ') : "'none'"}`);
  }
  directives.push("base-uri 'none'");
  directives.push(policy.formTargets ? `form-action ${["'self'", ...sources(policy.formTargets)].join(' ')}` : "form-action 'none'");
  directives.push("frame-ancestors 'none'");
  return Object.freeze({
    'content-security-policy': directives.join('; '),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  });
}
