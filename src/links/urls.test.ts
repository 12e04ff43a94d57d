import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mergeUtm, normaliseUrl, utmFromUrl } from './urls.js';

test('normaliseUrl completes bare host names and keeps http(s) URLs as given', () => {
  const cases: [string, string][] = [
    ['example.com', 'https://example.com/'],
    ['example.com/path?q=1', 'https://example.com/path?q=1'],
    ['example.com:8080/x', 'https://example.com:8080/x'],
    ['sub.example.co.uk', 'https://sub.example.co.uk/'],
    ['https://example.com', 'https://example.com'],
    ['http://localhost:3000/a', 'http://localhost:3000/a'],
    ['HTTPS://Example.com/A', 'HTTPS://Example.com/A'],
    ['  https://example.com/x  ', 'https://example.com/x'],
    ['http:example.com', 'http://example.com/'],
  ];
  for (const [raw, expected] of cases) assert.equal(normaliseUrl(raw), expected, raw);
});

test('normaliseUrl refuses every scheme but http(s), and non-URLs', () => {
  for (const raw of [
    'javascript:alert(1)',
    'JavaScript:alert(document.cookie)',
    'data:text/html,<script>alert(1)</script>',
    'mailto:someone@example.com',
    'ftp://example.com/file',
    'file:///etc/passwd',
    'vbscript:msgbox(1)',
    'tel:+123456',
    'https://',
    'not a url',
    'localhost',
    '',
    'https://exa mple.com',
  ]) {
    assert.equal(normaliseUrl(raw), null, raw);
  }
});

test('mergeUtm sets, replaces and removes parameters; undefined leaves them alone', () => {
  assert.equal(mergeUtm('https://a.com', { utm_source: 'news' }), 'https://a.com/?utm_source=news');
  assert.equal(
    mergeUtm('https://a.com/p?x=1&utm_source=old&utm_medium=mail', { utm_source: 'new', utm_medium: null, utm_term: undefined, ref: 'abc' }),
    'https://a.com/p?x=1&utm_source=new&ref=abc',
  );
  assert.equal(mergeUtm('https://a.com/p?utm_campaign=x', { utm_campaign: '' }), 'https://a.com/p');
  assert.equal(mergeUtm('https://a.com/p', {}), 'https://a.com/p');
  assert.equal(mergeUtm('https://a.com/', { utm_content: 'a b&c' }), 'https://a.com/?utm_content=a+b%26c');
});

test('utmFromUrl reads the five UTM columns, null where absent', () => {
  assert.deepEqual(utmFromUrl('https://a.com/?utm_source=s&utm_medium=m&utm_campaign=c&utm_term=t&utm_content=a+b&ref=x'), {
    utm_source: 's',
    utm_medium: 'm',
    utm_campaign: 'c',
    utm_term: 't',
    utm_content: 'a b',
  });
  assert.deepEqual(utmFromUrl('https://a.com/?utm_source='), {
    utm_source: null,
    utm_medium: null,
    utm_campaign: null,
    utm_term: null,
    utm_content: null,
  });
  assert.equal(utmFromUrl('').utm_source, null);
});
