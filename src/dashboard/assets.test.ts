import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compressedSizes } from './assets.js';

test('a dashboard page loads at most 150 KB of JavaScript and CSS, compressed (issue 17)', () => {
  const sizes = compressedSizes();
  const total = Object.values(sizes).reduce((a, b) => a + b, 0);
  assert.deepEqual(Object.keys(sizes).sort(), ['chart.js', 'dashboard.css', 'htmx.min.js', 'links.js', 'uplot.min.css', 'uplot.min.js']);
  assert.ok(total <= 150 * 1024, `${total} bytes`);
});
