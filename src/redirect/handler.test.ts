/**
 * One request's failure never takes the redirect server down: a dependency that throws (or
 * rejects) at each step of a request, on a real listening server, answers that request (500 for a
 * bug, 503 for a failed load, 400 for an unreadable form), is logged, and the next request is
 * answered as usual.
 */
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRedirectHandler } from './handler.js';
import { createLinkCache, type LinkCache } from './link-cache.js';
import type { ClickWriter } from './click-writer.js';
import type { GeoLocator } from '../visitors/geo.js';
import { createUaClassifier } from '../visitors/visitor.js';
import { createClickDeduplicator } from './dedup.js';
import { createAttemptLimiter } from './password.js';
import { UNKNOWN_GEO } from '../visitors/geo.js';
import type { DomainRow, LinkWithWorkspace } from './store.js';
import type { LinkInfo } from './decide.js';
import { hit } from './testing.js';
import { clientAddressRule } from '../http/client-address.js';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const BOOM = 'Mozilla/5.0 boom';

/** What each dependency does; a test switches one to failing. */
const faults = {
  findLink: false,
  findDomain: false,
  geoReady: false,
  writerPush: false,
  /** The cache hands out a link with this URL, not in its Location form (a bug upstream). */
  rawLocation: null as string | null,
};
const errors: { err: unknown; context: string }[] = [];
const processFailures: unknown[] = [];
/** An error that escaped to the process: recorded, and the server's connections closed so the request waiting for it fails at once instead of hanging. */
const onProcessFailure = (err: unknown) => {
  processFailures.push(err);
  server.closeAllConnections();
};

function linkRow(key: string, fields: Record<string, unknown> = {}): LinkWithWorkspace {
  return {
    id: `link_${key}`, workspace_id: 'ws_1', domain: 'go.test', key, key_lower: key, url: 'https://example.com/ok', conversion_enabled: 0, track_conversion: 0,
    geo: null, test_variants: null, expires_at: null, disabled_at: null, password: null, proxy: 0, rewrite: 0, do_index: 0, program_id: null, partner_id: null,
    ...fields,
  } as unknown as LinkWithWorkspace;
}

const rows = new Map<string, LinkWithWorkspace>([
  ['ok', linkRow('ok')],
  ['secret', linkRow('secret', { password: 'open sesame' })],
  ['geo', linkRow('geo', { geo: JSON.stringify({ DE: 'https://example.de/' }) })],
]);

let realCache: LinkCache;
const cache: LinkCache = {
  peek: (host, key) => {
    const value = realCache.peek(host, key);
    return faults.rawLocation !== null && value ? ({ ...value, url: faults.rawLocation } as LinkInfo) : value;
  },
  load: async (host, hostname, key) => {
    const value = await realCache.load(host, hostname, key);
    return faults.rawLocation !== null && value ? ({ ...value, url: faults.rawLocation } as LinkInfo) : value;
  },
  peekDomain: (host) => realCache.peekDomain(host),
  loadDomain: (host, hostname) => realCache.loadDomain(host, hostname),
  invalidate: (change) => realCache.invalidate(change),
  clear: () => realCache.clear(),
  get size() {
    return realCache.size;
  },
};

const writer = {
  push: () => {
    if (faults.writerPush) throw new Error('writer exploded');
  },
  pending: () => undefined,
  flush: async () => {},
  close: async () => {},
  stats: () => ({}),
} as unknown as ClickWriter;

let geoReady = false;
const targetingGeo: GeoLocator = {
  start() {},
  ready: async () => {
    if (faults.geoReady) throw new Error('geo data unreadable');
    geoReady = true;
  },
  isReady: () => geoReady,
  locate: () => UNKNOWN_GEO,
  locateIp: () => UNKNOWN_GEO,
};

const classifyUa = createUaClassifier();
let server: Server;
let base: string;

before(async () => {
  process.on('unhandledRejection', onProcessFailure);
  process.on('uncaughtException', onProcessFailure);
  const handler = createRedirectHandler({
    apiHosts: ['localhost'],
    clientAddress: clientAddressRule({ kind: 'none' }).of,
    clickIdParam: 'waymark_id',
    secureCookies: false,
    cache,
    writer,
    classify: (ua) => {
      if (ua === BOOM) throw new Error('classifier exploded');
      return classifyUa(ua);
    },
    targetingGeo,
    trustGeoHeaders: false,
    dedup: createClickDeduplicator(),
    limiter: createAttemptLimiter(),
    now: Date.now,
    random: Math.random,
    onError: (err, context) => errors.push({ err, context }),
  });
  server = createServer((req, res) => {
    if (!handler.tryHandle(req, res)) {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  await new Promise((resolve) => server.close(resolve));
  process.off('unhandledRejection', onProcessFailure);
  process.off('uncaughtException', onProcessFailure);
  assert.deepEqual(processFailures, [], 'nothing reached the process');
});

beforeEach(() => {
  Object.assign(faults, { findLink: false, findDomain: false, geoReady: false, writerPush: false, rawLocation: null });
  errors.length = 0;
  geoReady = false;
  // A fresh cache per test, so "first visit" means a cache miss and an asynchronous continuation.
  realCache = createLinkCache({
    findLink: async (_hosts, key) => {
      if (faults.findLink) throw new Error('database unreachable');
      return rows.get(key);
    },
    findDomain: async () => {
      if (faults.findDomain) throw new Error('database unreachable');
      return undefined as DomainRow | undefined;
    },
  });
});

const visit = (path: string, ua = CHROME, extra: { method?: string; body?: string } = {}) => hit(base, path, { host: 'go.test', headers: { 'user-agent': ua }, ...extra });

/** The failed request's answer: an HTML page with the pages' security headers, and the error logged. */
async function assertFailed(path: string, status: number, message: RegExp, ua = CHROME, extra: { method?: string; body?: string } = {}) {
  const res = await visit(path, ua, extra);
  assert.equal(res.status, status, `${path}: ${res.body.slice(0, 200)}`);
  assert.match(res.headers['content-type'] as string, /^text\/html/);
  assert.match(res.headers['content-security-policy'] as string, /default-src 'none'.*frame-ancestors 'none'/);
  assert.equal(res.headers['x-content-type-options'], 'nosniff');
  assert.ok(!res.body.includes('exploded') && !res.body.includes('unreachable'), 'no error detail reaches the visitor');
  assert.equal(errors.length, 1, JSON.stringify(errors.map((e) => e.context)));
  assert.match(String((errors[0]!.err as Error).message), message);
  assert.match(errors[0]!.context, new RegExp(`\\(${status}\\)`));
}

async function assertStillServing() {
  const res = await visit('/ok');
  assert.equal(res.status, 302);
  assert.equal(res.location, 'https://example.com/ok');
}

test('a throw after the cache load (first visit) answers 500; the next request is served', async () => {
  await assertFailed('/ok', 500, /classifier exploded/, BOOM);
  await assertStillServing();
});

test('a throw on the synchronous path (cached link) answers 500; the next request is served', async () => {
  await assertStillServing();
  await assertFailed('/ok', 500, /classifier exploded/, BOOM);
  await assertStillServing();
});

test('a failed link load answers 503 (the database), and the link is served once it answers again', async () => {
  faults.findLink = true;
  await assertFailed('/ok', 503, /database unreachable/);
  faults.findLink = false;
  await assertStillServing();
});

test('a failed domain load answers 503; a throw after the domain load answers 500', async () => {
  faults.findDomain = true;
  await assertFailed('/missing', 503, /database unreachable/);
  faults.findDomain = false;
  errors.length = 0;
  await assertFailed('/missing', 500, /classifier exploded/, BOOM);
  await assertStillServing();
});

test('a throw after reading the password form answers 500', async () => {
  await assertFailed('/secret', 500, /classifier exploded/, BOOM, { method: 'POST', body: 'password=open+sesame' });
  await assertStillServing();
});

test('geo data that fails to load answers 503; a throw after it loaded answers 500', async () => {
  faults.geoReady = true;
  await assertFailed('/geo', 503, /geo data unreadable/);
  faults.geoReady = false;
  errors.length = 0;
  await assertFailed('/geo', 500, /classifier exploded/, BOOM);
  await assertStillServing();
});

test('a Location that is not visible ASCII (a bug upstream) is refused before writeHead: 500, never a crash nor raw bytes', async () => {
  // Beyond Latin-1 node would throw from writeHead; Latin-1 (é) it would send as raw bytes.
  for (const raw of ['https://example.com/東京', 'https://example.com/café', 'https://example.com/a b']) {
    realCache.clear();
    faults.rawLocation = raw;
    errors.length = 0;
    await assertFailed('/ok', 500, /not visible ASCII/); // first visit: after the cache load
    errors.length = 0;
    await assertFailed('/ok', 500, /not visible ASCII/); // cached: the synchronous path
  }
  faults.rawLocation = null;
  await assertStillServing();
});

test('a throw after the answer was sent (recording the click) is logged; the visitor has the redirect', async () => {
  faults.writerPush = true;
  // A user agent of its own: a repeat visit (same IP and user agent) is not recorded again.
  const res = await visit('/ok', `${CHROME} first-visit`);
  assert.equal(res.status, 302);
  assert.equal(res.location, 'https://example.com/ok');
  assert.equal(errors.length, 1);
  assert.match(String((errors[0]!.err as Error).message), /writer exploded/);
  faults.writerPush = false;
  await assertStillServing();
});
