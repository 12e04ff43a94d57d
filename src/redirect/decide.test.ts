import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decide, pickVariant, type DecisionInput, type DomainInfo, type LinkInfo } from './decide.js';

const NOW = Date.UTC(2026, 5, 1);

function link(over: Partial<LinkInfo> = {}): LinkInfo {
  return {
    id: 'link_1',
    workspaceId: 'ws_1',
    domain: 'go.test',
    key: 'abc',
    url: 'https://example.com/dest',
    expiresAt: null,
    expiredUrl: null,
    disabledAt: null,
    password: null,
    proxy: false,
    rewrite: false,
    doIndex: false,
    title: null,
    description: null,
    image: null,
    video: null,
    ios: null,
    android: null,
    geo: null,
    testVariants: null,
    testStartedAt: null,
    testCompletedAt: null,
    testSettled: null,
    trackConversion: false,
    partner: false,
    ...over,
  };
}

const domain = (over: Partial<DomainInfo> = {}): DomainInfo => ({
  slug: 'go.test',
  placeholder: null,
  expiredUrl: null,
  notFoundUrl: null,
  assetLinks: null,
  appleAppSiteAssociation: null,
  ...over,
});

function input(over: Partial<DecisionInput> = {}): DecisionInput {
  return {
    link: link(),
    domain: null,
    isRoot: false,
    now: NOW,
    visitor: { bot: false, os: 'Windows', country: null },
    password: 'none',
    testCookie: null,
    random: 0.5,
    ...over,
  };
}

const variants = [
  { url: 'https://a.example/', percentage: 30 },
  { url: 'https://b.example/', percentage: 70 },
];

// One row per branch, in the order of issue 4. `expect` lists the fields that must match.
const cases: { name: string; input: DecisionInput; expect: Record<string, unknown> }[] = [
  { name: 'missing link → 404 page', input: input({ link: null }), expect: { kind: 'page', page: 'not_found', status: 404, noindex: true } },
  {
    name: 'missing link → domain notFoundUrl',
    input: input({ link: null, domain: domain({ notFoundUrl: 'https://nf.example/' }) }),
    expect: { kind: 'redirect', status: 302, target: 'https://nf.example/', reason: 'not_found', track: false },
  },
  {
    name: 'disabled link → domain notFoundUrl, even with a destination',
    input: input({ link: link({ disabledAt: NOW - 1 }), domain: domain({ notFoundUrl: 'https://nf.example/' }) }),
    expect: { kind: 'redirect', target: 'https://nf.example/', reason: 'not_found', track: false },
  },
  { name: 'disabled link without notFoundUrl → 404 page', input: input({ link: link({ disabledAt: NOW - 1 }) }), expect: { kind: 'page', status: 404 } },
  {
    name: 'root without a root link → domain placeholder',
    input: input({ link: null, isRoot: true, domain: domain({ placeholder: 'https://home.example/', notFoundUrl: 'https://nf.example/' }) }),
    expect: { kind: 'redirect', status: 302, target: 'https://home.example/', reason: 'placeholder', track: false },
  },
  {
    name: 'expired → link expiredUrl first',
    input: input({ link: link({ expiresAt: NOW - 1, expiredUrl: 'https://link-expired.example/' }), domain: domain({ expiredUrl: 'https://dom-expired.example/' }) }),
    expect: { kind: 'redirect', status: 302, target: 'https://link-expired.example/', reason: 'expired', track: false },
  },
  {
    name: 'expired → domain expiredUrl second',
    input: input({ link: link({ expiresAt: NOW - 1 }), domain: domain({ expiredUrl: 'https://dom-expired.example/' }) }),
    expect: { kind: 'redirect', target: 'https://dom-expired.example/', reason: 'expired' },
  },
  { name: 'expired → 410 page last', input: input({ link: link({ expiresAt: NOW - 1 }) }), expect: { kind: 'page', page: 'expired', status: 410 } },
  { name: 'not yet expired → destination', input: input({ link: link({ expiresAt: NOW + 1000 }) }), expect: { kind: 'redirect', reason: 'destination' } },
  {
    name: 'expiry is checked before the password',
    input: input({ link: link({ expiresAt: NOW - 1, password: 'pw' }) }),
    expect: { kind: 'page', status: 410 },
  },
  { name: 'password, nothing offered → form', input: input({ link: link({ password: 'pw' }) }), expect: { kind: 'password', status: 200, error: null } },
  { name: 'password, wrong → form with error', input: input({ link: link({ password: 'pw' }), password: 'wrong' }), expect: { kind: 'password', status: 403, error: 'wrong' } },
  {
    name: 'password, too many tries → 429 form',
    input: input({ link: link({ password: 'pw' }), password: 'rate_limited' }),
    expect: { kind: 'password', status: 429, error: 'rate_limited' },
  },
  { name: 'password, right → destination', input: input({ link: link({ password: 'pw' }), password: 'ok' }), expect: { kind: 'redirect', reason: 'destination', track: true } },
  {
    name: 'password before proxy: a bot on a password link sees the form',
    input: input({ link: link({ password: 'pw', proxy: true }), visitor: { bot: true, os: 'Unknown', country: null } }),
    expect: { kind: 'password' },
  },
  { name: 'bot on proxy link → preview page', input: input({ link: link({ proxy: true }), visitor: { bot: true, os: 'Unknown', country: null } }), expect: { kind: 'proxy', status: 200 } },
  { name: 'human on proxy link → destination', input: input({ link: link({ proxy: true }) }), expect: { kind: 'redirect', reason: 'destination' } },
  { name: 'bot on plain link → destination', input: input({ visitor: { bot: true, os: 'Unknown', country: null } }), expect: { kind: 'redirect', reason: 'destination', track: true } },
  {
    name: 'rewrite → frame page (before device targets)',
    input: input({ link: link({ rewrite: true, ios: 'https://apps.apple.com/x' }), visitor: { bot: false, os: 'iOS', country: null } }),
    expect: { kind: 'rewrite', status: 200, target: 'https://example.com/dest' },
  },
  {
    name: 'iOS visitor → ios URL',
    input: input({ link: link({ ios: 'https://apps.apple.com/x', android: 'https://play.google.com/x' }), visitor: { bot: false, os: 'iOS', country: null } }),
    expect: { kind: 'redirect', status: 302, target: 'https://apps.apple.com/x', reason: 'ios', track: true },
  },
  {
    name: 'Android visitor → android URL',
    input: input({ link: link({ ios: 'https://apps.apple.com/x', android: 'https://play.google.com/x' }), visitor: { bot: false, os: 'Android', country: null } }),
    expect: { kind: 'redirect', target: 'https://play.google.com/x', reason: 'android' },
  },
  {
    name: 'Android visitor on a link with only ios → destination',
    input: input({ link: link({ ios: 'https://apps.apple.com/x' }), visitor: { bot: false, os: 'Android', country: null } }),
    expect: { kind: 'redirect', reason: 'destination' },
  },
  {
    name: 'device target wins over geo',
    input: input({ link: link({ ios: 'https://apps.apple.com/x', geo: { DE: 'https://de.example/' } }), visitor: { bot: false, os: 'iOS', country: 'DE' } }),
    expect: { reason: 'ios' },
  },
  {
    name: 'country in geo → geo URL',
    input: input({ link: link({ geo: { DE: 'https://de.example/', FR: 'https://fr.example/' } }), visitor: { bot: false, os: 'Windows', country: 'FR' } }),
    expect: { kind: 'redirect', target: 'https://fr.example/', reason: 'geo', track: true },
  },
  {
    name: 'country not in geo → destination',
    input: input({ link: link({ geo: { DE: 'https://de.example/' } }), visitor: { bot: false, os: 'Windows', country: 'US' } }),
    expect: { reason: 'destination', target: 'https://example.com/dest' },
  },
  {
    name: 'geo wins over a running A/B test',
    input: input({ link: link({ geo: { DE: 'https://de.example/' }, testVariants: variants, testCompletedAt: NOW + 1 }), visitor: { bot: false, os: 'Windows', country: 'DE' } }),
    expect: { reason: 'geo', testUrl: null },
  },
  {
    name: 'A/B running → weighted variant, remembered',
    input: input({ link: link({ testVariants: variants, testStartedAt: NOW - 1, testCompletedAt: NOW + 1 }), random: 0.1 }),
    expect: { kind: 'redirect', status: 302, target: 'https://a.example/', reason: 'test', testUrl: 'https://a.example/' },
  },
  {
    name: 'A/B sticky cookie keeps the variant',
    input: input({ link: link({ testVariants: variants, testCompletedAt: NOW + 1 }), random: 0.1, testCookie: 'https://b.example/' }),
    expect: { target: 'https://b.example/', testUrl: 'https://b.example/' },
  },
  {
    name: 'A/B completed with a significant winner → every visit to the winner, the cookie ignored',
    input: input({ link: link({ testVariants: variants, testStartedAt: NOW - 10, testCompletedAt: NOW - 1, testSettled: { route: 'winner', url: 'https://b.example/' } }), random: 0.1, testCookie: 'https://a.example/' }),
    expect: { kind: 'redirect', target: 'https://b.example/', reason: 'test', track: true, testUrl: null },
  },
  {
    name: 'A/B completed without a winner, stopped → destination',
    input: input({ link: link({ testVariants: variants, testStartedAt: NOW - 10, testCompletedAt: NOW - 1, testSettled: { route: 'stop' } }), random: 0.1 }),
    expect: { reason: 'destination', target: 'https://example.com/dest', testUrl: null },
  },
  {
    name: 'A/B completed without a winner, keep splitting → weighted variant, remembered',
    input: input({ link: link({ testVariants: variants, testStartedAt: NOW - 10, testCompletedAt: NOW - 1, testSettled: { route: 'split' } }), random: 0.9 }),
    expect: { reason: 'test', target: 'https://b.example/', testUrl: 'https://b.example/' },
  },
  {
    name: 'A/B completed, not settled yet → still splitting (no verdict guessed)',
    input: input({ link: link({ testVariants: variants, testStartedAt: NOW - 10, testCompletedAt: NOW - 1 }), random: 0.1 }),
    expect: { reason: 'test', target: 'https://a.example/', testUrl: 'https://a.example/' },
  },
  {
    name: 'A/B winner on a rewrite link is what it frames',
    input: input({ link: link({ rewrite: true, testVariants: variants, testCompletedAt: NOW - 1, testSettled: { route: 'winner', url: 'https://a.example/' } }), random: 0.9 }),
    expect: { kind: 'rewrite', target: 'https://a.example/', testUrl: null },
  },
  {
    name: 'A/B without a completion time never runs (published behaviour)',
    input: input({ link: link({ testVariants: variants, testCompletedAt: null, testSettled: { route: 'split' } }) }),
    expect: { reason: 'destination' },
  },
  {
    name: 'A/B not started yet → destination',
    input: input({ link: link({ testVariants: variants, testStartedAt: NOW + 10, testCompletedAt: NOW + 100 }) }),
    expect: { reason: 'destination' },
  },
  {
    name: 'A/B variant is what a rewrite link frames',
    input: input({ link: link({ rewrite: true, testVariants: variants, testCompletedAt: NOW + 1 }), random: 0.9 }),
    expect: { kind: 'rewrite', target: 'https://b.example/', testUrl: 'https://b.example/' },
  },
  { name: 'destination: 302, noindex by default', input: input(), expect: { kind: 'redirect', status: 302, target: 'https://example.com/dest', reason: 'destination', track: true, noindex: true } },
  { name: 'doIndex → no noindex', input: input({ link: link({ doIndex: true }) }), expect: { noindex: false } },
  { name: 'root link → 301', input: input({ isRoot: true, link: link({ key: '_root' }) }), expect: { kind: 'redirect', status: 301, reason: 'destination' } },
  {
    name: 'root link device target → 301 too',
    input: input({ isRoot: true, link: link({ key: '_root', ios: 'https://apps.apple.com/x' }), visitor: { bot: false, os: 'iOS', country: null } }),
    expect: { status: 301, reason: 'ios' },
  },
  {
    name: 'root link without destination → placeholder, recorded',
    input: input({ isRoot: true, link: link({ key: '_root', url: '' }), domain: domain({ placeholder: 'https://home.example/' }) }),
    expect: { kind: 'redirect', status: 302, target: 'https://home.example/', reason: 'placeholder', track: true },
  },
  {
    name: 'root link without destination or placeholder → 404 page',
    input: input({ isRoot: true, link: link({ key: '_root', url: '' }), domain: domain() }),
    expect: { kind: 'page', status: 404 },
  },
];

for (const c of cases) {
  test(`decide: ${c.name}`, () => {
    const d = decide(c.input) as unknown as Record<string, unknown>;
    for (const [k, v] of Object.entries(c.expect)) assert.deepEqual(d[k], v, `${k} of ${JSON.stringify(d)}`);
  });
}

test('pickVariant: cumulative weights over the percentages as given', () => {
  const three = [
    { url: 'a', percentage: 10 },
    { url: 'b', percentage: 20 },
    { url: 'c', percentage: 30 },
  ];
  // total 60: [0,10) a, [10,30) b, [30,60) c
  assert.equal(pickVariant(three, null, 0), 'a');
  assert.equal(pickVariant(three, null, 9.9 / 60), 'a');
  assert.equal(pickVariant(three, null, 10 / 60), 'b');
  assert.equal(pickVariant(three, null, 29.9 / 60), 'b');
  assert.equal(pickVariant(three, null, 30 / 60), 'c');
  assert.equal(pickVariant(three, null, 0.999999), 'c');
  assert.equal(pickVariant(three, 'b', 0), 'b', 'cookie naming a variant wins');
  assert.equal(pickVariant(three, 'gone', 0), 'a', 'a stale cookie is ignored');
  assert.equal(pickVariant([{ url: 'x', percentage: 0 }], null, 0.5), 'x');
});

test('pickVariant: draws follow the weights', () => {
  let b = 0;
  for (let i = 0; i < 1000; i++) if (pickVariant(variants, null, i / 1000) === 'https://b.example/') b++;
  assert.equal(b, 700);
});
