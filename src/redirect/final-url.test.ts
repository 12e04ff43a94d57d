import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildFinalUrl, queryHasNoTrack, utmOf } from './final-url.js';
import { isHeaderSafe } from '../web-url.js';

const base = { clickIdParam: 'waymark_id', clickId: null, viaKey: null };

test('no query and nothing to add: the target exactly as stored', () => {
  assert.equal(buildFinalUrl('https://example.com', '', base), 'https://example.com');
  assert.equal(buildFinalUrl('https://example.com/a?b=1#frag', '', base), 'https://example.com/a?b=1#frag');
});

test('incoming parameters are added and overwrite same-named ones (behaviour.md §5.4)', () => {
  assert.equal(buildFinalUrl('https://example.com/p?a=1&keep=x', 'a=2&b=3', base), 'https://example.com/p?a=2&keep=x&b=3');
  assert.equal(buildFinalUrl('https://example.com/p?utm_source=link', 'utm_source=newsletter', base), 'https://example.com/p?utm_source=newsletter');
});

test('the redirect controls are not forwarded: qr, dub-no-track, redir_url, skip_deeplink_preview, pw', () => {
  assert.equal(buildFinalUrl('https://example.com/', 'qr=1&dub-no-track=1&skip_deeplink_preview=1&pw=secret&x=1', base), 'https://example.com/?x=1');
});

test('redir_url replaces the destination when it is a valid http(s) URL', () => {
  assert.equal(buildFinalUrl('https://example.com/', 'redir_url=https%3A%2F%2Fother.example%2Fp%3Fq%3D1', base), 'https://other.example/p?q=1');
  assert.equal(buildFinalUrl('https://example.com/', 'redir_url=other.example%2Fx', base), 'https://other.example/x', 'https:// is added when missing');
  assert.equal(buildFinalUrl('https://example.com/', 'redir_url=javascript%3Aalert(1)', base), 'https://example.com/', 'non-http schemes are ignored');
});

test('click id: added last under the configured name, so the query cannot replace it', () => {
  assert.equal(buildFinalUrl('https://shop.example/', '', { ...base, clickId: 'C1' }), 'https://shop.example/?waymark_id=C1');
  assert.equal(buildFinalUrl('https://shop.example/', 'waymark_id=forged', { ...base, clickId: 'C1' }), 'https://shop.example/?waymark_id=C1');
  assert.equal(buildFinalUrl('https://shop.example/', '', { ...base, clickIdParam: 'dub_id', clickId: 'C1' }), 'https://shop.example/?dub_id=C1');
});

test('click id: not added with dub-no-track', () => {
  assert.equal(buildFinalUrl('https://shop.example/', 'dub-no-track=1', { ...base, clickId: 'C1' }), 'https://shop.example/');
  assert.equal(queryHasNoTrack('a=1&dub-no-track=1'), true);
  assert.equal(queryHasNoTrack('a=1'), false);
});

test('click id: Stripe payment links get client_reference_id when asked', () => {
  assert.equal(
    buildFinalUrl('https://buy.stripe.com/x?waymark_client_reference_id=1', '', { ...base, clickId: 'C1' }),
    'https://buy.stripe.com/x?client_reference_id=waymark_id_C1',
  );
  assert.equal(
    buildFinalUrl('https://buy.stripe.com/x?dub_client_reference_id=1', '', { ...base, clickIdParam: 'dub_id', clickId: 'C1' }),
    'https://buy.stripe.com/x?client_reference_id=dub_id_C1',
  );
});

test('partner links carry via=<key>', () => {
  assert.equal(buildFinalUrl('https://shop.example/', '', { ...base, viaKey: 'jane' }), 'https://shop.example/?via=jane');
});

test('a target that is not a URL is a bug upstream (the cache holds Location forms only): it throws, never passes through', () => {
  assert.throws(() => buildFinalUrl('not a url', 'a=1', base), TypeError);
});

test('whatever the query holds, the final URL is header-safe and keeps the values (query merging, redir_url, click id)', () => {
  const queries = [
    'q=東京&e=€&l=café',
    'q=%E6%9D%B1%E4%BA%AC&c=%00%01%7F&s=a%20b+c&p=%25zz&bad=%zz',
    'emoji=😀&tab=%09&nl=%0A',
    'redir_url=https://例え.テスト/パス?x=é',
    'redir_url=https%3A%2F%2Fb%C3%BCcher.example%2F%E2%82%AC%3Fq%3D%F0%9F%98%80',
    'redir_url=%2F%2Fevil.example',
    'redir_url=javascript:alert(1)&x=1',
    'x=a\u0001b',
  ];
  for (const query of queries) {
    for (const options of [base, { ...base, clickId: 'C1', viaKey: 'k€y' }]) {
      const url = buildFinalUrl('https://example.com/%E2%82%AC?a=1', query, options);
      assert.ok(isHeaderSafe(url), `${query} → ${url}`);
    }
  }
  const merged = new URL(buildFinalUrl('https://example.com/', 'q=東京&c=%00&s=a%20b', base)).searchParams;
  assert.deepEqual([merged.get('q'), merged.get('c'), merged.get('s')], ['東京', '\u0000', 'a b']);
  assert.equal(buildFinalUrl('https://example.com/', 'redir_url=https://例え.テスト/パス', base), 'https://xn--r8jz45g.xn--zckzah/%E3%83%91%E3%82%B9');
  assert.equal(buildFinalUrl('https://example.com/', 'redir_url=%2F%2Fevil.example', base), 'https://evil.example/', 'a scheme-relative redir_url gets https:// like any value without a scheme');
});

test('utmOf reads the five utm parameters of the final URL', () => {
  assert.deepEqual(utmOf('https://x.example/?utm_source=news&utm_medium=email&utm_campaign=c&utm_term=t&utm_content=v&o=1'), {
    utm_source: 'news',
    utm_medium: 'email',
    utm_campaign: 'c',
    utm_term: 't',
    utm_content: 'v',
  });
  assert.deepEqual(utmOf('https://x.example/?a=1'), { utm_source: null, utm_medium: null, utm_campaign: null, utm_term: null, utm_content: null });
  assert.equal(utmOf('https://x.example/').utm_source, null);
});
