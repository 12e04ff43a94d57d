import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mergeUtm, utmFromUrl } from './urls.js';

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
