/**
 * The agent table (agents.ts) on the redirect path: the classifier runs once per distinct user
 * agent, bots stay bots and repeats stay repeats through a flood of distinct agents past the
 * table's bound (across its epochs), and the row handed to the writer names the agent by its id and text.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRedirectHandler } from './handler.js';
import { createLinkCache } from './link-cache.js';
import type { LinkWithWorkspace } from './store.js';
import type { ClickWriter } from './click-writer.js';
import type { RingRow } from './ring-buffer.js';
import { createGeoLocator } from '../visitors/geo.js';
import { classifyUa, type UaTraits } from '../visitors/visitor.js';
import { createClickDeduplicator } from './dedup.js';
import { createAttemptLimiter } from './password.js';
import { clientAddressRule } from '../http/client-address.js';
import { clickIdOf } from '../visitors/click-id.js';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

async function setup(maxEntries: number) {
  const row = {
    id: 'link_k', workspace_id: 'ws_1', domain: 'go.test', key: 'k', key_lower: 'k', url: 'https://example.com/', conversion_enabled: 0, track_conversion: 0,
    geo: null, test_variants: null, expires_at: null, disabled_at: null, password: null, proxy: 0, rewrite: 0, do_index: 0, program_id: null, partner_id: null,
  } as unknown as LinkWithWorkspace;
  const cache = createLinkCache({ findLink: async () => row, findDomain: async () => undefined });
  await cache.load('go.test', 'go.test', 'k');
  const rows: RingRow[] = [];
  const writer = {
    holding: false,
    copiesRows: true,
    push: (r: RingRow) => void rows.push({ ...r }),
    pending: () => undefined, flush: async () => {}, close: async () => {}, stats: () => ({}),
  } as unknown as ClickWriter;
  const classified: string[] = [];
  const handler = createRedirectHandler({
    apiHosts: ['localhost'], clientAddress: clientAddressRule({ kind: 'hops', hops: 1 }).of, clickIdParam: 'waymark_id', secureCookies: false, cache, writer,
    classify: (ua: string): UaTraits => (classified.push(ua), classifyUa(ua)),
    agentTable: { maxEntries },
    targetingGeo: createGeoLocator({ trustHeaders: false, precision: 'country' }), trustGeoHeaders: false,
    dedup: createClickDeduplicator(), limiter: createAttemptLimiter(), now: () => 1_764_000_000_000, random: Math.random, onError: (err) => assert.fail(String(err)),
  });
  const statuses: number[] = [];
  const res = { writeHead: (status: number) => void statuses.push(status), end() {}, setHeader() {} } as unknown as ServerResponse;
  const visit = (ua: string, ip: string) => {
    const req = { method: 'GET', url: '/k', rawHeaders: ['Host', 'go.test', 'User-Agent', ua, 'X-Forwarded-For', ip], socket: { remoteAddress: '127.0.0.1' } } as unknown as IncomingMessage;
    assert.equal(handler.tryHandle(req, res), true);
  };
  return { rows, classified, visit, stats: handler.stats, statuses };
}

test('redirect agents: one classification per distinct agent; repeats and bots decided by id', async () => {
  const t = await setup(16_384);
  for (let i = 0; i < 300; i++) t.visit(i % 3 === 2 ? GOOGLEBOT : i % 3 ? IPHONE : CHROME, '10.0.0.1');
  assert.deepEqual(t.classified, [CHROME, IPHONE, GOOGLEBOT]);
  assert.equal(t.stats().clicksRecorded, 2, 'one click per agent from one address; the rest repeats');
  assert.equal(t.stats().botAnswers, 100);
  assert.ok(t.statuses.every((s) => s === 302));
  assert.deepEqual(t.rows.map((r) => [r.ua, r.agent, r.agentEpoch]), [[CHROME, 0, 0], [IPHONE, 1, 0]]);
  // The row's parts are the click id's: the ring spells the id from them.
  for (const r of t.rows) assert.equal(clickIdOf(r.timestamp, r.part1!, r.part2!), r.id);
});

test('redirect agents: a flood of distinct agents past the bound keeps bots out and repeats deduplicated, across epochs', async () => {
  const t = await setup(8);
  const flood = (i: number) => t.visit(`FloodBrowser/${i} (X11; Linux x86_64)`, `10.1.${i >> 8}.${i & 255}`);
  // 1,001 agents, 8 an epoch: the last epoch holds one of them.
  for (let i = 0; i <= 1000; i++) flood(i);
  assert.equal(t.stats().clicksRecorded, 1001);
  assert.ok(t.rows.every((r) => r.agent! >= 0 && r.agent! < 8), 'ids stay within the bound');
  const epoch = t.rows.at(-1)!.agentEpoch!;
  assert.equal(epoch, 125);
  assert.deepEqual(t.rows.slice(-3).map((r) => r.ua), [998, 999, 1000].map((i) => `FloodBrowser/${i} (X11; Linux x86_64)`));
  // Mid-flood a crawler is still a crawler: its agent is classified again in the epoch it arrives in.
  t.visit(GOOGLEBOT, '10.9.9.9');
  assert.equal(t.stats().botAnswers, 1);
  assert.equal(t.stats().clicksRecorded, 1001);
  // The last agent of the flood, same address, same epoch: a repeat, not a new click.
  flood(1000);
  assert.equal(t.stats().clicksRecorded, 1001);
  // An agent of an epoch long gone has another id now, but the same key: still a repeat.
  flood(0);
  assert.equal(t.stats().clicksRecorded, 1001);
  // The same agent from another address is a new visitor.
  t.visit('FloodBrowser/0 (X11; Linux x86_64)', '10.8.8.8');
  assert.equal(t.stats().clicksRecorded, 1002);
  assert.equal(t.stats().humanAnswers, 1004);
});
