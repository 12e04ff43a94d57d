import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { pageHeaders, sourceOf, styleSource } from './page-headers.js';
import { cspDirectives as directives } from '../redirect/testing.js';

test('sourceOf: the origin of an http(s) URL, or only its scheme when a policy cannot spell the host', () => {
  assert.equal(sourceOf('https://example.com/a?b#c'), 'https://example.com');
  assert.equal(sourceOf('http://example.com:8080/'), 'http://example.com:8080');
  assert.equal(sourceOf('https://bücher.example/'), 'https://xn--bcher-kva.example');
  assert.equal(sourceOf('https://1.2.3.4/'), 'https://1.2.3.4');
  // The URL parser accepts these hosts; written into a policy they would be a wildcard, end the
  // directive, or start a keyword.
  for (const url of ['https://*.com/', 'https://a;b.com/', 'https://a,b.com/', "https://a'b.com/", 'https://a_b.example/']) {
    assert.equal(sourceOf(url), 'https:', url);
  }
  assert.equal(sourceOf('http://[::1]:8080/'), 'http:', 'an IPv6 literal cannot be written in a policy');
  assert.equal(sourceOf('javascript:alert(1)'), null);
  assert.equal(sourceOf('not a url'), null);
});

test('pageHeaders: nothing by default, no framing by others, no <base>, forms only where allowed', () => {
  const plain = pageHeaders({});
  assert.equal(plain['x-content-type-options'], 'nosniff');
  assert.equal(plain['referrer-policy'], 'no-referrer');
  const d = directives(plain['content-security-policy']!);
  assert.deepEqual([...d.keys()].sort(), ['base-uri', 'default-src', 'form-action', 'frame-ancestors']);
  assert.equal(d.get('default-src'), "'none'");
  assert.equal(d.get('frame-ancestors'), "'none'");
  assert.equal(d.get('base-uri'), "'none'");
  assert.equal(d.get('form-action'), "'none'");
  assert.ok(Object.isFrozen(plain));

  const form = directives(pageHeaders({ formTargets: ['https://a.example/x', 'https://a.example/y', 'http://b.example:81/', 'https://*.evil/'] })['content-security-policy']!);
  assert.equal(form.get('form-action'), "'self' https://a.example http://b.example:81 https:");

  const frame = directives(pageHeaders({ frameTargets: ['https://app.example/p?q=1'] })['content-security-policy']!);
  assert.equal(frame.get('frame-src'), 'https://app.example');
  assert.equal(frame.get('frame-ancestors'), "'none'");
  assert.equal(directives(pageHeaders({ frameTargets: [] })['content-security-policy']!).get('frame-src'), "'none'");
});

test('styleSource: the SHA-256 of the exact stylesheet text, as CSP hashes inline styles', () => {
  const css = 'body{color:red}';
  assert.equal(styleSource(css), `'sha256-${createHash('sha256').update(css).digest('base64')}'`);
  assert.equal(directives(pageHeaders({ style: styleSource(css) })['content-security-policy']!).get('style-src'), styleSource(css));
});
