import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkWebUrl, isHeaderSafe, isImageDataUrl, locationUrl, normaliseUrl, pageImageUrl, WEB_URL_PROBLEMS } from './web-url.js';
import { ACCEPTED_HOSTILE_URLS, REFUSED_HOSTILE_URLS } from './test-support/hostile-urls.js';


test('stored form: bare host names completed, http(s) URLs kept exactly as given (IRIs included)', () => {
  const cases: [string, string][] = [
    ['example.com', 'https://example.com/'],
    ['example.com/path?q=1', 'https://example.com/path?q=1'],
    ['example.com:8080/x', 'https://example.com:8080/x'],
    ['sub.example.co.uk', 'https://sub.example.co.uk/'],
    ['bücher.example/x', 'https://xn--bcher-kva.example/x'],
    ['https://example.com', 'https://example.com'],
    ['http://localhost:3000/a', 'http://localhost:3000/a'],
    ['HTTPS://Example.com/A', 'HTTPS://Example.com/A'],
    ['  https://example.com/x \n', 'https://example.com/x'],
    ['http:example.com', 'http://example.com/'],
    ['https:\\\\example.com\\a', 'https://example.com/a'],
  ];
  for (const [raw, expected] of cases) assert.equal(normaliseUrl(raw), expected, raw);
  for (const raw of ACCEPTED_HOSTILE_URLS) assert.deepEqual(checkWebUrl(raw), { url: raw, problem: null }, raw);
});

test('refused: control characters, whitespace and unpaired surrogates anywhere inside; every scheme but http(s)', () => {
  for (const [raw, problem] of REFUSED_HOSTILE_URLS) {
    assert.deepEqual(checkWebUrl(raw), { url: null, problem: WEB_URL_PROBLEMS[problem] }, JSON.stringify(raw));
  }
  // Every C0 control, DEL and every C1 control, in the path, the query, the host and the fragment.
  for (let code = 0; code <= 0x9f; code++) {
    if (code > 0x1f && code < 0x7f) continue;
    const c = String.fromCharCode(code);
    for (const raw of [`https://example.com/a${c}b`, `https://example.com/?q=${c}x`, `https://exa${c}mple.com/`, `https://example.com/#${c}x`]) {
      assert.equal(checkWebUrl(raw).problem, WEB_URL_PROBLEMS.characters, `U+${code.toString(16)} in ${JSON.stringify(raw)}`);
    }
  }
});

test('Location form: percent-encoded visible ASCII that parses to the same URL as the stored value', () => {
  assert.equal(locationUrl('https://ja.wikipedia.org/wiki/東京'), 'https://ja.wikipedia.org/wiki/%E6%9D%B1%E4%BA%AC');
  assert.equal(locationUrl('https://example.com/café'), 'https://example.com/caf%C3%A9');
  assert.equal(locationUrl('https://bücher.example/'), 'https://xn--bcher-kva.example/');
  assert.equal(locationUrl('https://example.com/100%25/%zz'), 'https://example.com/100%25/%zz', 'percent sequences are kept, valid or not');
  assert.equal(locationUrl('example.com'), 'https://example.com/');
  for (const raw of ACCEPTED_HOSTILE_URLS) {
    const location = locationUrl(raw)!;
    assert.ok(isHeaderSafe(location), `${raw} → ${location}`);
    assert.equal(new URL(location).href, new URL(raw).href, raw);
  }
});

test('Location form: a stored value that would be refused today is none (rows of older versions)', () => {
  for (const [raw] of REFUSED_HOSTILE_URLS) assert.equal(locationUrl(raw), null, JSON.stringify(raw));
  assert.equal(locationUrl(null), null);
  assert.equal(locationUrl(undefined), null);
});

test('any accepted value, however odd, has a header-safe Location form (seeded random strings)', () => {
  // Characters from every class that matters: ASCII punctuation, Latin-1, CJK, emoji (pairs), and
  // the controls and spaces that must be refused.
  const alphabet = [...'abcXYZ019-._~:/?#[]@!$&\'()*+,;=%"<>\\^`{|} ', 'é', 'ü', 'ÿ', '東', '€', '😀', '\u0000', '\u0009', '\u007f', '\u0085', '\u00a0', '\u2028', '\ud800'];
  let seed = 42;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  let accepted = 0;
  for (let i = 0; i < 5000; i++) {
    let tail = '';
    for (let n = Math.floor(random() * 20); n > 0; n--) tail += alphabet[Math.floor(random() * alphabet.length)];
    const raw = `https://example.com/${tail}`;
    const checked = checkWebUrl(raw);
    if (checked.url === null) continue;
    accepted++;
    const location = locationUrl(raw)!;
    assert.ok(isHeaderSafe(location), `${JSON.stringify(raw)} → ${JSON.stringify(location)}`);
    assert.equal(new URL(location).href, new URL(checked.url).href);
  }
  assert.ok(accepted > 500, `enough accepted samples (${accepted})`);
});

test('isHeaderSafe: visible ASCII only', () => {
  assert.equal(isHeaderSafe('https://example.com/a?b=c#d'), true);
  for (const bad of ['https://example.com/é', 'https://example.com/東', 'https://example.com/a b', 'https://example.com/\u0000', 'https://example.com/\u007f', '']) {
    assert.equal(isHeaderSafe(bad), false, JSON.stringify(bad));
  }
});

test('images: http(s) URLs by the same rule, or base64 data URLs of png, jpeg, jpg, gif, webp', () => {
  assert.equal(isImageDataUrl('data:image/png;base64,iVBORw0KGgo='), true);
  assert.equal(isImageDataUrl('data:image/webp;base64,'), true);
  for (const bad of ['data:image/svg+xml;base64,PHN2Zz4=', 'data:image/png;base64,AA AA', 'data:image/png;base64,AA"><script>', 'data:text/html;base64,AAAA']) {
    assert.equal(isImageDataUrl(bad), false, bad);
  }
  assert.equal(pageImageUrl('data:image/png;base64,iVBORw0KGgo='), 'data:image/png;base64,iVBORw0KGgo=');
  assert.equal(pageImageUrl('data:image/png;base64,AA"><b>'), null);
  assert.equal(pageImageUrl('https://img.example/ö.png'), 'https://img.example/%C3%B6.png');
  assert.equal(pageImageUrl('javascript:alert(1)'), null);
  assert.equal(pageImageUrl(null), null);
});
