/**
 * Every branch of the redirect over real HTTP (the raw server answers short-link hosts before
 * Fastify, so `inject()` cannot reach it): status, Location, cookies, headers, escaped pages.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { VERSION } from '../version.js';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { createHash } from 'node:crypto';
import { cspDirectives, hit, insertDomain, insertLink, linkChanged, type HitOptions, type HitResponse, type LinkFields } from './testing.js';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const ANDROID = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36';
const TWITTERBOT = 'Twitterbot/1.0';
const HOUR = 3_600_000;

let t: TestApp;
let base: string;
let ipCounter = 0;

before(async () => {
  t = await createTestApp({ env: { TRUST_PROXY: 'true', TRUST_GEO_HEADERS: 'true' } });
  base = await t.listen();
});
after(() => t.close());

/** A request from a fresh visitor (new IP) unless headers say otherwise. */
function visit(path: string, options: Partial<HitOptions> & { ua?: string } = {}) {
  ipCounter++;
  return hit(base, path, {
    host: options.host ?? 'go.test',
    method: options.method,
    body: options.body,
    headers: { 'user-agent': options.ua ?? CHROME, 'x-forwarded-for': `198.51.100.${ipCounter % 250}`, ...options.headers },
  });
}

const link = (fields: Omit<LinkFields, 'domain'> & { domain?: string }) => insertLink(t.database.db, t.workspaceId, { domain: 'go.test', ...fields });

async function clicksOf(linkId: string): Promise<number> {
  await t.modules.redirect.flushClicks();
  const r = await t.database.db.selectFrom('events').select((eb) => eb.fn.countAll<number>().as('n')).where('link_id', '=', linkId).executeTakeFirstOrThrow();
  return Number(r.n);
}

test('API hosts go to the API; any other host is a short-link domain', async () => {
  const port = new URL(base).port;
  const api = await hit(base, '/health', { host: `localhost:${port}` });
  assert.equal(api.status, 200);
  assert.deepEqual(JSON.parse(api.body), { status: 'ok', version: VERSION });
  assert.equal((await hit(base, '/health', { host: `127.0.0.1:${port}` })).status, 200);
  const short = await visit('/health');
  assert.equal(short.status, 404);
  assert.match(short.headers['content-type'] as string, /text\/html/);
});

test('destination: 302 with Location, noindex, no-store; incoming query merged onto it', async () => {
  await link({ key: 'dest', url: 'https://example.com/landing?a=1&keep=yes' });
  const res = await visit('/dest?a=2&b=3&qr=1');
  assert.equal(res.status, 302);
  assert.equal(res.location, 'https://example.com/landing?a=2&keep=yes&b=3');
  assert.equal(res.headers['x-robots-tag'], 'noindex');
  assert.equal(res.headers['cache-control'], 'no-store');
  assert.deepEqual(res.cookies, []);
  assert.equal((await visit('/DEST')).location, 'https://example.com/landing?a=1&keep=yes', 'keys match without regard to case');
  assert.equal((await visit('/dest/')).status, 302, 'a trailing slash is ignored');
  assert.equal((await visit('/dest', { host: 'www.go.test' })).status, 302, 'www. is stripped from the host');
});

test('Host and path forms: case, www., percent-encoding; each Host read the same way the second time', async () => {
  await link({ key: 'forms', url: 'https://example.com/forms' });
  const port = new URL(base).port;
  // Twice each: the second answer comes from the handler's memo of Host values.
  for (let i = 0; i < 2; i++) {
    assert.equal((await visit('/forms', { host: 'WWW.Go.Test' })).location, 'https://example.com/forms');
    assert.equal((await visit('/f%6Frms')).location, 'https://example.com/forms', 'percent-encoded characters are decoded');
    assert.equal((await visit('/%E0%A4%A')).status, 404, 'a broken escape is a missing link');
    const api = await hit(base, '/health', { host: `LOCALHOST:${port}` });
    assert.equal(api.status, 200, 'an API host in capitals is still the API');
    assert.deepEqual(JSON.parse(api.body), { status: 'ok', version: VERSION });
  }
});

test('doIndex drops the noindex header', async () => {
  await link({ key: 'indexed', url: 'https://example.com/', do_index: 1 });
  const res = await visit('/indexed');
  assert.equal(res.status, 302);
  assert.equal(res.headers['x-robots-tag'], undefined);
});

test('the default short domain keeps its port; a port-less link is found from host:port too', async () => {
  const shortDomain = t.config.shortDomain;
  assert.match(shortDomain, /^wm\.localhost:\d+$/);
  await link({ domain: shortDomain, key: 'local', url: 'https://example.com/local' });
  assert.equal((await visit('/local', { host: shortDomain })).location, 'https://example.com/local');
  await link({ key: 'portless', url: 'https://example.com/portless' });
  assert.equal((await visit('/portless', { host: 'go.test:8080' })).location, 'https://example.com/portless');
});

test('not found: 404 page with the host escaped; the domain notFoundUrl when set', async () => {
  const res = await visit('/missing', { host: 'x<b>y.test' });
  assert.equal(res.status, 404);
  assert.match(res.body, /Link not found/);
  assert.match(res.body, /x&lt;b&gt;y\.test/);
  assert.ok(!res.body.includes('<b>'));
  await insertDomain(t.database.db, t.workspaceId, { slug: 'nf.test', not_found_url: 'https://example.com/not-found' });
  const nf = await visit('/missing', { host: 'nf.test' });
  assert.equal(nf.status, 302);
  assert.equal(nf.location, 'https://example.com/not-found');
});

test('disabled link: as if missing', async () => {
  await link({ key: 'off', url: 'https://example.com/', disabled_at: Date.now() - 1000 });
  assert.equal((await visit('/off')).status, 404);
  await insertDomain(t.database.db, t.workspaceId, { slug: 'nf2.test', not_found_url: 'https://example.com/nf2' });
  await link({ domain: 'nf2.test', key: 'off', url: 'https://example.com/', disabled_at: Date.now() - 1000 });
  assert.equal((await visit('/off', { host: 'nf2.test' })).location, 'https://example.com/nf2');
});

test('expired: link expiredUrl, else domain expiredUrl, else 410 page; no click', async () => {
  const past = Date.now() - HOUR;
  const a = await link({ key: 'exp-a', url: 'https://example.com/', expires_at: past, expired_url: 'https://example.com/link-expired' });
  assert.equal((await visit('/exp-a')).location, 'https://example.com/link-expired');
  await insertDomain(t.database.db, t.workspaceId, { slug: 'exp.test', expired_url: 'https://example.com/domain-expired' });
  await link({ domain: 'exp.test', key: 'b', url: 'https://example.com/', expires_at: past });
  assert.equal((await visit('/b', { host: 'exp.test' })).location, 'https://example.com/domain-expired');
  await link({ key: 'exp-c', url: 'https://example.com/', expires_at: past });
  const gone = await visit('/exp-c');
  assert.equal(gone.status, 410);
  assert.match(gone.body, /expired/);
  assert.equal(await clicksOf(a.id as string), 0);
});

test('password: form, wrong (403), right (302 + proof cookie + click), cookie and ?pw= pass', async () => {
  const l = await link({ key: 'secret', url: 'https://example.com/private', password: 'open sesame' });
  const form = await visit('/secret?x=<y>');
  assert.equal(form.status, 200);
  assert.match(form.body, /<form method="post" action="\/secret\?x=&lt;y&gt;">/);
  assert.ok(!form.body.includes('open sesame'));
  assert.equal(form.headers['x-robots-tag'], 'noindex');

  const wrong = await visit('/secret', { method: 'POST', body: 'password=nope' });
  assert.equal(wrong.status, 403);
  assert.match(wrong.body, /Incorrect password/);
  assert.equal(await clicksOf(l.id as string), 0);

  const right = await visit('/secret', { method: 'POST', body: 'password=open+sesame' });
  assert.equal(right.status, 302);
  assert.equal(right.location, 'https://example.com/private');
  const proof = right.cookies.find((c) => c.startsWith(`waymark_password_${l.id}=`));
  assert.ok(proof, JSON.stringify(right.cookies));
  assert.match(proof, /HttpOnly/);
  assert.match(proof, /Path=\/secret/);
  assert.ok(!proof.includes('sesame'));

  const withCookie = await visit('/secret', { headers: { cookie: proof.split(';')[0]! } });
  assert.equal(withCookie.status, 302);
  assert.equal((await visit('/secret?pw=open%20sesame')).location, 'https://example.com/private', '?pw= is accepted and not forwarded');
  assert.equal(await clicksOf(l.id as string), 3);
});

test('password: wrong tries are limited per IP and link (429 with Retry-After), even for the right password', async () => {
  await link({ key: 'guarded', url: 'https://example.com/', password: 'right' });
  const headers = { 'x-forwarded-for': '203.0.113.99' };
  for (let i = 0; i < 10; i++) assert.equal((await visit('/guarded', { method: 'POST', body: 'password=wrong', headers })).status, 403);
  const limited = await visit('/guarded', { method: 'POST', body: 'password=right', headers });
  assert.equal(limited.status, 429);
  assert.ok(Number(limited.headers['retry-after']) > 0);
  assert.match(limited.body, /Too many attempts/);
  assert.equal((await visit('/guarded', { method: 'POST', body: 'password=right' })).status, 302, 'another IP is not limited');
});

test('proxy: bots get the link preview with every tag escaped; humans are redirected', async () => {
  const l = await link({
    key: 'preview',
    url: 'https://example.com/article',
    proxy: 1,
    title: 'Big "news" <script>alert(1)</script>',
    description: "It's <b>bold</b> & new",
    image: 'https://img.example/x.png?a=1&b="2"',
    video: 'https://video.example/v.mp4',
  });
  const bot = await visit('/preview', { ua: TWITTERBOT });
  assert.equal(bot.status, 200);
  assert.match(bot.body, /<meta property="og:title" content="Big &quot;news&quot; &lt;script&gt;alert\(1\)&lt;\/script&gt;">/);
  assert.match(bot.body, /<meta property="og:description" content="It&#39;s &lt;b&gt;bold&lt;\/b&gt; &amp; new">/);
  assert.match(bot.body, /<meta property="og:image" content="https:\/\/img\.example\/x\.png\?a=1&amp;b=%222%22">/, 'URLs in their encoded form');
  assert.match(bot.body, /<meta property="og:video" content="https:\/\/video\.example\/v\.mp4">/);
  assert.ok(!bot.body.includes('<script>'));
  const human = await visit('/preview');
  assert.equal(human.status, 302);
  assert.equal(human.location, 'https://example.com/article');
  assert.equal(await clicksOf(l.id as string), 1, 'the bot is not counted');
});

test('rewrite: a page framing the destination (escaped), recorded as a click', async () => {
  const l = await link({ key: 'framed', url: 'https://example.com/app?x="1"', rewrite: 1, title: '<Framed>' });
  const res = await visit('/framed?y=2');
  assert.equal(res.status, 200);
  assert.match(res.body, /<iframe src="https:\/\/example\.com\/app\?x=%221%22&amp;y=2"/);
  assert.match(res.body, /<title>&lt;Framed&gt;<\/title>/);
  assert.equal(await clicksOf(l.id as string), 1);
  await link({ key: 'framed-js', url: 'javascript:alert(1)', rewrite: 1 });
  const framedJs = await visit('/framed-js');
  assert.equal(framedJs.status, 404, 'a stored javascript: destination counts as none');
  assert.ok(!framedJs.body.includes('javascript'));
});

test('device targets: iOS and Android visitors go to their app links', async () => {
  await link({ key: 'app', url: 'https://example.com/web', ios: 'https://apps.apple.com/app/id1', android: 'https://play.google.com/store/apps/details?id=x' });
  assert.equal((await visit('/app', { ua: IPHONE })).location, 'https://apps.apple.com/app/id1');
  assert.equal((await visit('/app', { ua: ANDROID })).location, 'https://play.google.com/store/apps/details?id=x');
  assert.equal((await visit('/app')).location, 'https://example.com/web');
});

test('geo targets: by trusted CDN header, and by the bundled GeoIP data', async () => {
  await t.modules.redirect.geoReady();
  await link({ key: 'geo', url: 'https://example.com/world', geo: JSON.stringify({ DE: 'https://example.de/', US: 'https://example.com/us' }) });
  assert.equal((await visit('/geo', { headers: { 'cf-ipcountry': 'DE' } })).location, 'https://example.de/');
  assert.equal((await visit('/geo', { headers: { 'x-forwarded-for': '8.8.8.8' } })).location, 'https://example.com/us');
  assert.equal((await visit('/geo', { headers: { 'cf-ipcountry': 'FR' } })).location, 'https://example.com/world');
});

test('A/B test: weighted variant, remembered in a cookie on the link path', async () => {
  const variants = [
    { url: 'https://a.example/', percentage: 50 },
    { url: 'https://b.example/', percentage: 50 },
  ];
  await link({ key: 'ab', url: 'https://example.com/', test_variants: JSON.stringify(variants), test_started_at: Date.now() - HOUR, test_completed_at: Date.now() + HOUR });
  const first = await visit('/ab');
  assert.ok(['https://a.example/', 'https://b.example/'].includes(first.location!), first.location);
  const cookie = first.cookies.find((c) => c.startsWith('waymark_test_url='))!;
  assert.match(cookie, /Path=\/ab/);
  assert.match(cookie, /Max-Age=604800/);
  for (let i = 0; i < 5; i++) assert.equal((await visit('/ab', { headers: { cookie: cookie.split(';')[0]! } })).location, first.location);
  const seen = new Set<string>();
  for (let i = 0; i < 40; i++) seen.add((await visit('/ab')).location!);
  assert.equal(seen.size, 2, 'both variants are served');
});

test('root: the root link answers / with 301; without one, the placeholder; else 404', async () => {
  await insertDomain(t.database.db, t.workspaceId, { slug: 'root.test', placeholder: 'https://example.com/placeholder' });
  assert.equal((await visit('/', { host: 'root.test' })).location, 'https://example.com/placeholder');
  await link({ domain: 'root.test', key: '_root', url: 'https://example.com/home' });
  linkChanged(t.ctx.bus, 'root.test', '_root');
  const res = await visit('/', { host: 'root.test' });
  assert.equal(res.status, 301);
  assert.equal(res.location, 'https://example.com/home');
  assert.equal((await visit('/', { host: 'bare.test' })).status, 404);
});

test('.well-known files come from the domain; 404 when unset', async () => {
  const aasa = JSON.stringify({ applinks: { details: [{ appIDs: ['TEAM.app'], paths: ['*'] }] } });
  await insertDomain(t.database.db, t.workspaceId, { slug: 'apps.test', apple_app_site_association: aasa });
  const res = await visit('/.well-known/apple-app-site-association', { host: 'apps.test' });
  assert.equal(res.status, 200);
  assert.equal(res.headers['content-type'], 'application/json');
  assert.deepEqual(JSON.parse(res.body), JSON.parse(aasa));
  assert.equal((await visit('/.well-known/assetlinks.json', { host: 'apps.test' })).status, 404);
  assert.equal((await visit('/.well-known/other', { host: 'apps.test' })).status, 404);
});

test('changes announced on the bus reach the cache: update and delete', async () => {
  const l = await link({ key: 'moving', url: 'https://example.com/one' });
  assert.equal((await visit('/moving')).location, 'https://example.com/one');
  await t.database.db.updateTable('links').set({ url: 'https://example.com/two' }).where('id', '=', l.id as string).execute();
  assert.equal((await visit('/moving')).location, 'https://example.com/one', 'served from the cache until announced');
  linkChanged(t.ctx.bus, 'go.test', 'moving');
  assert.equal((await visit('/moving')).location, 'https://example.com/two');
  await t.database.db.deleteFrom('links').where('id', '=', l.id as string).execute();
  linkChanged(t.ctx.bus, 'go.test', 'moving');
  assert.equal((await visit('/moving')).status, 404);
});

test('a link of a workspace over its click quota still redirects', async () => {
  await t.database.db.updateTable('workspaces').set({ usage: 10_000_000 }).where('id', '=', t.workspaceId).execute();
  await link({ key: 'over', url: 'https://example.com/over' });
  assert.equal((await visit('/over')).location, 'https://example.com/over');
  await t.database.db.updateTable('workspaces').set({ usage: 0 }).where('id', '=', t.workspaceId).execute();
});

/**
 * The security headers every HTML page must carry; returns the policy's directives. The page's
 * `<style>` must be the one its hash allows (so a changed stylesheet cannot silently lose its style).
 */
function assertPageHeaders(res: HitResponse, what: string): Map<string, string> {
  assert.match(res.headers['content-type'] as string, /^text\/html/, what);
  assert.equal(res.headers['x-content-type-options'], 'nosniff', what);
  assert.equal(res.headers['referrer-policy'], 'no-referrer', what);
  const csp = res.headers['content-security-policy'] as string;
  assert.ok(csp, `${what}: a Content-Security-Policy`);
  const d = cspDirectives(csp);
  assert.equal(d.get('default-src'), "'none'", `${what}: ${csp}`);
  assert.equal(d.get('frame-ancestors'), "'none'", `${what}: ${csp}`);
  assert.equal(d.get('base-uri'), "'none'", `${what}: ${csp}`);
  assert.equal(d.has('script-src'), false, `${what}: no script`);
  assert.ok(!csp.includes('unsafe-'), `${what}: ${csp}`);
  const style = /<style>([^<]*)<\/style>/.exec(res.body)?.[1];
  if (style !== undefined) assert.equal(d.get('style-src'), `'sha256-${createHash('sha256').update(style).digest('base64')}'`, what);
  else assert.equal(d.has('style-src'), false, what);
  return d;
}

test('every HTML page sends a CSP without scripts, frame-ancestors none, nosniff and no Referer', async () => {
  const past = Date.now() - HOUR;
  await link({ key: 'hdr-expired', url: 'https://example.com/', expires_at: past });
  await link({ key: 'hdr-proxy', url: 'https://example.com/p', proxy: 1, title: 'T' });
  await link({ key: 'hdr-pw', url: 'https://example.com/private', password: 'pw', ios: 'https://apps.example:8443/x', geo: JSON.stringify({ DE: 'http://de.example/' }) });
  for (const [what, res] of [
    ['not found', await visit('/hdr-missing')],
    ['expired', await visit('/hdr-expired')],
    ['well-known 404', await visit('/.well-known/assetlinks.json')],
    ['proxy preview', await visit('/hdr-proxy', { ua: TWITTERBOT })],
  ] as const) {
    const d = assertPageHeaders(res, what);
    assert.equal(d.get('form-action'), "'none'", what);
    assert.equal(d.has('frame-src'), false, what);
  }
  // The password form posts to its own URL; the answer to the post redirects to the destination,
  // and Chrome applies form-action to that redirect too: each place the link may lead is allowed.
  for (const [what, res] of [
    ['password form', await visit('/hdr-pw?redir_url=https%3A%2F%2Fredir.example%2Fx')],
    ['wrong password', await visit('/hdr-pw', { method: 'POST', body: 'password=nope' })],
  ] as const) {
    const d = assertPageHeaders(res, what);
    const expected = ["'self'", 'https://example.com', 'https://apps.example:8443', 'http://de.example'];
    if (what === 'password form') expected.push('https://redir.example');
    assert.equal(d.get('form-action'), expected.join(' '), what);
  }
});

test('the rewrite page may frame its destination\'s origin only, and may not be framed itself', async () => {
  await link({ key: 'hdr-frame', url: 'https://app.example:8443/dashboard?x=1', rewrite: 1 });
  const res = await visit('/hdr-frame');
  assert.equal(res.status, 200);
  const d = assertPageHeaders(res, 'rewrite');
  assert.equal(d.get('frame-src'), 'https://app.example:8443');
  assert.equal(d.get('form-action'), "'none'");
  const redirected = assertPageHeaders(await visit('/hdr-frame?redir_url=https%3A%2F%2Fother.example%2F'), 'rewrite with redir_url');
  assert.equal(redirected.get('frame-src'), 'https://other.example', 'the frame shows redir_url: its origin is the one allowed');
});

test('methods other than GET, HEAD and POST: 405', async () => {
  const res = await visit('/dest', { method: 'PUT' });
  assert.equal(res.status, 405);
  assert.equal(res.headers.allow, 'GET, HEAD, POST');
});
