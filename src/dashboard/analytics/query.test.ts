import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pageParamsOf } from './query.js';

test('the range form: a changed date means custom dates, a changed interval the preset (issue 42)', () => {
  // The page showed 2024-03-01..2024-03-31 and the select was changed to 7d: the preset.
  assert.deepEqual(pageParamsOf({ interval: '7d', start: '2024-03-01', end: '2024-03-31', shownStart: '2024-03-01', shownEnd: '2024-03-31' }), { interval: '7d' });
  // The page showed 24h (no dates) and dates were typed; the select still says 24h: the dates.
  assert.deepEqual(pageParamsOf({ interval: '24h', start: '2024-03-01', end: '', shownStart: '', shownEnd: '' }), { start: '2024-03-01' });
  // "Custom dates" chosen: the dates, no interval for the API.
  assert.deepEqual(pageParamsOf({ interval: 'custom', start: '2024-03-01', end: '2024-03-05' }), { start: '2024-03-01', end: '2024-03-05' });
  // A link with both (no shown dates): a start overrides the interval, as the API's rule.
  assert.deepEqual(pageParamsOf({ interval: '30d', start: '2024-03-01' }), { start: '2024-03-01' });
  assert.deepEqual(pageParamsOf({ interval: '30d', country: 'US', junk: 'x' }), { interval: '30d', country: 'US' });
});
