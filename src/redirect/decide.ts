/**
 * What a visit of a short link turns into: a pure function of the resolved link, its domain, the
 * visitor and the clock, in the order of issue 4 / behaviour.md §5.2. No I/O and no clock of its
 * own, so every branch is a table row in `decide.test.ts`.
 *
 * @example
 * const d = decide({ link, domain, isRoot: false, now: Date.now(), visitor, password: 'none', testCookie: null, random: Math.random() });
 * if (d.kind === 'redirect') res.writeHead(d.status, { location: d.target });
 */

/** The parts of a link row the redirect needs, parsed once when the link enters the cache. */
export interface LinkInfo {
  id: string;
  workspaceId: string;
  domain: string;
  key: string;
  /** Destination; empty for a root link without one. */
  url: string;
  expiresAt: number | null;
  expiredUrl: string | null;
  disabledAt: number | null;
  password: string | null;
  proxy: boolean;
  rewrite: boolean;
  doIndex: boolean;
  title: string | null;
  description: string | null;
  image: string | null;
  video: string | null;
  ios: string | null;
  android: string | null;
  /** Country code (upper case) → URL. */
  geo: Readonly<Record<string, string>> | null;
  testVariants: readonly TestVariant[] | null;
  testStartedAt: number | null;
  testCompletedAt: number | null;
  /**
   * What the completed test settled on, stored once per completion by ab-tests/decider.ts and
   * read with the link (null: not settled for the current `testCompletedAt`, or no test).
   */
  testSettled: SettledTest | null;
  /** Link `trackConversion` or the workspace's `conversionEnabled`: pass the click id on. */
  trackConversion: boolean;
  /** Partner links (program + partner) get `via=<key>` on the destination (behaviour.md §5.4). */
  partner: boolean;
}

export interface TestVariant {
  url: string;
  percentage: number;
}

/** A completed test's route: every visit to the winner's URL, a split as while it ran, or the link's own URL. */
export type SettledTest = { route: 'winner'; url: string } | { route: 'split' } | { route: 'stop' };

/** The parts of a domain row the redirect needs. */
export interface DomainInfo {
  slug: string;
  placeholder: string | null;
  expiredUrl: string | null;
  notFoundUrl: string | null;
  /** JSON text, served as is. */
  assetLinks: string | null;
  appleAppSiteAssociation: string | null;
}

/** What the decision needs to know about the visitor. */
export interface VisitorTraits {
  bot: boolean;
  /** Operating system name as ua-parser-js spells it (`iOS`, `Android`, …) or `Unknown`. */
  os: string;
  /** ISO 3166-1 alpha-2 (upper case), or null when unknown. */
  country: string | null;
}

/**
 * Result of checking the visitor's password proof, computed by the caller (constant-time compare,
 * rate limit): `none` (nothing offered), `ok`, `wrong`, `rate_limited`.
 */
export type PasswordState = 'none' | 'ok' | 'wrong' | 'rate_limited';

export interface DecisionInput {
  link: LinkInfo | null;
  domain: DomainInfo | null;
  /** The path was `/`: the domain's `_root` link, answered with 301. */
  isRoot: boolean;
  now: number;
  visitor: VisitorTraits;
  password: PasswordState;
  /** Value of the sticky A/B cookie, if the visitor has one. */
  testCookie: string | null;
  /** Uniform in [0, 1): the A/B draw, passed in so the function stays pure. */
  random: number;
}

/** Why a redirect goes where it goes. */
export type RedirectReason =
  | 'not_found'
  | 'expired'
  | 'placeholder'
  | 'ios'
  | 'android'
  | 'geo'
  | 'test'
  | 'destination';

export type Decision =
  /** 404 / 410 page (no click). */
  | { kind: 'page'; page: 'not_found' | 'expired'; status: 404 | 410; noindex: true }
  /**
   * A redirect. `track` means it leads to the link's destination: the query is merged onto it
   * (behaviour.md §5.4) and a human visit is recorded as a click.
   */
  | {
      kind: 'redirect';
      status: 301 | 302;
      target: string;
      reason: RedirectReason;
      track: boolean;
      noindex: boolean;
      /** A/B variant to remember in the sticky cookie. */
      testUrl: string | null;
    }
  /** HTML password form; `error` tells the visitor why they see it again. */
  | { kind: 'password'; status: 200 | 403 | 429; error: null | 'wrong' | 'rate_limited'; noindex: true }
  /** Bots on a `proxy` link get the link's own preview tags (no click). */
  | { kind: 'proxy'; status: 200; noindex: boolean }
  /** `rewrite` links: a page framing the destination (a click). */
  | { kind: 'rewrite'; status: 200; target: string; noindex: boolean; testUrl: string | null };

/**
 * The A/B variant a visit goes to (`sticky`: remembered in the visitor's cookie), or null for the
 * link's own destination. While the test runs, a weighted pick; once `testCompletedAt` passed,
 * what the test settled on (docs/ab-tests.md): the winner for every visit, a split as before,
 * or nothing (stopped). A completed test not settled yet (the decider's next pass, within a
 * minute) keeps splitting: no visit is sent by a verdict that was not computed.
 */
export function testTarget(link: LinkInfo, now: number, cookie: string | null, random: number): { url: string; sticky: boolean } | null {
  const variants = link.testVariants;
  if (!variants || variants.length === 0 || link.testCompletedAt === null) return null;
  if (link.testStartedAt !== null && link.testStartedAt > now) return null;
  if (link.testCompletedAt <= now) {
    const settled = link.testSettled;
    if (settled?.route === 'winner') return { url: settled.url, sticky: false };
    if (settled?.route === 'stop') return null;
  }
  return { url: pickVariant(variants, cookie, random), sticky: true };
}

/**
 * Weighted pick over the variants' percentages as given (not normalised, behaviour.md §5.4);
 * a cookie naming one of the variants keeps the visitor on it.
 */
export function pickVariant(variants: readonly TestVariant[], cookie: string | null, random: number): string {
  if (cookie !== null) {
    for (const v of variants) if (v.url === cookie) return v.url;
  }
  let total = 0;
  for (const v of variants) total += Math.max(0, v.percentage);
  if (total <= 0) return variants[0]!.url;
  let point = random * total;
  for (const v of variants) {
    point -= Math.max(0, v.percentage);
    if (point < 0) return v.url;
  }
  return variants[variants.length - 1]!.url;
}

export function decide(input: DecisionInput): Decision {
  const { link, domain, isRoot, now, visitor } = input;

  // 1. Not found or disabled: the domain's not-found URL, else a 404 page. The root of a domain
  //    without a root link goes to the domain's placeholder first.
  if (link === null || link.disabledAt !== null) {
    if (link === null && isRoot && domain?.placeholder) {
      return redirect(302, domain.placeholder, 'placeholder', false, true, null);
    }
    if (domain?.notFoundUrl) return redirect(302, domain.notFoundUrl, 'not_found', false, true, null);
    return { kind: 'page', page: 'not_found', status: 404, noindex: true };
  }

  const noindex = !link.doIndex;

  // 2. Expired: the link's expired URL, else the domain's, else a 410 page.
  if (link.expiresAt !== null && link.expiresAt < now) {
    const to = link.expiredUrl || domain?.expiredUrl;
    if (to) return redirect(302, to, 'expired', false, noindex, null);
    return { kind: 'page', page: 'expired', status: 410, noindex: true };
  }

  // 3. Password: nothing happens (no click) until the right password was given.
  if (link.password) {
    if (input.password === 'wrong') return { kind: 'password', status: 403, error: 'wrong', noindex: true };
    if (input.password === 'rate_limited') return { kind: 'password', status: 429, error: 'rate_limited', noindex: true };
    if (input.password !== 'ok') return { kind: 'password', status: 200, error: null, noindex: true };
  }

  // 4. Bots on a proxy link read the link's own preview tags.
  if (visitor.bot && link.proxy) return { kind: 'proxy', status: 200, noindex };

  // A root link without a destination shows the domain's placeholder (behaviour.md §5.2 #10).
  if (!link.url) {
    if (domain?.placeholder) return redirect(302, domain.placeholder, 'placeholder', true, noindex, null);
    if (domain?.notFoundUrl) return redirect(302, domain.notFoundUrl, 'not_found', false, true, null);
    return { kind: 'page', page: 'not_found', status: 404, noindex: true };
  }

  // The A/B variant replaces the destination for the rewrite frame and the plain redirect; device
  // and geo targets still win over it (behaviour.md §5.2 #3).
  const target = testTarget(link, now, input.testCookie, input.random);
  const variant = target?.url ?? null;
  const sticky = target?.sticky ? variant : null;
  const destination = variant ?? link.url;

  // 5. Rewrite: frame the destination.
  if (link.rewrite) return { kind: 'rewrite', status: 200, target: destination, noindex, testUrl: sticky };

  const status = isRoot ? 301 : 302;
  // 6. Device targets.
  if (link.ios && visitor.os === 'iOS') return redirect(status, link.ios, 'ios', true, noindex, null);
  if (link.android && visitor.os === 'Android') return redirect(status, link.android, 'android', true, noindex, null);
  // 7. Geo targets.
  if (link.geo && visitor.country !== null) {
    const to = link.geo[visitor.country];
    if (to) return redirect(status, to, 'geo', true, noindex, null);
  }
  // 8. A/B test, 9. destination.
  if (variant !== null) return redirect(status, variant, 'test', true, noindex, sticky);
  return redirect(status, destination, 'destination', true, noindex, null);
}

function redirect(
  status: 301 | 302,
  target: string,
  reason: RedirectReason,
  track: boolean,
  noindex: boolean,
  testUrl: string | null,
): Decision {
  return { kind: 'redirect', status, target, reason, track, noindex, testUrl };
}
