import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compressedSizes } from './assets.js';
import { createTestApp } from '../test-support/harness.js';
import { addUser, logIn, slugOf } from './testing.js';
import { pageAssetWeight, referencedAssets } from './page-weight.js';

test('a dashboard page loads at most 150 KB of JavaScript and CSS, compressed (issue 17)', () => {
  const sizes = compressedSizes();
  const total = Object.values(sizes).reduce((a, b) => a + b, 0);
  assert.deepEqual(Object.keys(sizes).sort(), ['chart.js', 'dashboard.css', 'htmx.min.js', 'links.js', 'uplot.min.css', 'uplot.min.js']);
  assert.ok(total <= 150 * 1024, `${total} bytes`);
});

test('the links pages reference at most 150 KB of JavaScript and CSS as sent (gzip)', async () => {
  const t = await createTestApp();
  try {
    const browser = await logIn(t, await addUser(t, 'owner'));
    for (const path of ['/links', '/links/new']) {
      const page = await browser.get(`/dashboard/w/${await slugOf(t)}${path}`);
      assert.equal(page.statusCode, 200);
      assert.equal(referencedAssets(page.body).length, 4, 'stylesheet, htmx, links.js and chart.js: uPlot only on pages with a chart');
      const { total } = await pageAssetWeight(t.app, page.body);
      assert.ok(total > 0 && total <= 150 * 1024, `${path}: ${total} bytes`);
    }
  } finally {
    await t.close();
  }
});
