import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLinkCache, toDomainInfo, toLinkInfo } from './link-cache.js';
import { isHeaderSafe } from '../web-url.js';
import type { DomainRow, LinkWithWorkspace } from './store.js';

function row(domain: string, key: string, url = 'https://example.com/'): LinkWithWorkspace {
  return {
    id: `link_${key}`,
    workspace_id: 'ws_1',
    domain,
    key,
    key_lower: key.toLowerCase(),
    url,
    conversion_enabled: 0,
    track_conversion: 0,
    geo: null,
    test_variants: null,
    program_id: null,
    partner_id: null,
  } as unknown as LinkWithWorkspace;
}

/** A fake store over a mutable map, counting reads. */
function fakeStore() {
  const links = new Map<string, LinkWithWorkspace>();
  const domains = new Map<string, DomainRow>();
  let reads = 0;
  let gate: Promise<void> | null = null;
  return {
    links,
    domains,
    get reads() {
      return reads;
    },
    hold() {
      let release!: () => void;
      gate = new Promise((r) => (release = r));
      return () => {
        gate = null;
        release();
      };
    },
    async findLink(names: readonly string[], keyLower: string) {
      reads++;
      if (gate) await gate;
      for (const n of names) {
        const r = links.get(`${n}/${keyLower}`);
        if (r) return r;
      }
      return undefined;
    },
    async findDomain(slugs: readonly string[]) {
      for (const s of slugs) if (domains.has(s)) return domains.get(s);
      return undefined;
    },
  };
}

test('a loaded link is served from memory until its change is announced', async () => {
  const store = fakeStore();
  store.links.set('go.test/abc', row('go.test', 'abc', 'https://one.example/'));
  const cache = createLinkCache(store);
  assert.equal(cache.peek('go.test', 'abc'), undefined);
  assert.equal((await cache.load('go.test', 'go.test', 'abc'))?.url, 'https://one.example/');
  assert.equal(cache.peek('go.test', 'abc')?.url, 'https://one.example/');
  store.links.set('go.test/abc', row('go.test', 'abc', 'https://two.example/'));
  assert.equal(cache.peek('go.test', 'abc')?.url, 'https://one.example/');
  cache.invalidate({ type: 'link', domain: 'go.test', key: 'ABC' });
  assert.equal(cache.peek('go.test', 'abc'), undefined);
  assert.equal((await cache.load('go.test', 'go.test', 'abc'))?.url, 'https://two.example/');
  assert.equal(store.reads, 2);
});

test('missing links are cached briefly as null and dropped when the link is created', async () => {
  const store = fakeStore();
  const cache = createLinkCache(store, { negativeTtlMs: 60_000 });
  assert.equal(await cache.load('go.test', 'go.test', 'new'), null);
  assert.equal(cache.peek('go.test', 'new'), null);
  store.links.set('go.test/new', row('go.test', 'new'));
  cache.invalidate({ type: 'link', domain: 'go.test', key: 'new' });
  assert.equal((await cache.load('go.test', 'go.test', 'new'))?.id, 'link_new');
});

test('host with a port: looked up with the port first, then without; both names invalidate it', async () => {
  const store = fakeStore();
  store.links.set('wm.localhost:3000/a', row('wm.localhost:3000', 'a', 'https://with-port.example/'));
  store.links.set('go.test/b', row('go.test', 'b', 'https://without-port.example/'));
  const cache = createLinkCache(store);
  assert.equal((await cache.load('wm.localhost:3000', 'wm.localhost', 'a'))?.url, 'https://with-port.example/');
  assert.equal((await cache.load('go.test:8080', 'go.test', 'b'))?.url, 'https://without-port.example/');
  cache.invalidate({ type: 'link', domain: 'wm.localhost:3000', key: 'a' });
  assert.equal(cache.peek('wm.localhost:3000', 'a'), undefined);
  cache.invalidate({ type: 'link', domain: 'go.test', key: 'b' });
  assert.equal(cache.peek('go.test:8080', 'b'), undefined, 'the port-less name reaches the host:port entry');
});

test('a domain change drops the domain and every link cached on it', async () => {
  const store = fakeStore();
  store.links.set('go.test/a', row('go.test', 'a'));
  store.links.set('other.test/a', row('other.test', 'a'));
  store.domains.set('go.test', { slug: 'go.test', not_found_url: 'https://nf.example/' } as DomainRow);
  const cache = createLinkCache(store);
  await cache.load('go.test', 'go.test', 'a');
  await cache.load('other.test', 'other.test', 'a');
  assert.equal((await cache.loadDomain('go.test', 'go.test'))?.notFoundUrl, 'https://nf.example/');
  cache.invalidate({ type: 'domain', domain: 'go.test' });
  assert.equal(cache.peek('go.test', 'a'), undefined);
  assert.equal(cache.peekDomain('go.test'), undefined);
  assert.ok(cache.peek('other.test', 'a'));
});

test('a load that started before a change does not cache its stale answer', async () => {
  const store = fakeStore();
  store.links.set('go.test/a', row('go.test', 'a', 'https://old.example/'));
  const cache = createLinkCache(store);
  const release = store.hold();
  const pending = cache.load('go.test', 'go.test', 'a');
  store.links.set('go.test/a', row('go.test', 'a', 'https://new.example/'));
  cache.invalidate({ type: 'link', domain: 'go.test', key: 'a' });
  release();
  await pending;
  assert.equal(cache.peek('go.test', 'a'), undefined);
  assert.equal((await cache.load('go.test', 'go.test', 'a'))?.url, 'https://new.example/');
});

test('concurrent misses for one link share a single read', async () => {
  const store = fakeStore();
  store.links.set('go.test/a', row('go.test', 'a'));
  const cache = createLinkCache(store);
  await Promise.all([cache.load('go.test', 'go.test', 'a'), cache.load('go.test', 'go.test', 'a'), cache.load('go.test', 'go.test', 'a')]);
  assert.equal(store.reads, 1);
});

test('toLinkInfo parses geo (upper-case countries), variants, flags and the workspace conversion setting', () => {
  const info = toLinkInfo({
    ...row('go.test', 'a'),
    geo: '{"de":"https://de.example/","FR":"https://fr.example/"}',
    test_variants: '[{"url":"https://a.example/","percentage":50},{"url":"https://b.example/","percentage":50}]',
    track_conversion: 0,
    conversion_enabled: 1,
    program_id: 'prog_1',
    partner_id: 'pn_1',
  } as LinkWithWorkspace);
  assert.deepEqual(info.geo, { DE: 'https://de.example/', FR: 'https://fr.example/' });
  assert.equal(info.testVariants?.length, 2);
  assert.equal(info.trackConversion, true);
  assert.equal(info.partner, true);
  assert.equal(toLinkInfo({ ...row('go.test', 'b'), geo: 'not json' } as LinkWithWorkspace).geo, null);
});

test('toLinkInfo: every URL in its Location form; stored values that are not acceptable http(s) URLs count as none', () => {
  const info = toLinkInfo({
    ...row('go.test', 'a', 'https://ja.wikipedia.org/wiki/東京'),
    expired_url: 'https://example.com/café',
    ios: 'javascript:alert(1)',
    android: 'https://example.com/a\u0001b',
    video: 'data:video/mp4;base64,AAAA',
    image: 'https://img.example/ö.png',
    geo: JSON.stringify({ de: 'https://example.de/ü', fr: '//evil.example', jp: 'https://例え.テスト/', us: 42 }),
    test_variants: JSON.stringify([
      { url: 'https://a.example/😀', percentage: 50 },
      { url: 'file:///etc/passwd', percentage: 50 },
      { url: 'https://b.example/', percentage: '50' },
    ]),
  } as LinkWithWorkspace);
  assert.equal(info.url, 'https://ja.wikipedia.org/wiki/%E6%9D%B1%E4%BA%AC');
  assert.equal(info.expiredUrl, 'https://example.com/caf%C3%A9');
  assert.equal(info.ios, null);
  assert.equal(info.android, null);
  assert.equal(info.video, null);
  assert.equal(info.image, 'https://img.example/%C3%B6.png');
  assert.deepEqual(info.geo, { DE: 'https://example.de/%C3%BC', JP: 'https://xn--r8jz45g.xn--zckzah/' });
  assert.deepEqual(info.testVariants, [{ url: 'https://a.example/%F0%9F%98%80', percentage: 50 }]);
  for (const url of [info.url, info.expiredUrl!, ...Object.values(info.geo!), info.testVariants![0]!.url]) assert.ok(isHeaderSafe(url), url);

  const broken = toLinkInfo({ ...row('go.test', 'b', 'javascript:alert(1)'), geo: '{"de":"ftp://x"}', test_variants: '[{"url":"data:,x","percentage":50}]' } as LinkWithWorkspace);
  assert.equal(broken.url, '', 'a destination that is not acceptable is none: the link answers as one without a destination');
  assert.equal(broken.geo, null);
  assert.equal(broken.testVariants, null);
});

test('toDomainInfo: placeholder, expiredUrl and notFoundUrl in their Location form, or none', () => {
  const domain = (over: Partial<DomainRow>) =>
    toDomainInfo({ slug: 'go.test', placeholder: null, expired_url: null, not_found_url: null, asset_links: null, apple_app_site_association: null, ...over } as DomainRow);
  const ok = domain({ placeholder: 'https://example.com/€', expired_url: 'example.com/gone', not_found_url: 'https://bücher.example/404' });
  assert.deepEqual([ok.placeholder, ok.expiredUrl, ok.notFoundUrl], ['https://example.com/%E2%82%AC', 'https://example.com/gone', 'https://xn--bcher-kva.example/404']);
  for (const bad of ['javascript:alert(1)', 'data:text/html,x', 'file:///etc/passwd', '//evil.example', 'https://example.com/a\nb', 'free text']) {
    const info = domain({ placeholder: bad, expired_url: bad, not_found_url: bad });
    assert.deepEqual([info.placeholder, info.expiredUrl, info.notFoundUrl], [null, null, null], bad);
  }
});

test('an expired link answers once more while it reloads in the background; a missing one expires hard', async () => {
  const store = fakeStore();
  let clock = 1_000;
  const cache = createLinkCache(store, { ttlMs: 10_000, negativeTtlMs: 1_000, now: () => clock });
  store.links.set('go.test/a', row('go.test', 'a', 'https://old.example/'));
  await cache.load('go.test', 'go.test', 'a');
  await cache.load('go.test', 'go.test', 'gone');
  assert.equal(store.reads, 2);

  // Lifetimes are spread over 50–100 % of the TTL: fresh before 5 s, stale after 10 s.
  clock += 4_999;
  assert.equal(cache.peek('go.test', 'a')?.url, 'https://old.example/');
  assert.equal(store.reads, 2);

  store.links.set('go.test/a', row('go.test', 'a', 'https://new.example/'));
  clock += 5_002;
  const release = store.hold();
  assert.equal(cache.peek('go.test', 'a')?.url, 'https://old.example/', 'the stale entry still answers');
  assert.equal(cache.peek('go.test', 'a')?.url, 'https://old.example/');
  assert.equal(store.reads, 3, 'one background reload, not one per request');
  release();
  await new Promise((r) => setImmediate(r));
  assert.equal(cache.peek('go.test', 'a')?.url, 'https://new.example/');

  // The "no such link" entry is past its 1 s: the caller must look it up again.
  assert.equal(cache.peek('go.test', 'gone'), undefined);
});

test('a failed background reload keeps the stale link and is retried after a pause, not on every request', async () => {
  const store = fakeStore();
  let clock = 0;
  const errors: string[] = [];
  const failing = {
    ...store,
    findLink: async (names: readonly string[], keyLower: string) => {
      if (clock > 0) {
        await store.findLink(names, keyLower);
        throw new Error('database down');
      }
      return store.findLink(names, keyLower);
    },
  };
  const cache = createLinkCache(failing, { ttlMs: 10_000, now: () => clock, onError: (_e, m) => errors.push(m) });
  store.links.set('go.test/a', row('go.test', 'a', 'https://old.example/'));
  await cache.load('go.test', 'go.test', 'a');
  clock = 10_001;
  for (let i = 0; i < 5; i++) {
    assert.equal(cache.peek('go.test', 'a')?.url, 'https://old.example/');
    await new Promise((r) => setImmediate(r));
  }
  assert.equal(store.reads, 2, 'one reload attempt');
  assert.equal(errors.length, 1);
  clock += 5_001;
  cache.peek('go.test', 'a');
  await new Promise((r) => setImmediate(r));
  assert.equal(store.reads, 3, 'retried after the pause');
});

test("toLinkInfo: a completed test's stored route counts only for the current completion time, a winner only while it is a variant", () => {
  const variants = '[{"url":"https://a.example/","percentage":50},{"url":"https://b.example/","percentage":50}]';
  const base = { ...row('go.test', 'a'), test_variants: variants, test_completed_at: 1_000 };
  const settled = (over: Partial<LinkWithWorkspace>) => toLinkInfo({ ...base, ...over } as LinkWithWorkspace).testSettled;
  assert.deepEqual(settled({ test_route: 'winner', test_route_url: 'https://b.example/', test_decided_for: 1_000 }), { route: 'winner', url: 'https://b.example/' });
  assert.deepEqual(settled({ test_route: 'stop', test_route_url: null, test_decided_for: 1_000 }), { route: 'stop' });
  assert.deepEqual(settled({ test_route: 'split', test_route_url: null, test_decided_for: 1_000 }), { route: 'split' });
  assert.equal(settled({ test_route: 'stop', test_decided_for: 999 }), null, 'decided for an earlier completion time');
  assert.equal(settled({ test_route: 'winner', test_route_url: 'https://c.example/', test_decided_for: 1_000 }), null, 'the winner is no longer a variant');
  assert.equal(settled({}), null, 'no settings row');
});
