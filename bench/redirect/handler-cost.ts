/**
 * CPU cost of the redirect handler itself, per request, without HTTP or the database: headers,
 * host and path parsing, the cached link, user-agent classification, decide(), the final URL,
 * and for human visits dedup and the raw click (pushed to a no-op writer; geo, referer and UTM
 * are the flush worker's). Distinct client IPs and 10,000 cached links, as in bench/redirect.ts.
 *
 * Then the same human visits written into a real click ring (ring-buffer.ts over click-ring.ts:
 * interning, the row, a batch's dictionaries), each batch released at once (no log thread).
 *
 * Then the link-in-bio check (src/bio/public.ts: `/@handle` and a chosen root are asked of the
 * bio pages before a key is looked up): the same visits through a handler with the bio pages and
 * one without, alternated over BENCH_BIO_ROUNDS (6) rounds, as a ratio per round.
 *
 * Run: node --import tsx bench/redirect/handler-cost.ts
 */
import { loadavg } from 'node:os';
import { createBioPublic, type BioPublic } from '../../src/bio/public.js';
import type { BioStore } from '../../src/bio/store.js';
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
import { createClickRing, type RawClick } from '../../src/events/index.js';
import { createRingBuffer } from '../../src/redirect/ring-buffer.js';
import { clickIdOf } from '../../src/visitors/click-id.js';

const row = (key: string) =>
  ({
    id: `link_${key}`, workspace_id: 'ws_1', domain: 'go.bench', key, key_lower: key, url: `https://example.com/landing/${key}?utm_source=bench&utm_medium=wrk`,
    conversion_enabled: 0, track_conversion: 0, geo: null, test_variants: null, expires_at: null, disabled_at: null, password: null,
    proxy: 0, rewrite: 0, do_index: 0, program_id: null, partner_id: null,
  }) as unknown as LinkWithWorkspace;
const cache = createLinkCache({ findLink: async (_d, k) => row(k), findDomain: async () => undefined });
let pushed = 0;
const writer = { holding: false, push: () => void pushed++, pending: () => undefined, flush: async () => {}, close: async () => {}, stats: () => ({}) } as unknown as ClickWriter;
// The bio pages over a store that has none (a visit to a key never reaches it; `/@x` would).
const noPages = { findRoot: async () => undefined, findByHandle: async () => undefined, pageLinks: async () => [], addViews: async () => {} } as unknown as BioStore;
const handlerWith = (bio: BioPublic | undefined, clickWriter: ClickWriter = writer) => createRedirectHandler({
  apiHosts: ['localhost'], clientAddress: clientAddressRule({ kind: 'hops', hops: 1 }).of, clickIdParam: 'waymark_id', secureCookies: false, cache, writer: clickWriter, classify: createUaClassifier(),
  targetingGeo: createGeoLocator({ trustHeaders: false, precision: 'country' }), trustGeoHeaders: false,
  dedup: createClickDeduplicator(), limiter: createAttemptLimiter(), now: Date.now, random: Math.random, onError: console.error, bio,
});
let handler = handlerWith(createBioPublic(noPages));
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

// The same human visits with the click written into a real click ring (the app's writer path on
// the redirect thread: interning, the row, a batch's dictionaries every 2,000 rows), the log
// thread's part left out (each batch counts as committed at once).
const ringBuffer = createRingBuffer(createClickRing({ capacity: 65_536, clickIdOf }));
const ringWriter = {
  holding: false,
  copiesRows: true,
  push(row: RawClick) {
    if (!ringBuffer.push(row)) throw new Error('ring full');
    if (ringBuffer.waiting >= 2_000) {
      ringBuffer.take(ringBuffer.waiting);
      ringBuffer.release();
    }
  },
  pending: () => undefined, flush: async () => {}, close: async () => {}, stats: () => ({}),
} as unknown as ClickWriter;
handler = handlerWith(undefined, ringWriter);
run(50_000, 2_000_000, false);
console.log(`  human visit through the click ring  ${run(300_000, 2_100_000, false).toFixed(2)} µs  (${ringBuffer.ring.head} rows written)`);

const ROUNDS = Number(process.env.BENCH_BIO_ROUNDS ?? 6);
// Two fresh handlers, warmed alike: each keeps its own deduplicator, whose size changes its cost.
const withBio = handlerWith(createBioPublic(noPages));
const withoutBio = handlerWith(undefined);
for (const h of [withBio, withoutBio]) {
  handler = h;
  run(50_000, 5_000_000, false);
}
const ratios: number[] = [];
console.log(`\nbio check on the redirect path: human visits to keys, with the bio pages / without, 200,000 each, alternated`);
for (let round = 0; round < ROUNDS; round++) {
  const cost = (h: typeof withBio, offset: number) => {
    handler = h;
    return run(200_000, offset, false);
  };
  const first = round % 2 ? withoutBio : withBio;
  const a = cost(first, 1_000_000 + round * 400_000);
  const b = cost(first === withBio ? withoutBio : withBio, 1_200_000 + round * 400_000);
  const [on, off] = first === withBio ? [a, b] : [b, a];
  ratios.push(on / off);
  console.log(`  round ${round + 1}: with ${on.toFixed(3)} µs, without ${off.toFixed(3)} µs, ratio ${(on / off).toFixed(3)}  load ${loadavg()[0]!.toFixed(2)}`);
}
const sorted = [...ratios].sort((x, y) => x - y);
console.log(`  with/without: median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(3)}×, mean ${(ratios.reduce((x, y) => x + y, 0) / ratios.length).toFixed(3)}×`);
