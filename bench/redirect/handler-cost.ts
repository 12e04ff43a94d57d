/**
 * CPU cost of the redirect handler itself, per request, without HTTP or the database: headers,
 * host and path parsing, the cached link, user-agent classification, decide(), the final URL,
 * and for human visits dedup and the raw click (pushed to a no-op writer; geo, referer and UTM
 * are the flush worker's). Distinct client IPs and 10,000 cached links, as in bench/redirect.ts.
 *
 * Run: node --import tsx bench/redirect/handler-cost.ts
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRedirectHandler } from '../../src/redirect/handler.js';
import { createLinkCache } from '../../src/redirect/link-cache.js';
import type { LinkWithWorkspace } from '../../src/redirect/store.js';
import type { ClickWriter } from '../../src/redirect/click-writer.js';
import { createGeoLocator } from '../../src/visitors/geo.js';
import { createUaClassifier } from '../../src/visitors/visitor.js';
import { createClickDeduplicator } from '../../src/redirect/dedup.js';
import { createAttemptLimiter } from '../../src/redirect/password.js';
import { clientAddressRule } from '../../src/http/client-address.js';

const row = (key: string) =>
  ({
    id: `link_${key}`, workspace_id: 'ws_1', domain: 'go.bench', key, key_lower: key, url: `https://example.com/landing/${key}?utm_source=bench&utm_medium=wrk`,
    conversion_enabled: 0, track_conversion: 0, geo: null, test_variants: null, expires_at: null, disabled_at: null, password: null,
    proxy: 0, rewrite: 0, do_index: 0, program_id: null, partner_id: null,
  }) as unknown as LinkWithWorkspace;
const cache = createLinkCache({ findLink: async (_d, k) => row(k), findDomain: async () => undefined });
let pushed = 0;
const writer = { holding: false, push: () => void pushed++, pending: () => undefined, flush: async () => {}, close: async () => {}, stats: () => ({}) } as unknown as ClickWriter;
const handler = createRedirectHandler({
  apiHosts: ['localhost'], clientAddress: clientAddressRule({ kind: 'hops', hops: 1 }).of, clickIdParam: 'waymark_id', secureCookies: false, cache, writer, classify: createUaClassifier(),
  targetingGeo: createGeoLocator({ trustHeaders: false, precision: 'country' }), trustGeoHeaders: false,
  dedup: createClickDeduplicator(), limiter: createAttemptLimiter(), now: Date.now, random: Math.random, onError: console.error,
});
for (let i = 0; i < 10_000; i++) await cache.load('go.bench', 'go.bench', `k${i}`);

const HUMANS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
];
const BOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const res = { writeHead() {}, end() {}, setHeader() {} } as unknown as ServerResponse;

function run(count: number, offset: number, bot: boolean): number {
  const before = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const n = i + offset;
    const req = {
      method: 'GET',
      url: `/k${n % 10_000}`,
      rawHeaders: [
        'Host', 'go.bench', 'User-Agent', bot ? BOT : HUMANS[n % 2], 'X-Forwarded-For', `${20 + (n >> 24)}.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`,
        ...(n % 2 ? ['Referer', 'https://www.google.com/'] : []),
      ],
      socket: { remoteAddress: '127.0.0.1' },
    } as unknown as IncomingMessage;
    handler.tryHandle(req, res);
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}

run(20_000, 0, true);
run(20_000, 0, false);
console.log(`redirect handler CPU per request (no HTTP, no database), 300,000 requests each`);
console.log(`  crawler (redirect only)           ${run(300_000, 100_000, true).toFixed(2)} µs`);
console.log(`  human visit (redirect + click row) ${run(300_000, 500_000, false).toFixed(2)} µs  (${pushed} clicks built)`);
