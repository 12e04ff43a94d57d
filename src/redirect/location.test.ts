/**
 * Every field that can end up in a `Location` header, against a set of hostile values, through the
 * real API and a real listening server: refused values are a 422 naming the field; accepted ones
 * are stored as sent and go out as visible ASCII bytes that parse to the same URL; rows written
 * straight into the database (as an older version could have stored them) answer without a crash;
 * and the server keeps serving throughout.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, TEST_ENGINE, type TestApp } from '../test-support/harness.js';
import { ACCEPTED_HOSTILE_URLS, REFUSED_HOSTILE_URLS } from '../test-support/hostile-urls.js';
import { insertDomain, insertLink, rawHit, type RawHitResponse } from './testing.js';
import { WEB_URL_PROBLEMS, locationUrl } from '../web-url.js';
import { escapeHtml } from './pages.js';

const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const ANDROID = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36';
const TWITTERBOT = 'Twitterbot/1.0';
const OK_URL = 'https://example.com/ok';
const HOUR = 3_600_000;
const PAST = new Date(Date.now() - HOUR).toISOString();
const FUTURE = new Date(Date.now() + 24 * HOUR).toISOString();
const LINK_DOMAIN = 'links.hostile.test';

/** Refused values the API can receive (`""` means "none" or "missing destination" there). */
const REFUSED = REFUSED_HOSTILE_URLS.filter(([value]) => value !== '');

let t: TestApp;
let base: string;
const processFailures: unknown[] = [];
/** An error that escaped to the process: recorded, and the connections closed so the waiting request fails instead of hanging. */
const onProcessFailure = (err: unknown) => {
  processFailures.push(err);
  t.app.server.closeAllConnections();
};

before(async () => {
  process.on('unhandledRejection', onProcessFailure);
  process.on('uncaughtException', onProcessFailure);
  t = await createTestApp({ env: { TRUST_GEO_HEADERS: 'true' } });
  base = await t.listen();
  await t.modules.redirect.geoReady();
  const domain = await api('POST', '/domains', { slug: LINK_DOMAIN });
  assert.equal(domain.status, 201, JSON.stringify(domain.body));
});

after(async () => {
  // The process is still serving: an API request and a redirect after everything above.
  assert.equal((await fetch(`${base}/health`)).status, 200);
  await t.close();
  process.off('unhandledRejection', onProcessFailure);
  process.off('uncaughtException', onProcessFailure);
  assert.deepEqual(processFailures, [], 'no request reached the process');
});

/** A JSON request to the API over HTTP (the listening server, not inject). */
async function api(method: string, path: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`, { method, headers: { ...t.headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

function visit(host: string, path: string, options: { ua?: string; headers?: Record<string, string> } = {}): Promise<RawHitResponse> {
  return rawHit(base, path, { host, headers: { ...(options.ua ? { 'User-Agent': options.ua } : {}), ...options.headers } });
}

/** The Location as sent: visible ASCII bytes only, returned as a string. */
function visibleAsciiLocation(res: RawHitResponse, what: string): string {
  assert.ok(res.location, `${what}: a Location (status ${res.status}, ${res.body.toString('utf8').slice(0, 120)})`);
  const bad = [...res.location].filter((b) => b < 0x21 || b > 0x7e);
  assert.deepEqual(bad, [], `${what}: Location bytes ${res.location.toString('latin1')}`);
  return res.location.toString('latin1');
}

/** The same URL, ignoring the click id the redirect adds for conversion tracking. */
function withoutClickId(url: string): string {
  const u = new URL(url);
  u.searchParams.delete('waymark_id');
  return u.href;
}

/** Every UTF-8 byte percent-encoded (encodeURIComponent throws on a lone surrogate). */
function percentEncodeAll(value: string): string {
  return [...Buffer.from(value, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
}

function refusedMessage(path: string, label: string, problem: keyof typeof WEB_URL_PROBLEMS): RegExp {
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^custom: ${escape(path)}: ${escape(label)}: ${escape(WEB_URL_PROBLEMS[problem])}$`);
}

interface LinkField {
  /** The field as an error message names it. */
  path: string;
  label: string;
  body(value: string): Record<string, unknown>;
  /** The value as the API answers it. */
  answered(link: any): unknown;
  visit: { ua?: string; headers?: Record<string, string> };
  /** The redirect adds a click id (conversion tracking is on). */
  clickId?: boolean;
}

const LINK_FIELDS: LinkField[] = [
  { path: 'url', label: 'Invalid destination URL', body: (v) => ({ url: v }), answered: (l) => l.url, visit: {} },
  { path: 'expiredUrl', label: 'Invalid URL', body: (v) => ({ url: OK_URL, expiresAt: PAST, expiredUrl: v }), answered: (l) => l.expiredUrl, visit: {} },
  { path: 'ios', label: 'Invalid URL', body: (v) => ({ url: OK_URL, ios: v }), answered: (l) => l.ios, visit: { ua: IPHONE } },
  { path: 'android', label: 'Invalid URL', body: (v) => ({ url: OK_URL, android: v }), answered: (l) => l.android, visit: { ua: ANDROID } },
  { path: 'geo.DE', label: 'Invalid URL', body: (v) => ({ url: OK_URL, geo: { DE: v } }), answered: (l) => l.geo.DE, visit: { headers: { 'CF-IPCountry': 'DE' } } },
  {
    path: 'testVariants[0].url',
    label: 'Invalid URL',
    body: (v) => ({
      url: OK_URL,
      trackConversion: true,
      testVariants: [
        { url: v, percentage: 50 },
        { url: v, percentage: 50 },
      ],
      testStartedAt: PAST,
      testCompletedAt: FUTURE,
    }),
    answered: (l) => l.testVariants[0].url,
    visit: {},
    clickId: true,
  },
];

/**
 * A NUL character never reaches the schema: every JSON body holding one is refused with 400 before
 * any route runs (http/input-guards.ts). True when that is what happened to `value`.
 */
function refusedAtTheEdge(res: { status: number; body: { error: { code: string; message: string } } }, value: string): boolean {
  if (!value.includes('\u0000')) return false;
  assert.equal(res.status, 400, `${JSON.stringify(value)}: ${JSON.stringify(res.body)}`);
  assert.equal(res.body.error.code, 'bad_request');
  assert.match(res.body.error.message, /NUL/);
  return true;
}

for (const [f, field] of LINK_FIELDS.entries()) {
  test(`link ${field.path}: hostile values refused with a 422 naming the field, accepted ones sent as encoded ASCII`, async () => {
    for (const [value, problem] of REFUSED) {
      const res = await api('POST', '/links', { domain: LINK_DOMAIN, ...field.body(value) });
      if (refusedAtTheEdge(res, value)) continue;
      assert.equal(res.status, 422, `${field.path} ${JSON.stringify(value)}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, 'unprocessable_entity');
      assert.match(res.body.error.message, refusedMessage(field.path, field.label, problem), JSON.stringify(value));
    }
    for (const [v, value] of ACCEPTED_HOSTILE_URLS.entries()) {
      const key = `f${f}-v${v}`;
      const res = await api('POST', '/links', { domain: LINK_DOMAIN, key, ...field.body(value) });
      assert.equal(res.status, 200, `${field.path} ${value}: ${JSON.stringify(res.body)}`);
      assert.equal(field.answered(res.body), value, 'stored and answered as sent');
      const location = visibleAsciiLocation(await visit(LINK_DOMAIN, `/${key}`, field.visit), `${field.path} ${value}`);
      if (field.clickId) assert.equal(withoutClickId(location), withoutClickId(value));
      else assert.equal(new URL(location).href, new URL(value).href);
    }
  });
}

test('domain placeholder, notFoundUrl and expiredUrl: hostile values refused with a 422 naming the field, accepted ones sent as encoded ASCII', async () => {
  for (const field of ['placeholder', 'notFoundUrl', 'expiredUrl']) {
    for (const [i, [value, problem]] of REFUSED.entries()) {
      const res = await api('POST', '/domains', { slug: `refused-${i}.hostile.test`, [field]: value });
      if (refusedAtTheEdge(res, value)) continue;
      assert.equal(res.status, 422, `${field} ${JSON.stringify(value)}: ${JSON.stringify(res.body)}`);
      assert.match(res.body.error.message, refusedMessage(field, 'Invalid URL', problem), JSON.stringify(value));
    }
  }
  for (const [v, value] of ACCEPTED_HOSTILE_URLS.entries()) {
    const slug = `d${v}.hostile.test`;
    const created = await api('POST', '/domains', { slug, placeholder: value, notFoundUrl: value, expiredUrl: value });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.deepEqual([created.body.placeholder, created.body.notFoundUrl, created.body.expiredUrl], [value, value, value], 'stored and answered as sent');
    assert.equal((await api('POST', '/links', { domain: slug, key: 'gone', url: OK_URL, expiresAt: PAST })).status, 200);
    for (const [path, what] of [['/', 'placeholder'], ['/missing', 'notFoundUrl'], ['/gone', 'expiredUrl']] as const) {
      const location = visibleAsciiLocation(await visit(slug, path), `${what} ${value}`);
      assert.equal(new URL(location).href, new URL(value).href, `${what} ${value}`);
    }
  }
});

test('image and video: the same rule (422 naming the field); accepted ones shown encoded on the preview page', async () => {
  for (const field of ['image', 'video']) {
    for (const [value, problem] of REFUSED) {
      const res = await api('POST', '/links', { domain: LINK_DOMAIN, url: OK_URL, [field]: value });
      if (refusedAtTheEdge(res, value)) continue;
      assert.equal(res.status, 422, `${field} ${JSON.stringify(value)}`);
      // A data: image is checked as one (its own message); every other refused image is refused as a URL.
      const message =
        field === 'image' && value.startsWith('data:') ? /^custom: image: Invalid image format/ : refusedMessage(field, field === 'image' ? 'Invalid image URL' : 'Invalid URL', problem);
      assert.match(res.body.error.message, message, JSON.stringify(value));
    }
  }
  for (const [v, value] of ACCEPTED_HOSTILE_URLS.entries()) {
    const key = `preview-${v}`;
    const res = await api('POST', '/links', { domain: LINK_DOMAIN, key, url: OK_URL, proxy: true, image: value, video: value });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual([res.body.image, res.body.video], [value, value]);
    const page = (await visit(LINK_DOMAIN, `/${key}`, { ua: TWITTERBOT })).body.toString('utf8');
    assert.ok(page.includes(`<meta property="og:image" content="${escapeHtml(locationUrl(value)!)}">`), page);
    assert.ok(page.includes(`<meta property="og:video" content="${escapeHtml(locationUrl(value)!)}">`), page);
  }
});

test('query merging and redir_url: whatever the visitor sends, the Location is encoded ASCII', async () => {
  assert.equal((await api('POST', '/links', { domain: LINK_DOMAIN, key: 'merge', url: 'https://example.com/東京?a=1', trackConversion: true })).status, 200);
  const merged = visibleAsciiLocation(await visit(LINK_DOMAIN, '/merge?q=%E6%9D%B1%E4%BA%AC&c=%00%7F&l=%E9&s=a%20b+c&p=%zz&a=%F0%9F%98%80'), 'merged query');
  const url = new URL(merged);
  assert.equal(url.pathname, '/%E6%9D%B1%E4%BA%AC');
  assert.deepEqual(
    ['q', 'c', 'l', 's', 'p', 'a'].map((n) => url.searchParams.get(n)),
    ['東京', '\u0000\u007f', '\ufffd', 'a b c', '%zz', '😀'],
  );
  assert.match(url.searchParams.get('waymark_id')!, /^\w+$/);

  for (const value of [...ACCEPTED_HOSTILE_URLS, ...REFUSED.map(([v]) => v)]) {
    const location = visibleAsciiLocation(await visit(LINK_DOMAIN, `/merge?redir_url=${percentEncodeAll(value)}`), `redir_url ${JSON.stringify(value)}`);
    if (ACCEPTED_HOSTILE_URLS.includes(value)) assert.equal(withoutClickId(location), withoutClickId(value));
  }
});

test('rows an older version could have stored: accepted values go out encoded, refused ones count as not set', async () => {
  const db = t.database.db;
  const visits: { host: string; path: string; ua?: string; headers?: Record<string, string>; expect: 'location' | number; value: string }[] = [];
  // A lone surrogate cannot be stored: both engines write UTF-8, which turns it into U+FFFD.
  // PostgreSQL text cannot hold NUL at all.
  const unstorable = TEST_ENGINE === 'postgres' ? /[\uD800-\uDFFF\u0000]/u : /[\uD800-\uDFFF]/u;
  const storable = REFUSED_HOSTILE_URLS.map(([v]) => v).filter((v) => !unstorable.test(v));
  const values = [...ACCEPTED_HOSTILE_URLS, ...storable];
  for (const [v, value] of values.entries()) {
    const accepted = ACCEPTED_HOSTILE_URLS.includes(value);
    const d = `old${v}.hostile.test`;
    await insertDomain(db, t.workspaceId, { slug: d, placeholder: value, not_found_url: value, expired_url: value });
    await insertLink(db, t.workspaceId, { domain: d, key: 'url', url: value });
    await insertLink(db, t.workspaceId, { domain: d, key: 'expired', url: OK_URL, expires_at: Date.now() - HOUR, expired_url: value });
    await insertLink(db, t.workspaceId, { domain: d, key: 'ios', url: OK_URL, ios: value, android: value });
    await insertLink(db, t.workspaceId, { domain: d, key: 'geo', url: OK_URL, geo: JSON.stringify({ DE: value }) });
    const variants = JSON.stringify([
      { url: value, percentage: 50 },
      { url: value, percentage: 50 },
    ]);
    await insertLink(db, t.workspaceId, { domain: d, key: 'ab', url: OK_URL, test_variants: variants, test_started_at: Date.now() - HOUR, test_completed_at: Date.now() + HOUR });
    // Refused values fall back: the link without that URL, the domain without it (404 / 410 pages).
    visits.push(
      { host: d, path: '/', expect: accepted ? 'location' : 404, value },
      { host: d, path: '/missing', expect: accepted ? 'location' : 404, value },
      { host: d, path: '/url', expect: accepted ? 'location' : 404, value },
      { host: d, path: '/expired', expect: accepted ? 'location' : 410, value },
      { host: d, path: '/ios', ua: IPHONE, expect: 'location', value: accepted ? value : OK_URL },
      { host: d, path: '/ios', ua: ANDROID, expect: 'location', value: accepted ? value : OK_URL },
      { host: d, path: '/geo', headers: { 'CF-IPCountry': 'DE' }, expect: 'location', value: accepted ? value : OK_URL },
      { host: d, path: '/ab', expect: 'location', value: accepted ? value : OK_URL },
    );
  }
  for (const v of visits) {
    const what = `${v.host}${v.path} ${JSON.stringify(v.value)}`;
    const res = await visit(v.host, v.path, v);
    if (v.expect === 'location') {
      assert.equal(new URL(visibleAsciiLocation(res, what)).href, new URL(v.value).href, what);
    } else {
      assert.equal(res.status, v.expect, what);
      assert.equal(res.location, null, what);
    }
  }
});
